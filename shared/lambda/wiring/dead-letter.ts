/** The dead-letter function's wiring: the steps that write dead letters and archive segments. */
import { randomUUID } from 'node:crypto';
import { type ArchiveSweepReport, sweepArchives } from '../../archive/sweep';
import { ArchiveWriter } from '../../archive/writer';
import { DeadLetterStep, DropRecorder } from '../../delivery/dead-letter';
import { scaleProfiles } from '../../delivery/rules/profiles';
import { systemClock } from '../../platform/clock';
import { deadLetterBucketsOf } from './dead-letter-buckets';
import type { Observability } from './observability';
import { buildPublisher } from './publish';
import { archiveOf, queueOf, type Runtime, storesOf } from './runtime';

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

/** The archive's writer: archive copies into segments in the archive bucket. */
export const buildArchiveWriter = (runtime: Runtime, observability: Observability): ArchiveWriter =>
  new ArchiveWriter({
    store: archiveOf(runtime),
    metrics: observability.buffer,
    logger: observability.logger,
  });

/** The daily archive sweep, on the archive bucket and the topics as the table holds them. */
export function buildArchiveSweep(runtime: Runtime): () => Promise<ArchiveSweepReport> {
  const stores = storesOf(runtime);
  const archive = archiveOf(runtime);
  const clock = runtime.clock ?? systemClock;
  return () =>
    sweepArchives({
      archive,
      getTopic: (name) => stores.topics.get(name, { consistent: true }),
      getNamespaceTopic: (namespace, name) =>
        stores.namespaceTopics.get(namespace, name, { consistent: true }),
      now: () => clock.now(),
    });
}
