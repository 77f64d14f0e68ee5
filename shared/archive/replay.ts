/**
 * A replay's pages (`replay-page` jobs, on the delivery queue): each takes the subscription's next
 * archive segment after the replay's cursor (with the segments written beside it whose events
 * overlap its own, merged into publish order), keeps the events of the replay's range that pass its
 * event types and the subscription's filter (each once), queues them as fresh deliveries (attempt
 * count 0, time to live from now, marked `replayOf: archive`), moves the cursor past the segment
 * and sends the next page; the last page ends the replay `Completed`.
 *
 * Nothing is queued twice by the replay itself: a page moves the cursor only from where it
 * started (a conditional write), so of two copies of a page one goes on and the other stops; and
 * each message a page queues carries its part's name (`replayChunk`), so a part queued again
 * (a page worked twice because it died between queueing and moving the cursor) is dropped when
 * received (`storage/replay-sends.ts`). Delivered, each event is then the subscription's like any
 * other: its rate limit, batching and retry policy.
 */
import { createHash } from 'node:crypto';
import type { DeliveryItem, DeliveryTarget, ReplayPageJob, TopicRef } from '../domain/delivery';
import { JOB_FORMAT_VERSION } from '../domain/delivery';
import { topicIdOf } from '../domain/names';
import { type Replay, replayDeliveryId } from '../domain/replays';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import { orderedGroupId, packJobs, packOrderedJobs, targetGroupId } from '../queue/job-codec';
import type { JobQueue, OutgoingJob } from '../queue/sqs-job-queue';
import { type ArchivedRecord, type ArchiveStore, byPublishOrder } from '../storage/archive';
import type { ReplayStore } from '../storage/replays';

/**
 * Segments one page reads at most: the next segment and those written at the same time whose
 * events overlap it (two writers at work), so an ordered subscription gets them in publish order.
 */
export const MAX_PAGE_SEGMENTS = 8;

/** What a replay needs of its subscription, as it is now. */
export interface ReplayTarget {
  readonly target: DeliveryTarget;
  /** Whether the subscription's filter lets the event (as sent) through. */
  matches(eventJson: string): boolean;
  /** For an ordered subscription: the event's key. */
  readonly orderedKeyOf?: (item: DeliveryItem) => string;
}

export interface ReplayPagesDeps {
  replays: Pick<ReplayStore, 'get' | 'advance' | 'end'>;
  archive: Pick<ArchiveStore, 'nextSegments' | 'readSegment'>;
  /** The subscription as it is now; `undefined` when it is gone. */
  subscription(topic: string, name: string): Promise<ReplayTarget | undefined>;
  queue: JobQueue;
  clock: Pick<Clock, 'now'>;
  logger: LoggerLike;
}

/** What one page did. */
export interface ReplayPageReport {
  readonly found: number;
  readonly queued: number;
  /** How the replay stands after the page: still running (its next page sent), or over. */
  readonly state: Replay['state'] | 'stale';
}

/** The first page's job (the management API sends it when a replay is made). */
export const replayPageBody = (topic: TopicRef, subscription: string, replayId: string): string =>
  JSON.stringify({ v: JOB_FORMAT_VERSION, kind: 'replay-page', topic, subscription, replayId });

/** A page's name in its parts' names: its segment's key, hashed (keys are long). */
const pageName = (segmentKey: string): string =>
  createHash('sha256').update(segmentKey, 'utf8').digest('base64url').slice(0, 22);

/** Puts a part's name into a packed delivery job's body (a member added at its start). */
const withChunk = (body: string, chunk: string): string =>
  `{"replayChunk":${JSON.stringify(chunk)},${body.slice(1)}`;

export class ReplayPages {
  constructor(private readonly deps: ReplayPagesDeps) {}

