/**
 * The store step: `store` jobs from the backlog queue become segments of their subscriptions'
 * backlogs, and each backlog's timer is armed early enough for its new events.
 *
 * One invocation takes many messages, possibly for many subscriptions. Their events are grouped
 * per endpoint (topic, subscription, uid), sorted in due order and cut into segments (at most
 * {@link BACKLOG_SEGMENT_CAPS} each). A segment's id comes from the sorted ids of the messages its
 * events came from, so a step run again on the same messages writes the same keys, and the index
 * item, created only where none is, is not written twice.
 *
 * Per backlog, in this order, so a crash between any two writes loses no event (the messages of an
 * unfinished backlog are not acknowledged, and come back):
 * 1. each segment: its object, then its index item (`BacklogStore.putSegment`);
 * 2. META, read strongly consistently: if the backlog has no wake, or one later than its new
 *    events' earliest due time (or than the end of the endpoint's hold, whichever is later),
 *    its timer is set (`timer.ts`): META written with the new wake and a new token, only
 *    if its token is still the one read (otherwise the step reads it again and decides again),
 *    then, for a wake 15 min away or less, a `backlog-tick` sent to the retry queue with its exact
 *    delay; a later one is left to the sweeper.
 * 3. the messages are reported finished.
 *
 * A backlog whose tick is at work (a live lease) is not re-armed here: that tick writes META and
 * then reads the index once more before it ends, and this step wrote the index before it read
 * META, so one of the two always sees the other's write.
 */
import { randomUUID } from 'node:crypto';
import type { BacklogLine, BacklogMeta, BacklogState } from '../../domain/backlog';
import {
  type DeliveryItem,
  type DeliveryTarget,
  JOB_FORMAT_VERSION,
  type StoreJob,
  storeJobSchema,
} from '../../domain/delivery';
import { topicIdOf } from '../../domain/names';
import type { LoggerLike } from '../../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../../observability/metrics';
import type { Clock } from '../../platform/clock';
import { mapWithConcurrency } from '../../platform/concurrency';
import { malformedMessage } from '../../platform/zod-issues';
import { done, poison, type RecordOutcome, retryLater } from '../../queue/record-outcome';
import type { JobQueue } from '../../queue/sqs-job-queue';
import type { BacklogStore } from '../../storage/backlog';
import { hasWake, segmentLineBytes } from '../../storage/backlog';
import { byDueOrder, currentHoldOf, RELEASE_AHEAD_MS, segmentIdOf, wakeAtOf } from '../rules/backlog';
import { sqsDelaySeconds } from '../rules/retry';
import { setTimer } from './timer';

/** How large one segment may grow: events, and bytes of its object. */
export interface SegmentCaps {
  readonly maxEvents: number;
  readonly maxBytes: number;
}

/**
 * 5,000 events or 8 MiB: a drain reads a few segments at a time within its memory, and a
 * backlog of a long outage is still only a few hundred objects.
 */
export const BACKLOG_SEGMENT_CAPS: SegmentCaps = { maxEvents: 5_000, maxBytes: 8 * 1_048_576 };

/** Room left in a segment for its header line (a target's names and a few numbers). */
const HEADER_RESERVE_BYTES = 4_096;

/** Times the step reads META again after another writer changed it first. */
const META_WRITE_ATTEMPTS = 5;

/** Backlogs stored side by side in one invocation (each one's writes stay in order). */
const BACKLOGS_IN_PARALLEL = 8;

/** A `store` job and the id of the message it came in. */
export interface SourcedStoreJob {
  readonly sourceId: string;
  readonly job: StoreJob;
}

/** The events of one endpoint: one topic, subscription and uid. */
interface EndpointGroup {
  /** The target of its latest subscription version (the header of its segments). */
  target: DeliveryTarget;
  lines: BacklogLine[];
  sourceIds: Set<string>;
}

/** The endpoints of one backlog (a subscription by name: its uids share one META). */
interface BacklogGroup {
  readonly topic: string;
  readonly subscription: string;
  readonly endpoints: Map<string, EndpointGroup>;
}

/**
 * Cuts events in due order into runs that each fit `caps`; a run never splits an event.
 * `bytesOf` is an event's size in the segment's object.
 */
