/** What the dead-letter service works on: injected ports, so the unit tests run it on fakes. */
import type { MetricBuffer } from '../../observability/metrics';
import type { Clock } from '../../platform/clock';
import type { JobQueue } from '../../queue/sqs-job-queue';
import type { DeadLetterBucket } from '../../storage/dead-letter-bucket';
import type { NamedBucketRef } from '../../storage/dead-letter-buckets';
import type { ReplayClaims } from '../../storage/replay-claims';

/** The bucket operations the service uses (a fake in unit tests). */
export type DeadLetterBlobs = Pick<
  DeadLetterBucket,
  'list' | 'hourFolders' | 'read' | 'stampOf' | 'replayedAt' | 'replayMarker' | 'markReplayed'
>;

export interface DeadLetterServiceDeps {
  /** The stack's own dead-letter bucket. */
  bucket: DeadLetterBlobs;
  /** A bucket a subscription names (absent: those subscriptions' dead letters can't be read). */
  namedBucket?: (ref: NamedBucketRef) => DeadLetterBlobs;
  /** Where replayed events go: the `delivery` queue, as if just published. */
  queue: JobQueue;
  clock: Pick<Clock, 'now'>;
  /** A new unique id (one per replay call; delivery ids are `replay-<id>.<n>`). */
  newId: () => string;
  /** Where replayed events are counted (`ReplayedEventCount`). */
  metrics?: MetricBuffer;
  /**
   * Claims on blobs being replayed: a blob another replay call holds is left alone. Without it,
   * two replays running at once may both replay a blob.
   */
  claims?: ReplayClaims;
}

/** Blobs read (and replayed) at once within one call. */
export const BLOB_CONCURRENCY = 8;
