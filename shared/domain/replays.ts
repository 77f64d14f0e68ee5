/**
 * A replay: a subscription sent again the events its topic's archive holds from a time range
 * (`POST .../eventSubscriptions/{name}/replays`), page by page, as new deliveries.
 */
import { z } from 'zod';

export const REPLAY_STATES = ['Running', 'Completed', 'Cancelled', 'Failed'] as const;
export type ReplayState = (typeof REPLAY_STATES)[number];

/** How many replays of one subscription may run at once. */
export const MAX_RUNNING_REPLAYS = 3;

/** The most event types a replay may select. */
export const MAX_REPLAY_EVENT_TYPES = 25;

export const replaySchema = z.object({
  id: z.string().min(1),
  /** The topic's id (`<topic>` or `<namespace>/<topic>`) and when it was made (its archive's). */
  topic: z.string().min(1),
  topicCreatedAt: z.string().min(1),
  subscription: z.string().min(1),
  /** The subscription's uid when the replay began: a subscription made again gets none of it. */
  subscriptionUid: z.string().optional(),
  /** Epoch ms: events published in [since, until). */
  since: z.number(),
  until: z.number(),
  /** Only events of these types (besides the subscription's own filter); absent: all. */
  eventTypes: z.array(z.string()).optional(),
  state: z.enum(REPLAY_STATES),
  /** Why it failed or who cancelled it. */
  reason: z.string().optional(),
  /** Events of the range the archive held (before filters), queued (after them), delivered. */
  found: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  delivered: z.number().int().nonnegative(),
  /** The key of the last segment worked through; absent before the first. */
  cursor: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Replay = z.infer<typeof replaySchema>;

/** Whether a replay is over (its pages stop). */
export const replayEnded = (replay: Pick<Replay, 'state'>): boolean => replay.state !== 'Running';

/** A replayed event's delivery id: its replay's id, then the event's publish id and position. */
export const replayDeliveryId = (replayId: string, publishId: string, index: number): string =>
  `${replayId}.${publishId}.${index}`;

/** The replay a replayed event's delivery id names (replay ids hold no dot). */
export const replayIdOfDelivery = (deliveryId: string): string =>
  deliveryId.slice(0, deliveryId.indexOf('.'));