  async runPage(job: ReplayPageJob): Promise<ReplayPageReport> {
    const topicId = topicIdOf(job.topic);
    const replay = await this.deps.replays.get(topicId, job.subscription, job.replayId);
    if (replay === undefined || replay.state !== 'Running') {
      return { found: 0, queued: 0, state: replay?.state ?? 'stale' };
    }
    const now = () => new Date(this.deps.clock.now());
    const subscription = await this.deps.subscription(topicId, job.subscription);
    if (subscription === undefined || subscription.target.uid !== replay.subscriptionUid) {
      await this.deps.replays.end(replay, 'Failed', now(), 'the subscription was deleted');
      return { found: 0, queued: 0, state: 'Failed' };
    }
    const archived = { topic: replay.topic, createdAt: replay.topicCreatedAt };
    const segments = await this.deps.archive.nextSegments(
      archived,
      replay.cursor,
      replay.since,
      replay.until,
      MAX_PAGE_SEGMENTS,
    );
    const first = segments[0];
    const last = segments.at(-1);
    if (first === undefined || last === undefined) {
      await this.deps.replays.end(replay, 'Completed', now());
      return { found: 0, queued: 0, state: 'Completed' };
    }
    // Segments written at the same time overlap: their events merged into publish order.
    const read = await Promise.all(segments.map(({ key }) => this.deps.archive.readSegment(key)));
    const records = (segments.length === 1 ? (read[0] ?? []) : read.flat().sort(byPublishOrder)).filter(
      ({ publishedAt }) => publishedAt >= replay.since && publishedAt < replay.until,
    );
    const items = this.itemsOf(replay, subscription, records);
    const jobs = this.jobsOf(replay, subscription, first.key, items);
    await this.deps.queue.send(subscription.orderedKeyOf === undefined ? 'delivery' : 'ordered', jobs);
    const moved = await this.deps.replays.advance(
      replay,
      replay.cursor,
      { cursor: last.key, found: records.length, queued: items.length },
      now(),
    );
    // Another copy of this page went on: this one stops here. (A replay cancelled meanwhile is
    // moved all the same, its events having gone out; its next page stops.)
    if (!moved) return { found: records.length, queued: items.length, state: 'stale' };
    await this.deps.queue.send('delivery', [
      {
        body: replayPageBody(job.topic, job.subscription, job.replayId),
        delaySeconds: 0,
        groupId: targetGroupId(subscription.target),
      },
    ]);
    return { found: records.length, queued: items.length, state: 'Running' };
  }

  /** The records a replay sends: each once, of its event types, through the subscription's filter. */
  private itemsOf(
    replay: Replay,
    subscription: ReplayTarget,
    records: readonly ArchivedRecord[],
  ): DeliveryItem[] {
    const seen = new Set<string>();
    const types =
      replay.eventTypes === undefined
        ? undefined
        : new Set(replay.eventTypes.map((type) => type.toLowerCase()));
    const at = this.deps.clock.now();
    const items: DeliveryItem[] = [];
    for (const record of records) {
      const name = `${record.publishId}.${record.index}`;
      // A copy forwarded twice is in the archive twice: sent once.
      if (seen.has(name)) continue;
      seen.add(name);
      if (types !== undefined && !types.has(eventTypeOf(record.event).toLowerCase())) continue;
      if (!subscription.matches(record.event)) continue;
      items.push({
        deliveryId: replayDeliveryId(replay.id, record.publishId, record.index),
        eventId: record.eventId,
        dataVersion: record.dataVersion,
        eventJson: record.event,
        attempts: 0,
        // Its time to live counts from the replay, not from its publish days ago.
        publishedAt: at,
        replayOf: 'archive',
        ...(record.traceparent === undefined ? {} : { traceparent: record.traceparent }),
      });
    }
    return items;
  }

  /** A page's messages: delivery jobs (or an ordered subscription's, per key), each part named. */
  private jobsOf(
    replay: Replay,
    subscription: ReplayTarget,
    segmentKey: string,
    items: readonly DeliveryItem[],
  ): OutgoingJob[] {
    if (items.length === 0) return [];
    const page = `${replay.id}:${pageName(segmentKey)}`;
    const { target, orderedKeyOf } = subscription;
    if (orderedKeyOf === undefined) {
      return packJobs({ target }, items).map((body, part) => ({
        body: withChunk(body, `${page}:${part}`),
        delaySeconds: 0,
        groupId: targetGroupId(target),
      }));
    }
    // Ordered: each key's events in its group, in the archive's order; SQS takes a part sent
    // again within five minutes once (its de-duplication id).
    const byKey = new Map<string, DeliveryItem[]>();
    for (const item of items) {
      const key = orderedKeyOf(item);
      const keyed = byKey.get(key);
      if (keyed === undefined) byKey.set(key, [item]);
      else keyed.push(item);
    }
    return [...byKey].flatMap(([key, keyed]) =>
      packOrderedJobs({ target, key }, keyed).map((body, part) => ({
        body,
        delaySeconds: 0,
        groupId: orderedGroupId(target, key),
        deduplicationId: createHash('sha256').update(`${page}\n${key}\n${part}`, 'utf8').digest('base64url'),
      })),
    );
  }
}

/** An archived event's type: Event Grid `eventType`, CloudEvents `type`. */
function eventTypeOf(eventJson: string): string {
  const event = JSON.parse(eventJson) as { eventType?: unknown; type?: unknown };
  const type = event.eventType ?? event.type;
  return typeof type === 'string' ? type : '';
}
