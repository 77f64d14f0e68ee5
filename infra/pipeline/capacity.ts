/**
 * How much work each part of the pipeline is sized to take: the stage throttle from the publish
 * function's reserved executions, the delivery function's reservation from its event sources,
 * and the delivery backlog at which publishing is refused. Pure arithmetic over props and
 * `QUEUES`, so the construct and its tests derive the same numbers.
 */
import { QUEUES, type QueueKey } from '../../shared/config/resources';

/** A stage throttle: steady requests per second, and requests accepted at once. */
export interface StageThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * The most each publish route accepts whatever the reservation: half the account's regional API
 * Gateway quota (10,000 requests/s, burst 5,000, shared by every API of the account in the
 * region), so a flood on one publish route leaves the other half to the account's other APIs.
 * API Gateway applies the stage's throttle to each route on its own: floods on several publish
 * routes at once can use more (docs/deploy.md, "Operators' routes have throttles of their own").
 */
export const THROTTLE_CEILING: StageThrottle = { rateLimit: 5_000, burstLimit: 2_500 };

/**
 * The mean duration of a publish request assumed when sizing the stage throttle. The benchmark
 * measures 6.7 ms (one subscription) to 7.5 ms (ten, filtered) per request of 100 events
 * (docs/BENCHMARKS.md, "publish function mean duration per request"), but against emulators
 * on loopback: on AWS each request also waits for an SQS `SendMessage` across the network (and
 * a table read when its topic is not cached), which the benchmark can't measure. 20 ms is the
 * benchmark's figure with that round trip allowed for, rounded up: assuming less would let the
 * stage pass more requests than the reserved executions serve, and Lambda's refusals of those
 * reach publishers as 500s. Measure the function's `Duration` on your stack and set `throttle`
 * if it differs.
 */
export const ASSUMED_PUBLISH_DURATION_MS = 20;

/**
 * The stage throttle that keeps the publish function's reserved executions busy without
 * refusing: `reservedConcurrency × 1000 / ASSUMED_PUBLISH_DURATION_MS` requests per second (each
 * execution serves 1000 / duration requests a second), and a burst of `reservedConcurrency`
 * (requests arriving at once each need an execution of their own). Above either, a request the
 * stage let through would find every reserved execution busy, and the HTTP API answers Lambda's
 * throttle with a 500; the stage's own refusal is a 429 the publisher can act on. Both never
 * above {@link THROTTLE_CEILING}; without a reservation (`false`), the ceiling.
 */
export function stageThrottleFor(reservedConcurrency: number | false): StageThrottle {
  if (reservedConcurrency === false) return THROTTLE_CEILING;
  return {
    rateLimit: Math.min(
      THROTTLE_CEILING.rateLimit,
      Math.floor((reservedConcurrency * 1000) / ASSUMED_PUBLISH_DURATION_MS),
    ),
    burstLimit: Math.min(THROTTLE_CEILING.burstLimit, reservedConcurrency),
  };
}

/**
 * What each admin route (`/admin/...`) accepts, on its own, whatever the stage throttle: a
 * route-level throttle (the stage's `RouteSettings`), so sizing the stage for the publish
 * function (`throttle`, `reservedConcurrency`) never sizes the operators' routes too (with
 * `reservedConcurrency: 1` the stage's burst is 1, which would refuse any admin client that keeps
 * two requests in flight). The heaviest admin client, `gridwire health`, keeps 8 reads in flight
 * on one route: at the 40 ms or more an IAM-authorized admin call takes, at most 200 a second,
 * and 100 at once absorbs its start. The management function runs unreserved; 200 requests a
 * second of 50 ms each are about 10 of the account's executions per route.
 */
export const ADMIN_ROUTE_THROTTLE: StageThrottle = { rateLimit: 200, burstLimit: 100 };

/**
 * What the validation URL (`GET /eventSubscriptions/validate`) accepts: the one management
 * route without a caller identity (its code is in the query), opened once per new subscription by
 * its endpoint's owner or their code. 50 at once covers a deployment creating dozens of
 * subscriptions together; 20 a second caps what anonymous callers can make the management
 * function do through it.
 */
export const VALIDATION_ROUTE_THROTTLE: StageThrottle = { rateLimit: 20, burstLimit: 50 };

/**
 * What the console's and portal's API (`ANY /console/api/{proxy+}`, one route for all their
 * calls) accepts: the admin routes' size, since it serves the same operations to the page's
 * users, who share this one route. The gateway lets every request through to the management
 * function, which refuses one without a valid session token at once (a signature check with its
 * cached key, no table read); so this also caps what callers without a token can make the
 * function do.
 */
