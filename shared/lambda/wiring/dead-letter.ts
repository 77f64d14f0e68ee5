/** The dead-letter function's wiring: the step that writes dead letters to the bucket. */
import { randomUUID } from 'node:crypto';
import { ENV } from '../../config/resources';
import { requireSetting } from '../../config/runtime';
import { DeadLetterStep, DropRecorder } from '../../delivery/dead-letter';
import { scaleProfiles } from '../../delivery/rules/profiles';
import { systemClock } from '../../platform/clock';
import { DeadLetterBucket } from '../../storage/dead-letter-bucket';
import type { Observability } from './observability';
import { buildPublisher } from './publish';
import { queueOf, type Runtime } from './runtime';

/** The dead-letter step behind the dead-letter function. */
export function buildDeadLetterStep(runtime: Runtime, observability: Observability): DeadLetterStep {
  return new DeadLetterStep({
    bucket: new DeadLetterBucket(
      runtime.clients.s3,
      requireSetting(runtime.config.deadLetterBucket, ENV.deadLetterBucket),
    ),
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
