/**
 * The in-memory stores the unit tests use hold to the storage conformance suite, which the
 * DynamoDB stores pass against the emulator too (`test/integration/storage-conformance.test.ts`).
 */

import { subscriptionSchema } from '../../../shared/domain/model';
import { MemoryDeclaredDestinations } from '../../../shared/storage/declared-destinations';
import { InProcessRateBudget } from '../../../shared/storage/rate-budget';
import { subscription } from '../../support/fakes';
import {
  MemoryAcceptedIds,
  MemoryBacklogStore,
  MemoryHealthStore,
  MemoryLateAnswers,
  MemoryOrderedProgress,
  MemoryReplayClaims,
  memoryStores,
} from '../../support/memory-stores';
import { describeStorageConformance, unsetFields } from '../../support/storage-conformance';

describeStorageConformance(async () => ({
  stores: memoryStores(),
  health: new MemoryHealthStore(),
  backlog: new MemoryBacklogStore(),
  lateAnswers: new MemoryLateAnswers(),
  replayClaims: new MemoryReplayClaims(),
  acceptedIds: new MemoryAcceptedIds(),
  orderedProgress: new MemoryOrderedProgress(),
  rateBudget: new InProcessRateBudget(),
  declaredDestinations: new MemoryDeclaredDestinations(),
}));

describe('the round trips’ field check', () => {
  it('names every field a value leaves unset, nested ones and array elements included', () => {
    const value = {
      ...subscription({
        destination: {
          endpointType: 'WebHook',
          endpointUrl: 'https://hooks.example.test/in',
          deliveryAttributeMappings: [{ name: 'X-Plain', type: 'Static', isSecret: false, value: 'hello' }],
        },
      }),
      labels: undefined,
    };

    expect(unsetFields(subscriptionSchema, value).sort()).toEqual(
      [
        'uid',
        'destination.sealedQuery',
        'destination.maxEventsPerBatch',
        'destination.preferredBatchSizeInKilobytes',
        'destination.signing',
        'destination.tls',
        'destination.maxDeliveriesPerSecond',
        'destination.auth',
        'disableAfterFailingForMs',
        'deadLetter',
        'deliveryLog',
        'labels',
        'retry.scheduleMs',
        'expirationTime',
        'validation',
        'orderedDelivery',
      ].sort(),
    );
  });
});
