/** What a replay did (or, in a dry run, would do), blob by blob and in total. */
import type { ReplayRequest } from './replay-request';

/** What a replay did (or, with `dryRun`, would do) to one blob. */
export interface BlobReplay {
  key: string;
  /** Records in the blob; absent for a blob skipped without being read. */
  records?: number;
  /**
   * Of those, how many belong to another topic (a subscription of the same name on another topic
   * writing to the same container): never replayed here. Absent when there are none.
   */
  otherTopic?: number;
  /** Of the records of the subscription's topic, how many the reason filter selected. */
  matched?: number;
  /**
   * Of the matched, how many are left out because records of their reason were replayed before
   * (without `force`); absent when none are.
   */
  alreadyReplayed?: number;
  /** Events queued from this blob (0 in a dry run). */
  queued: number;
  /**
   * Whether the blob was marked replayed after its events were queued; present only when events
   * were queued (false: a later replay sends them again).
   */
  marked?: boolean;
  /** Its previous replay, if any (epoch ms). */
  replayedAt?: number;
  /** Left alone: it was replayed before and `force` was not given, or another replay holds it. */
  skipped: boolean;
  /** Left alone because another replay call was replaying it at the same time. */
  replayingElsewhere?: true;
  /** Why the blob could not be (fully) replayed; absent when it was. */
  failed?: string;
}

export interface ReplayReport {
  dryRun: boolean;
  /** Blobs selected (by keys or window), skipped ones included. */
  blobsSelected: number;
  /** Records selected by the reason filter in the blobs not skipped. */
  recordsMatched: number;
  eventsQueued: number;
  /** Blobs left alone because they were replayed before (and their keys). */
  blobsSkipped: number;
  skippedKeys: string[];
  /** Named keys (or listed blobs) that no longer exist. */
  notFound: string[];
  /** Records of another topic in the blobs read (never replayed here). */
  otherTopic: number;
  /** Blobs that failed (each says why in `blobs`), and their keys. */
  blobsFailed: number;
  failedKeys: string[];
  /** Blobs whose events were queued but which could not be marked replayed. */
  unmarkedKeys: string[];
  /** Blobs left alone because another replay call was replaying them at the same time. */
  replayingElsewhereKeys: string[];
  /** Selected blobs not started because an earlier blob failed. */
  notStarted: string[];
  blobs: BlobReplay[];
}

/** One blob's result in a replay call: `undefined` for a blob not started (an earlier one failed). */
export type BlobOutcome = BlobReplay | 'notFound' | undefined;

/** The report of a replay call from each selected blob's outcome (`outcomes[i]` is `selected[i]`'s). */
export function replayReport(
  request: Pick<ReplayRequest, 'dryRun'>,
  /** The blobs the replay selected, in order (`SelectedBlob`s of `replay-plan.ts`). */
  selected: readonly { readonly key: string }[],
  outcomes: readonly BlobOutcome[],
): ReplayReport {
  const blobs = outcomes.filter((result): result is BlobReplay => typeof result === 'object');
  const keysOf = (chosen: readonly BlobReplay[]) => chosen.map((blob) => blob.key);
  const skippedKeys = keysOf(blobs.filter((blob) => blob.skipped));
  const failedKeys = keysOf(blobs.filter((blob) => blob.failed !== undefined));
  return {
    dryRun: request.dryRun,
    blobsSelected: selected.length,
    recordsMatched: blobs.reduce((sum, blob) => sum + (blob.skipped ? 0 : (blob.matched ?? 0)), 0),
    eventsQueued: blobs.reduce((sum, blob) => sum + blob.queued, 0),
    blobsSkipped: skippedKeys.length,
    skippedKeys,
    notFound: selected
      .filter((_, index) => outcomes[index] === 'notFound')
      .map((blob) => blob.key)
      .sort(),
    otherTopic: blobs.reduce((sum, blob) => sum + (blob.otherTopic ?? 0), 0),
    blobsFailed: failedKeys.length,
    failedKeys,
    unmarkedKeys: keysOf(blobs.filter((blob) => blob.marked === false)),
    replayingElsewhereKeys: keysOf(blobs.filter((blob) => blob.replayingElsewhere === true)),
    notStarted: selected.filter((_, index) => outcomes[index] === undefined).map((blob) => blob.key),
    blobs,
  };
}