export function cutIntoSegments<T>(
  sorted: readonly T[],
  caps: SegmentCaps,
  bytesOf: (entry: T) => number,
): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = HEADER_RESERVE_BYTES;
  for (const entry of sorted) {
    const size = bytesOf(entry);
    if (run.length > 0 && (run.length >= caps.maxEvents || bytes + size > caps.maxBytes)) {
      runs.push(run);
      run = [];
      bytes = HEADER_RESERVE_BYTES;
    }
    run.push(entry);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * The id of part `index` of `parts` segments cut from the events of `sourceIds`: `segmentIdOf`
 * of the ids alone when the events make one segment, else of the ids and the part, so the same
 * messages cut the same way give the same ids.
 */
export function partSegmentId(sourceIds: readonly string[], index: number, parts: number): string {
  return parts === 1 ? segmentIdOf(sourceIds) : segmentIdOf([...sourceIds, `#part ${index + 1} of ${parts}`]);
}

/**
 * Names for events stored without the messages they came in (a store job worked on its own, a
 * drain's events stored back): each event's delivery id and attempt count, so the same events
 * stored again make the same segment.
 */
export const contentSourceIds = (items: readonly DeliveryItem[]): string[] =>
  items.map((item) => `${item.deliveryId}#${item.attempts}`).sort();

/** What the store step needs of a subscription: its endpoint URL, for a backlog it starts. */
export interface EndpointLookup {
  /** The endpoint URL the subscription delivers to now; `undefined` when it is gone. */
  endpointUrlOf(target: DeliveryTarget): Promise<string | undefined>;
}

export interface BacklogStoreStepDeps {
  readonly backlog: BacklogStore;
  readonly queue: JobQueue;
  readonly endpoints: EndpointLookup;
  readonly clock: Clock;
  readonly logger: LoggerLike;
  readonly metrics: MetricBuffer;
  /** New timer tokens (default: random UUIDs). */
  readonly newToken?: () => string;
  /** Segment caps (default {@link BACKLOG_SEGMENT_CAPS}). */
  readonly caps?: SegmentCaps;
}

/** What became of one invocation's store jobs. */
export interface StoreResult {
  /** The messages whose events are all in live segments, their backlogs armed: acknowledge these. */
  readonly finished: ReadonlySet<string>;
  /** The messages of backlogs that failed, with why: they come back and are stored again. */
  readonly unfinished: ReadonlyMap<string, string>;
}

const endpointKey = (target: DeliveryTarget): string =>
  `${topicIdOf(target.topic).toLowerCase()}\n${target.subscription.toLowerCase()}\n${target.uid ?? '-'}`;

const backlogKey = (target: DeliveryTarget): string =>
  `${topicIdOf(target.topic).toLowerCase()}\n${target.subscription.toLowerCase()}`;

export class BacklogStoreStep {
  private readonly newToken: () => string;
  private readonly caps: SegmentCaps;

  constructor(private readonly deps: BacklogStoreStepDeps) {
    this.newToken = deps.newToken ?? randomUUID;
    this.caps = deps.caps ?? BACKLOG_SEGMENT_CAPS;
  }

  /**
   * Reads one invocation's messages of the backlog queue and stores them: an outcome per record,
   * in record order (`done` once its events are stored and their backlog armed; `retryLater`
   * when a write failed; `poison` for a body that is not a `store` job).
   */
  async handle(
    records: readonly { readonly messageId: string; readonly body: string }[],
  ): Promise<RecordOutcome[]> {
    const refused = new Map<string, string>();
    const jobs: SourcedStoreJob[] = [];
    for (const record of records) {
      const parsed = parseStoreJob(record.body);
      if (typeof parsed === 'string') refused.set(record.messageId, parsed);
      else jobs.push({ sourceId: record.messageId, job: parsed });
    }
    const result = await this.store(jobs);
    return records.map(({ messageId }) => {
      const reason = refused.get(messageId);
      if (reason !== undefined) return poison(reason);
      if (result.finished.has(messageId)) return done();
      return retryLater(result.unfinished.get(messageId) ?? 'its events were not stored');
    });
  }

  /** Stores the events of `jobs`, per backlog; a backlog that fails leaves its messages unfinished. */
  async store(jobs: readonly SourcedStoreJob[]): Promise<StoreResult> {
    const backlogs = this.groupByBacklog(jobs);
    const finished = new Set<string>();
    const unfinished = new Map<string, string>();
    await mapWithConcurrency([...backlogs.values()], BACKLOGS_IN_PARALLEL, async (group) => {
      const sourceIds = [...group.endpoints.values()].flatMap((endpoint) => [...endpoint.sourceIds]);
      try {
        await this.storeBacklog(group);
        for (const id of sourceIds) finished.add(id);
      } catch (error) {
        const reason = `storing events of ${group.topic}/${group.subscription} failed: ${(error as Error).message}`;
        this.deps.logger.warn('backlog store failed', {
          topic: group.topic,
          subscription: group.subscription,
          messages: sourceIds.length,
          error: (error as Error).message,
        });
        for (const id of sourceIds) unfinished.set(id, reason);
      }
    });
    // A message whose events went to several backlogs (never, as jobs are made) is finished only
    // when all of them are.
    for (const id of unfinished.keys()) finished.delete(id);
    return { finished, unfinished };
  }

  private groupByBacklog(jobs: readonly SourcedStoreJob[]): Map<string, BacklogGroup> {
    const backlogs = new Map<string, BacklogGroup>();
    for (const { sourceId, job } of jobs) {
      const key = backlogKey(job.target);
      let backlog = backlogs.get(key);
      if (backlog === undefined) {
        backlog = {
          topic: topicIdOf(job.target.topic),
          subscription: job.target.subscription,
          endpoints: new Map(),
        };
        backlogs.set(key, backlog);
      }
      const endpoint = endpointKey(job.target);
      let group = backlog.endpoints.get(endpoint);
      if (group === undefined) {
        group = { target: job.target, lines: [], sourceIds: new Set() };
        backlog.endpoints.set(endpoint, group);
      }
      if (job.target.version > group.target.version) group.target = job.target;
      group.sourceIds.add(sourceId);
      for (const item of job.items) {
        group.lines.push({ dueAt: job.dueAt, heldBy: job.heldBy, item });
      }
    }
    return backlogs;
  }

  /** Writes a backlog's segments (one endpoint after another), then arms its timer. */
  private async storeBacklog(backlog: BacklogGroup): Promise<void> {
    const now = this.deps.clock.now();
    let earliest: { dueAt: number; target: DeliveryTarget } | undefined;
    let probation = false;
    for (const group of backlog.endpoints.values()) {
      const runs = cutIntoSegments([...group.lines].sort(byDueOrder), this.caps, segmentLineBytes);
      const sourceIds = [...group.sourceIds].sort();
      for (const [index, run] of runs.entries()) {
        const ref = await this.deps.backlog.putSegment({
          target: group.target,
          segmentId: partSegmentId(sourceIds, index, runs.length),
          lines: run,
          createdAt: now,
        });
        if (earliest === undefined || ref.minDueAt < earliest.dueAt)
          earliest = { dueAt: ref.minDueAt, target: group.target };
      }
      probation ||= group.lines.some((line) => line.heldBy === 'probation');
      this.deps.metrics.count(
        METRIC.DeliveryStoredCount,
        group.lines.length,
        subscriptionDimensions(backlog.topic, group.target.subscription),
      );
    }
    if (earliest === undefined) return;
    const armed = await this.arm(backlog, earliest, probation ? 'holding' : 'waiting');
    this.deps.logger.info('events stored', {
      topic: backlog.topic,
      subscription: backlog.subscription,
      events: [...backlog.endpoints.values()].reduce((sum, group) => sum + group.lines.length, 0),
      earliestDueAt: new Date(earliest.dueAt).toISOString(),
      ...armed,
    });
  }

  /**
   * Makes sure the backlog wakes by its new events' earliest due time (not before the endpoint's
   * hold ends, while the backlog holds it): a new wake and token in META, and the tick sent when
   * it is near.
   */
  private async arm(
    backlog: BacklogGroup,
    earliest: { dueAt: number; target: DeliveryTarget },
    newState: BacklogState,
  ): Promise<{ armed: 'kept' | 'leased' | 'sent' | 'sweeper'; wakeAt?: string }> {
    const { backlog: store, queue, clock } = this.deps;
    for (let attempt = 1; attempt <= META_WRITE_ATTEMPTS; attempt += 1) {
      const now = clock.now();
      const meta = await store.getMeta(backlog.topic, backlog.subscription);
      if (meta?.lease !== undefined && meta.lease.until > now) return { armed: 'leased' };
      const wakeAt = wakeAtOf({
        heldUntil: currentHoldOf(meta),
        segmentDueAts: [earliest.dueAt],
        endpointAgreed: true,
        now,
        profile: { timeScale: 1 },
      });
      if (wakeAt === undefined) return { armed: 'kept' };
      if (meta !== undefined && hasWake(meta) && meta.wakeAt <= wakeAt) {
        // Its wake is early enough. Set but never sent (a step that stopped between META and the
        // tick): sent now, rather than at the sweeper's next pass.
        const unsent = meta.armedToken !== meta.token && meta.wakeAt - now <= RELEASE_AHEAD_MS;
        if (!unsent) return { armed: 'kept' };
        const tick = {
          target: earliest.target,
          delaySeconds: sqsDelaySeconds(meta.wakeAt, now, 'whole-seconds'),
        };
        if (await setTimer({ store, queue }, { ...meta, updatedAt: now }, meta.token, tick)) {
          return { armed: 'sent', wakeAt: new Date(meta.wakeAt).toISOString() };
        }
        continue;
      }

      const token = this.newToken();
      const near = wakeAt - now <= RELEASE_AHEAD_MS;
      const next = await this.nextMeta(backlog, meta, earliest.target, {
        token,
        wakeAt,
        near,
        newState,
        now,
      });
      const tick = near
        ? { target: earliest.target, delaySeconds: sqsDelaySeconds(wakeAt, now, 'whole-seconds') }
        : undefined;
      if (await setTimer({ store, queue }, next, meta?.token, tick)) {
        return { armed: near ? 'sent' : 'sweeper', wakeAt: new Date(wakeAt).toISOString() };
      }
    }
    throw new Error(`the backlog's META kept changing (${META_WRITE_ATTEMPTS} attempts)`);
  }

  /**
   * META with the new wake and token. A backlog that starts (no META, or an idle one) records the
   * endpoint its events are stored for and the hold last seen; a running one keeps its state.
   */
  private async nextMeta(
    backlog: BacklogGroup,
    meta: BacklogMeta | undefined,
    target: DeliveryTarget,
    wake: { token: string; wakeAt: number; near: boolean; newState: BacklogState; now: number },
  ): Promise<BacklogMeta> {
    const { token, wakeAt, near, newState, now } = wake;
    const summary = await this.deps.backlog.summary(backlog.topic, backlog.subscription);
    const timer = { token, wakeAt, ...(near ? { armedToken: token } : {}), summary, updatedAt: now };
    if (meta !== undefined && meta.state !== 'idle') {
      const { armedToken: _previous, ...running } = meta;
      return { ...running, ...timer };
    }
    const endpointUrl = (await this.deps.endpoints.endpointUrlOf(target)) ?? meta?.endpointUrl ?? '';
    return {
      topic: backlog.topic,
      subscription: target.subscription,
      ...(target.uid === undefined ? {} : { uid: target.uid }),
      endpointUrl,
      ...(meta?.heldUntil === undefined ? {} : { heldUntil: meta.heldUntil }),
      state: newState,
      ...timer,
    };
  }
}

/** A backlog queue message's `store` job, or why it is not one. */
export function parseStoreJob(body: string): StoreJob | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return `store job message is not JSON: ${(error as Error).message}`;
  }
  const version = (json as { v?: unknown } | null)?.v;
  if (version !== JOB_FORMAT_VERSION) {
    // Store jobs came with format 2: no earlier format has them to upgrade.
    return `store job message of format version ${JSON.stringify(version)}; this release reads store jobs of version ${JOB_FORMAT_VERSION}`;
  }
  const parsed = storeJobSchema.safeParse(json);
  return parsed.success ? parsed.data : malformedMessage('store job message', parsed.error);
}
