/** The dead-letter function's wiring: the step that writes dead letters to the bucket. */
import { randomUUID } from 'node:crypto';
import { DeadLetterStep, DropRecorder } from '../../delivery/dead-letter';
import { scaleProfiles } from '../../delivery/rules/profiles';
import { systemClock } from '../../platform/clock';
import { deadLetterBucketsOf } from './dead-letter-buckets';
import type { Observability } from './observability';
import { buildPublisher } from './publish';
import { queueOf, type Runtime } from './runtime';

/** The dead-letter step behind the dead-letter function. */
export function buildDeadLetterStep(runtime: Runtime, observability: Observability): DeadLetterStep {
  const buckets = deadLetterBucketsOf(runtime);
  return new DeadLetterStep({
    bucket: buckets.own,
    namedBucket: buckets.named,
    queue: queueOf(runtime, ['endedDelivery']),
    clock: runtime.clock ?? systemClock,
    profiles: scaleProfiles(runtime.config.timeScale),
    drops: new DropRecorder(observability.buffer, observability.logger),
    metrics: observability.buffer,
    logger: observability.logger,
    newId: randomUUID,
    // Dead-letter notices are published as any publish is, to the stack's own topic.
    notices: buildPublisher(runtime, observability),
  });
}
