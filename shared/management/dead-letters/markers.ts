/**
 * Replay markers (`<key>.replayed`, read and written by the bucket): which records a blob's
 * marker already covers, and the reasons it holds after a replay.
 */
import type { DeadLetterFormat } from '../../delivery/rules/dead-letter-layout';
import { DEAD_LETTER_REASONS } from '../../domain/model';
import type { ReplayMarker } from '../../storage/dead-letter-bucket';
import { recordReason } from './records';

/**
 * Whether the blob's marker says `record` was replayed before: its reason is among the marker's,
 * or the marker covers every reason. Records without a reason can only be chosen without a
 * filter, which marks the blob, so any marker covers them.
 */
export function coveredByMarker(
  format: DeadLetterFormat,
  marker: ReplayMarker | undefined,
  record: string,
): boolean {
  if (marker === undefined) return false;
  const reason = recordReason(format, record);
  return marker.reasons === undefined || reason === undefined || marker.reasons.includes(reason);
}

/**
 * The reasons the blob's marker holds once `replayed` (records) went out: the reasons it held
 * plus theirs, or every reason when it already covered every one.
 */
export function markerReasonsAfter(
  format: DeadLetterFormat,
  marker: ReplayMarker | undefined,
  replayed: readonly string[],
): string[] {
  const replayedReasons = replayed.flatMap((record) => recordReason(format, record) ?? []);
  if (marker === undefined) return replayedReasons;
  return marker.reasons === undefined ? [...DEAD_LETTER_REASONS] : [...marker.reasons, ...replayedReasons];
}
