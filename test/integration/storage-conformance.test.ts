/**
 * The DynamoDB stores, through the DynamoDB emulator, hold to the storage conformance suite that
 * the in-memory stores of the unit tests pass too (`test/unit/storage/memory-stores.test.ts`).
 */

import { type Emulators, startEmulators } from '../../local/emulators';
import { provisionLocalResources } from '../../local/provision';
import { BACKLOG_BUCKET, TABLE } from '../../shared/config/resources';
import { createAwsClients } from '../../shared/platform/aws';
import { AesGcmSealer, keyText } from '../../shared/platform/sealing';
import { DynamoAcceptedIds } from '../../shared/storage/accepted-ids';
import { DynamoBacklogStore } from '../../shared/storage/backlog';
import { DynamoDeclaredDestinations } from '../../shared/storage/declared-destinations';
import { DynamoHealthStore } from '../../shared/storage/health';
import { DynamoLateAnswers } from '../../shared/storage/late-answers';
import { DynamoOrderedProgress } from '../../shared/storage/ordered-progress';
import { DynamoRateBudget } from '../../shared/storage/rate-budget';
import { DynamoReplayClaims } from '../../shared/storage/replay-claims';
import { tableStores } from '../../shared/storage/store';
import { describeStorageConformance } from '../support/storage-conformance';

let emulators: Emulators | undefined;

afterAll(async () => {
  await emulators?.stop();
});

describeStorageConformance(async () => {
  emulators = await startEmulators();
  const clients = createAwsClients(emulators.endpoints);
  await provisionLocalResources(clients);
  return {
    // Keys sealed, as every stack with a topic key writes them.
    stores: tableStores(clients.dynamo, TABLE.localName, new AesGcmSealer(keyText('conformance key'))),
    health: new DynamoHealthStore(clients.dynamo, TABLE.localName),
    backlog: new DynamoBacklogStore(clients.dynamo, TABLE.localName, clients.s3, BACKLOG_BUCKET.localName),
    lateAnswers: new DynamoLateAnswers(clients.dynamo, TABLE.localName),
    rateBudget: new DynamoRateBudget(clients.dynamo, TABLE.localName),
    replayClaims: new DynamoReplayClaims(clients.dynamo, TABLE.localName),
    acceptedIds: new DynamoAcceptedIds(clients.dynamo, TABLE.localName),
    orderedProgress: new DynamoOrderedProgress(clients.dynamo, TABLE.localName),
    declaredDestinations: new DynamoDeclaredDestinations(clients.dynamo, TABLE.localName),
  };
});
