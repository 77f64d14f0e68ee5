/**
 * The archive sweep: once a day (an EventBridge rule invoking the dead-letter function with
 * {@link ARCHIVE_SWEEP_EVENT}; the local stack's sweeper locally) it removes what topics' archives
 * no longer keep:
 * - a topic's segments of the days that ended more than its `retentionInDays` ago (a segment is
 *   kept its retention at least, and at most a day more);
 * - every segment of a topic that was deleted, made again (the archive of its namesake), or
 *   whose archive was turned off.
 * A sweep that fails is not tried again: the next one, a day later, does what it left.
 */
import { z } from 'zod';
import type { NamespaceTopic, Topic } from '../domain/model';
import { splitNamespaceTopicId } from '../domain/names';
import type { ArchivedTopic, ArchiveStore } from '../storage/archive';

const DAY_MS = 24 * 3_600_000;

/** The event a schedule invokes the dead-letter function with for one archive sweep. */
export const ARCHIVE_SWEEP_EVENT = Object.freeze({ kind: 'archive-sweep' as const });
export const archiveSweepEventSchema = z.object({ kind: z.literal('archive-sweep') });
export type ArchiveSweepEvent = z.infer<typeof archiveSweepEventSchema>;

/** Hours between two sweeps. */
export const ARCHIVE_SWEEP_EVERY_HOURS = 24;

export interface ArchiveSweepDeps {
  archive: Pick<ArchiveStore, 'listTopics' | 'deleteBefore' | 'deleteTopic'>;
  getTopic(name: string): Promise<Pick<Topic, 'createdAt' | 'archive'> | undefined>;
  getNamespaceTopic(
    namespace: string,
    name: string,
  ): Promise<Pick<NamespaceTopic, 'createdAt' | 'archive'> | undefined>;
  now: () => number;
}

export interface ArchiveSweepReport {
  /** Archives looked at (a topic and its creation time each). */
  archives: number;
  /** Segments deleted as older than their topic's retention. */
  expired: number;
  /** Segments deleted with an archive no topic keeps any more. */
  orphaned: number;
}

/** The archive the bucket's `archived` belongs to, as its topic now is; `undefined`: none keeps it. */
async function retentionOf(deps: ArchiveSweepDeps, archived: ArchivedTopic): Promise<number | undefined> {
  const parts = splitNamespaceTopicId(archived.topic);
  const topic =
    parts === undefined
      ? await deps.getTopic(archived.topic)
      : await deps.getNamespaceTopic(parts.namespace, parts.topic);
  if (topic === undefined || topic.archive === undefined) return undefined;
  // A topic made again under the same name is another topic.
  if (Date.parse(topic.createdAt) !== Date.parse(archived.createdAt)) return undefined;
  return topic.archive.retentionInDays;
}

export async function sweepArchives(deps: ArchiveSweepDeps): Promise<ArchiveSweepReport> {
  const report: ArchiveSweepReport = { archives: 0, expired: 0, orphaned: 0 };
  const now = deps.now();
  for (const archived of await deps.archive.listTopics()) {
    report.archives += 1;
    const retentionInDays = await retentionOf(deps, archived);
    if (retentionInDays === undefined) {
      report.orphaned += await deps.archive.deleteTopic(archived);
    } else {
      report.expired += await deps.archive.deleteBefore(archived, now - retentionInDays * DAY_MS);
    }
  }
  return report;
}
