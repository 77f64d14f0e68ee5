/**
 * The archive's writer: the archive queue's consumer step (on the dead-letter function). Each
 * batch's copies are read, their events grouped by topic and hour, and each group written as one
 * segment (a group above {@link MAX_SEGMENT_EVENTS} as several), so a minute of a busy topic's
 * publishes costs a PUT or two. A message is done once every segment holding its events is
 * written; one whose segment could not be written comes back, and its copies are written again
 * (a segment written twice holds the same events twice: replays skip the repeats, `replay`).
 */
import type { ArchiveJob } from '../domain/delivery';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer } from '../observability/metrics';
import { mapWithConcurrency } from '../platform/concurrency';
import { done, poison, type RecordOutcome, retryLater } from '../queue/record-outcome';
import { type ArchivedRecord, type ArchivedTopic, type ArchiveStore, hourOf } from '../storage/archive';
import { type ArchiveCopy, unpackArchiveCopy } from './copy';

/** The most events one segment holds: a replay reads a segment whole. */
export const MAX_SEGMENT_EVENTS = 20_000;

/** Segments written at once. */
const PARALLEL_PUTS = 4;

export interface ArchiveWriterDeps {
  store: Pick<ArchiveStore, 'putSegment'>;
  metrics: MetricBuffer;
  logger: LoggerLike;
}

/** What one batch came to: an outcome per job, and the events and segments written. */
export interface ArchiveWriteReport {
  outcomes: RecordOutcome[];
  events: number;
  segments: number;
}

interface Group {
  topic: ArchivedTopic;
  records: ArchivedRecord[];
  /** The jobs (by position) with events in the group. */
  jobs: Set<number>;
}

/** An archive copy's events as segment records. */
export const recordsOf = (copy: ArchiveCopy): ArchivedRecord[] =>
  copy.events.map((event) => ({
    publishedAt: copy.publishedAt,
    publishId: copy.publishId,
    index: event.index,
    eventId: event.eventId,
    dataVersion: event.dataVersion,
    ...(copy.traceparent === undefined ? {} : { traceparent: copy.traceparent }),
    event: event.json,
  }));

export class ArchiveWriter {
  constructor(private readonly deps: ArchiveWriterDeps) {}

  async writeArchive(jobs: readonly ArchiveJob[]): Promise<ArchiveWriteReport> {
    const outcomes: RecordOutcome[] = jobs.map(() => done());
    const groups = new Map<string, Group>();
    jobs.forEach((job, position) => {
      let copies: ArchiveCopy[];
      try {
        copies = job.copies.map((packed) => unpackArchiveCopy(Buffer.from(packed, 'base64')));
      } catch (error) {
        outcomes[position] = poison((error as Error).message);
        return;
      }
      for (const copy of copies) {
        if (copy.events.length === 0) continue;
        const hour = hourOf(copy.publishedAt);
        const id = `${copy.topic.toLowerCase()}\n${copy.topicCreatedAt}\n${hour}`;
        let group = groups.get(id);
        if (group === undefined) {
          group = {
            topic: { topic: copy.topic, createdAt: copy.topicCreatedAt },
            records: [],
            jobs: new Set(),
          };
          groups.set(id, group);
        }
        group.records.push(...recordsOf(copy));
        group.jobs.add(position);
      }
    });
    const writes = [...groups.values()].flatMap((group) => {
      const parts: { group: Group; records: ArchivedRecord[] }[] = [];
      for (let start = 0; start < group.records.length; start += MAX_SEGMENT_EVENTS) {
        parts.push({ group, records: group.records.slice(start, start + MAX_SEGMENT_EVENTS) });
      }
      return parts;
    });
    let events = 0;
    let segments = 0;
    await mapWithConcurrency(writes, PARALLEL_PUTS, async ({ group, records }) => {
      try {
        await this.deps.store.putSegment(group.topic, records);
        events += records.length;
        segments += 1;
        this.deps.metrics.count(METRIC.ArchivedEventCount, records.length, { Topic: group.topic.topic });
      } catch (error) {
        const reason = `could not write an archive segment of ${group.topic.topic}: ${(error as Error).message}`;
        this.deps.logger.error('archive segment not written; its copies come back', {
          topic: group.topic.topic,
          events: records.length,
          error: (error as Error).message,
        });
        for (const position of group.jobs) {
          if (outcomes[position]?.kind === 'done') outcomes[position] = retryLater(reason);
        }
      }
    });
    return {
      outcomes: outcomes.map((outcome) => (outcome.kind === 'done' ? done({ archived: true }) : outcome)),
      events,
      segments,
    };
  }
}
