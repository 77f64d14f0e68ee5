/**
 * The shapes of a subscription's backlog: where events wait while their endpoint is sick or their
 * next attempt is far away, instead of riding the retry queue in 15-minute hops. Events are kept
 * in segments (objects in the backlog bucket: a header line, then one line per event); the table
 * holds an index item per segment and one `META` item per backlog (its timer, lease and state).
 * Beside the shapes, what both storage and the delivery rules read of them: the due order of
 * events and how many of a segment's lines are still live.
 */
import { z } from 'zod';
import { BACKLOG_HELD_BY, deliveryItemSchema, deliveryTargetSchema } from './delivery';

/** The version of the segment format, in every header; raised when an older reader can't read it. */
export const BACKLOG_SEGMENT_VERSION = 1;

/** The first line of a segment: what it holds, so a reader knows it before the events. */
export const backlogSegmentHeaderSchema = z.object({
  v: z.literal(BACKLOG_SEGMENT_VERSION),
  /** The target as the events were stored for it (the tick reads the subscription as it is now). */
  target: deliveryTargetSchema,
  /** Epoch ms when the segment was written. */
  createdAt: z.number(),
  /** Events in the segment (its lines after the header). */
  count: z.number().int().min(1),
  /** The earliest and latest due time of its events (epoch ms). */
  minDueAt: z.number(),
  maxDueAt: z.number(),
  /** The earliest `publishedAt` of its events: when its first TTL can run out. */
  minPublishedAt: z.number(),
});
export type BacklogSegmentHeader = z.infer<typeof backlogSegmentHeaderSchema>;

/** One event of a segment: the item as it was stored, and when it is due. */
export const backlogLineSchema = z.object({
  /** Epoch ms before which the event may not be attempted. */
  dueAt: z.number(),
  heldBy: z.enum(BACKLOG_HELD_BY),
  item: deliveryItemSchema,
});
export type BacklogLine = z.infer<typeof backlogLineSchema>;

/** Stored events in the order they are handled: by due time, then publish time, then id. */
export function byDueOrder(
  a: Pick<BacklogLine, 'dueAt' | 'item'>,
  b: Pick<BacklogLine, 'dueAt' | 'item'>,
): number {
  return (
    a.dueAt - b.dueAt ||
    a.item.publishedAt - b.item.publishedAt ||
    (a.item.deliveryId < b.item.deliveryId ? -1 : a.item.deliveryId > b.item.deliveryId ? 1 : 0)
  );
}

/**
 * How far a drain got through a segment's lines: lines `[0, doneThrough)` are done, and so are
 * the lines named in `doneAfter` (each at or beyond `doneThrough`, ascending). Requests finish
 * out of order, so a prefix count alone would forget the done lines after a gap, and a list alone
 * would grow with the segment.
 */
export const backlogCheckpointSchema = z.object({
  doneThrough: z.number().int().min(0),
  doneAfter: z.array(z.number().int().min(0)),
});
export type BacklogCheckpoint = z.infer<typeof backlogCheckpointSchema>;

/** No line of a segment is done yet. */
export const NOTHING_DONE: BacklogCheckpoint = { doneThrough: 0, doneAfter: [] };

/** How many of a segment's `count` lines are not done yet. */
export const liveCount = (checkpoint: BacklogCheckpoint, count: number): number =>
  Math.max(0, count - checkpoint.doneThrough - checkpoint.doneAfter.length);

/** A segment as the index lists it: where it is and what it holds, without reading it. */
export const backlogSegmentRefSchema = backlogCheckpointSchema.extend({
  /** The topic's storage text (`topicIdOf`) and the subscription, as stored. */
  topic: z.string().min(1),
  subscription: z.string().min(1),
  /** The subscription uid the events were stored for (absent for a target without one). */
  uid: z.string().optional(),
  segmentId: z.string().min(1),
  /** The object key in the backlog bucket. */
  key: z.string().min(1),
  count: z.number().int().min(1),
  bytes: z.number().int().min(0),
  minDueAt: z.number(),
  maxDueAt: z.number(),
  minPublishedAt: z.number(),
});
export type BacklogSegmentRef = z.infer<typeof backlogSegmentRefSchema>;

/**
 * What a backlog is doing: holding (the endpoint is held), draining (sending its due events),
 * waiting (its events are not due yet) or idle (empty).
 */
export const BACKLOG_STATES = ['holding', 'draining', 'waiting', 'idle'] as const;
export type BacklogState = (typeof BACKLOG_STATES)[number];

/** A backlog's events, for the health view: how many, and the oldest one's publish time. */
export const backlogSummarySchema = z.object({
  events: z.number().int().min(0),
  /** Epoch ms; absent when the backlog is empty. */
  oldestPublishedAt: z.number().optional(),
});
export type BacklogSummary = z.infer<typeof backlogSummarySchema>;

/**
 * One backlog's timer and state. Every change is conditional on the `token` read, so of two
 * writers one wins and the other's tick is stale.
 */
export const backlogMetaSchema = z.object({
  topic: z.string().min(1),
  subscription: z.string().min(1),
  /** The subscription uid whose events the backlog holds. */
  uid: z.string().optional(),
  /** The endpoint the events were stored for: another one now starts fresh. */
  endpointUrl: z.string(),
  /** The current timer: only the tick carrying it acts. */
  token: z.string().min(1),
  /** Epoch ms of the next wake; absent when idle. */
  wakeAt: z.number().optional(),
  /** The token whose tick message has been sent (the sweeper sends each once). */
  armedToken: z.string().optional(),
  /**
   * Epoch ms a wake the sweeper found lost was first due: kept while the sweeper arms it again
   * (each time moving `wakeAt` to then), removed when a tick takes the backlog. How overdue the
   * wake is counts from here, not from the last arming (`OldestOverdueSeconds`).
   */
  overdueSince: z.number().optional(),
  /** A tick at work, and until when no other may take over (epoch ms). */
  lease: z.object({ until: z.number() }).optional(),
  /** Epoch ms until which the endpoint is held (probation), as the last tick saw it. */
  heldUntil: z.number().optional(),
  state: z.enum(BACKLOG_STATES),
  /**
   * Whether the subscription's held mark is set (`held-marks.ts`): while the backlog holds an
   * unhealthy endpoint's events, publishers send its publishes straight here.
   */
  held: z.boolean().optional(),
  summary: backlogSummarySchema,
  /** Epoch ms of the last change (an idle backlog's META is forgotten some days after it). */
  updatedAt: z.number(),
});
export type BacklogMeta = z.infer<typeof backlogMetaSchema>;
