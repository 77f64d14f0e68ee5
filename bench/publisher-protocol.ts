/**
 * What the benchmark's process and its load generator process (`publisher-process.ts`) say to
 * each other: the plans sent there and the outcomes sent back. Only types, so both sides import
 * them without importing each other.
 */
import type { InputSchema } from '../shared/domain/model';

export interface PublishPlan {
  apiUrl: string;
  topic: string;
  key: string;
  eventsPerRequest: number;
  requestsPerSecond: number;
  durationMs: number;
  /** Event ids are `${prefix}-${n}`. */
  prefix: string;
  /**
   * The topic's input schema (default Event Grid): CloudEvents go as
   * `application/cloudevents-batch+json`; custom events as plain objects that
   * `BENCH_CUSTOM_MAPPING` (`load.ts`) maps.
   */
  schema?: InputSchema;
  /**
   * More members of each event's data (for custom events, of the event): event n gets
   * `data[n % data.length]` beside the send time `t`. Default: `t` alone.
   */
  data?: ReadonlyArray<Record<string, unknown>>;
}

export interface PublishOutcome {
  requests: number;
  accepted: number;
  failedRequests: number;
  /** Wall time from the first request to the last answer. */
  elapsedMs: number;
  publishLatencies: number[];
  /** Answers by HTTP status (`error` for no answer). */
  answers: Record<string, number>;
  /** Refusals (429 or 503) that carried `Retry-After`, so a publisher knows when to come back. */
  refusalsWithRetryAfter: number;
  /**
   * With `data`: how many accepted events carried each entry of it (event n carries
   * `data[n % data.length]`), so what the accepted events should cause is known exactly even
   * when some requests were refused.
   */
  acceptedByData?: number[];
}

/** A closed loop of requests to `url` through the load generator's own connection pool. */
export interface LoopbackPlan {
  url: string;
  /** Requests sent first and not counted (JIT compilation, connection set-up). */
  warmUpMs: number;
  /** The window whose answers are counted, right after the warm-up. */
  measuredMs: number;
}

export interface LoopbackOutcome {
  /** Answers with status 200 that arrived within the measured window. */
  answered: number;
  /** Other answers, and requests without an answer, within the window. */
  failed: number;
  measuredMs: number;
  /** Requests kept in flight at once (one per connection of the pool). */
  inFlight: number;
}

export type PublisherRequest =
  | { type: 'run'; plan: PublishPlan }
  | { type: 'loopback'; plan: LoopbackPlan }
  | { type: 'stop' };
/** The outcome each answer carries, by the answer's type. */
export interface PublisherOutcomes {
  done: PublishOutcome;
  'loopback-done': LoopbackOutcome;
}
export type PublisherMessage =
  | { type: 'ready' }
  | { [T in keyof PublisherOutcomes]: { type: T; outcome: PublisherOutcomes[T] } }[keyof PublisherOutcomes];