export const SESSION_ROUTE_THROTTLE: StageThrottle = ADMIN_ROUTE_THROTTLE;

/**
 * What each route of the console's and portal's page and files (`GET /console`,
 * `GET /console/{file+}`, `GET /portal`) accepts: anyone may ask for them. Opening the page asks
 * the files route for its nine modules and style sheet together, so 100 at once lets ten people
 * open it at the same moment; 50 a second caps what anonymous callers can make the management
 * function do through each.
 */
export const PUBLIC_FILE_ROUTE_THROTTLE: StageThrottle = { rateLimit: 50, burstLimit: 100 };

/**
 * Executions Lambda keeps unreserved in every account and region: it refuses a reservation
 * (`ReservedConcurrentExecutions`) that would leave fewer, so reservations of R executions need an
 * account concurrency limit of at least R + 100.
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/**
 * The concurrency limit a new AWS account starts with (raised by a Service Quotas request, or by
 * AWS as the account is used): too small for any reservation, which is why the pipeline reserves
 * nothing unless told to.
 */
export const NEW_ACCOUNT_CONCURRENCY_LIMIT = 10;

/**
 * The account concurrency limit the given reservations need (`false`: none), or `undefined` when
 * they reserve nothing, and so fit any account.
 */
export function accountLimitNeededFor(reservations: readonly (number | false)[]): number | undefined {
  const reserved = reservations.reduce<number>((sum, value) => sum + (value === false ? 0 : value), 0);
  return reserved === 0 ? undefined : reserved + LAMBDA_UNRESERVED_MINIMUM;
}

/** Per queue, the most concurrent invocations of its consumer, where a prop changes `QUEUES`'. */
export type MaxInvocations = Partial<Record<QueueKey, number>>;

/** The queues the delivery function consumes. */
const DELIVERY_QUEUES = (Object.keys(QUEUES) as QueueKey[]).filter(
  (key) => QUEUES[key].consumer.function === 'delivery',
);

/** The most invocations of the delivery function its SQS event sources start at once, together. */
export function deliveryEventSourceConcurrency(maxInvocations: MaxInvocations): number {
  return DELIVERY_QUEUES.reduce(
    (sum, key) => sum + (maxInvocations[key] ?? QUEUES[key].consumer.maxConcurrency),
    0,
  );
}

/** Executions the delivery function needs beyond its event sources: the backlog sweep's (once a minute). */
export const DELIVERY_SWEEP_EXECUTIONS = 1;

/**
 * The smallest reservation the delivery function may be given (`deliveryReservedConcurrency`):
 * what its event sources may run at once plus the backlog sweep's, so Lambda never throttles a
 * batch its own mapping started (a throttled batch goes back to the queue, and five receives
 * park it), and a surge of deliveries can't take the account's other functions' concurrency.
 */
export const minimumDeliveryReservedConcurrency = (maxInvocations: MaxInvocations): number =>
  deliveryEventSourceConcurrency(maxInvocations) + DELIVERY_SWEEP_EXECUTIONS;

/**
 * Rounds of the delivery workers' intake the delivery queue may hold waiting before publishing
 * is refused: each round is every fresh-delivery invocation taking a full batch.
 */
export const DELIVERY_BACKLOG_ROUNDS = 20;

/**
 * The default `deliveryBacklogLimit`: {@link DELIVERY_BACKLOG_ROUNDS} rounds of what the
 * delivery queue's consumers take in at once (invocations × batch size: 50 × 10 = 500 jobs by
 * default, so 10,000 jobs). Jobs waiting at all means every consumer is busy; twenty rounds of
 * them waiting means the workers would need twenty batches each to catch up (seconds with
 * webhooks answering in a few hundred milliseconds, minutes with slow ones) while publishing
 * keeps adding, so refusing there bounds the delay of fresh deliveries without refusing the
 * short bursts a queue is there to absorb. It follows `maxDeliveryInvocations.delivery` and the
 * delivery queue's batch size (`deliveryBatchingWindow.batchSize`, given as `deliveryBatchSize`).
 */
export const defaultDeliveryBacklogLimit = (
  maxInvocations: MaxInvocations,
  deliveryBatchSize: number = QUEUES.delivery.consumer.batchSize,
): number =>
  DELIVERY_BACKLOG_ROUNDS *
  (maxInvocations.delivery ?? QUEUES.delivery.consumer.maxConcurrency) *
  deliveryBatchSize;
