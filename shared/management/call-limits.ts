/**
 * Per-subscription limits on the management calls that queue deliveries: `POST .../resend` (one
 * logged event sent again) and `POST .../deadLetters/replay` (dead letters queued again). Without
 * them one caller (a script in a loop, a stuck retry) could queue deliveries to an endpoint as
 * fast as the API answers, past the endpoint's own rate limit and health rules, which govern
 * attempts, not how many deliveries are made.
 *
 * Each call takes one from its subscription's count for the current minute, kept in the table
 * (`storage/rate-budget.ts`, a counter named after the call), so the limit holds however many
 * management function instances answer: one unconditional update per call, never a read. A call
 * past the limit is refused with 429 and `Retry-After`, the seconds until the next minute's
 * count starts; nothing of it was done, so sending it again then is safe. A call is counted once
 * its request is valid and its subscription found, whatever it then answers (a resend of an event
 * the log does not hold still looked it up). The windows are whole minutes of the stack's clock:
 * a caller can make a limit's calls at the end of one minute and again at the start of the next,
 * twice the limit in a moment, but never more than that, and no more than the limit on average.
 */
import type { Subscription } from '../domain/model';
import { tooManyRequests } from '../http/errors';
import type { RateBudgetStore, RateCounter } from '../storage/rate-budget';

/** A limit on one call, per subscription and window. */
export interface CallLimit extends RateCounter {
  /** `resend`, `replay`: the call, in its counter's key and the refusal. */
  readonly name: string;
  /** Calls per window and subscription. */
  readonly perWindow: number;
  /** The detail code of the refusal. */
  readonly code: string;
}

const MINUTE_MS = 60_000;

/**
 * Resends: 60 per minute per subscription. A resend queues one event, so an operator working
 * through a list of failed deliveries by hand or with a script at one a second is never refused,
 * while a loop gone wrong is held to one delivery a second beside the subscription's own traffic.
 */
export const RESEND_LIMIT: CallLimit = {
  name: 'resend',
  perWindow: 60,
  windowMs: MINUTE_MS,
  code: 'ResendRateLimitExceeded',
};

/**
 * Dead-letter replays: 60 calls per minute per subscription. Fewer would suit a call that may
 * queue every event of a time window, but `gridwire deadletters replay` replays one blob per call,
 * paced to `--rate` events a second (100 by default): with blobs of a hundred events or more (a
 * burst of failures lands in few, large blobs) it makes a call a second at most, which this leaves
 * it. What it holds back is a loop: without `force` a replay queues only blobs never replayed,
 * so the events a loop could queue again and again are those of `force` calls, now one a second.
 * A dry run counts too: it lists and reads the same blobs.
 */
export const REPLAY_LIMIT: CallLimit = {
  name: 'replay',
  perWindow: 60,
  windowMs: MINUTE_MS,
  code: 'ReplayRateLimitExceeded',
};

/**
 * Bulk recoveries (`POST <subscription>/recover`): 10 calls per minute per subscription. One call
 * may queue a thousand dropped deliveries and a window's dead letters, and what it queued is never
 * queued again, so a caller following `nextUntil` needs a few calls and a loop gone wrong gains
 * nothing by calling again.
 */
export const RECOVER_LIMIT: CallLimit = {
  name: 'recover',
  perWindow: 10,
  windowMs: MINUTE_MS,
  code: 'RecoverRateLimitExceeded',
};

/**
 * Test events sent to one subscription (`POST <subscription>/sendTestEvent`, the portal's "send a
 * test event"): a few a minute, enough to try an endpoint, too few to flood it.
 */
export const TEST_EVENT_LIMIT: CallLimit = {
  name: 'sendTestEvent',
  perWindow: 10,
  windowMs: MINUTE_MS,
  code: 'TestEventRateLimitExceeded',
};

/** The window (epoch ms divided by its length) that `now` falls in. */
export const callWindowOf = (limit: Pick<CallLimit, 'windowMs'>, now: number): number =>
  Math.floor(now / limit.windowMs);

/** Whole seconds from `now` until the next window starts (at least 1): the refusal's `Retry-After`. */
export const retryAfterSecondsOf = (limit: Pick<CallLimit, 'windowMs'>, now: number): number =>
  Math.max(1, Math.ceil(((callWindowOf(limit, now) + 1) * limit.windowMs - now) / 1000));

/** The window's length in words: `minute`, or seconds. */
const windowWords = (windowMs: number) => (windowMs === MINUTE_MS ? 'minute' : `${windowMs / 1000} seconds`);

/** The 429 of a call past its limit: which call, which subscription, the limit, and when to try again. */
export function callLimitRefusal(limit: CallLimit, subscription: Subscription, now: number) {
  const wait = retryAfterSecondsOf(limit, now);
  return tooManyRequests(
    `Too many ${limit.name} calls: at most ${limit.perWindow} per ${windowWords(limit.windowMs)} per event subscription, and subscription '${subscription.name}' of topic '${subscription.topic}' has had them. Try again in ${wait} seconds (Retry-After).`,
    limit.code,
    wait,
  );
}

/**
 * Counts a call on `subscription` against `limit` at `now`, or throws the 429 once the current
 * window's calls are taken.
 */
export async function admitCall(
  budget: RateBudgetStore,
  limit: CallLimit,
  subscription: Subscription,
  now: number,
): Promise<void> {
  const window = callWindowOf(limit, now);
  const slice = await budget.take(subscription.topic, subscription.name, window, 1, limit.perWindow, limit);
  if (slice.count === 0) throw callLimitRefusal(limit, subscription, now);
}
