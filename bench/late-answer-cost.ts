/**
 * What listening for late answers costs on AWS, from the code's own constants: the delivery
 * function's extra billed duration per request that timed out and is listened to (until 3 minutes
 * after it started, `shared/delivery/rules/late-answer.ts`), and how many such requests an endpoint
 * that never answers gets, as the health rules let them through (`shared/delivery/rules/health.ts`).
 * docs/cost.md quotes these figures; `test/bench/late-answer-cost.test.ts` checks that it does.
 *
 * The duration is an upper bound: it is the listening that holds an invocation past the end of
 * its own work, as when a request that timed out was the invocation's last. Listens to several
 * requests of one invocation overlap and are billed once, and an invocation that still has work
 * to do is not held by them at all.
 */
import { FINISHING_MARGIN_MS } from '../functions/delivery';
import { FUNCTIONS } from '../shared/config/resources';
import { applySignal, freshHealth, gateOf, holdsInBacklog } from '../shared/delivery/rules/health';
import { LATE_ANSWER_WINDOW_MS, lateListenUntil } from '../shared/delivery/rules/late-answer';
import { type DeliveryProfile, TOPIC_PROFILE } from '../shared/delivery/rules/profiles';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import { PRICES } from './prices';

/**
 * The delivery function's timeout before the late window was honoured in full: a request that
 * started as its invocation began was listened to until the finishing margin before it, 115 s.
 */
export const PREVIOUS_DELIVERY_TIMEOUT_SECONDS = 120;

const gb = FUNCTIONS.delivery.memoryMb / 1024;

/** Extra duration of one listened request, in seconds, GB-seconds and dollars (Arm, us-east-1). */
export interface ListenCost {
  readonly seconds: number;
  readonly gbSeconds: number;
  readonly usd: number;
}

const costOf = (seconds: number): ListenCost => ({
  seconds,
  gbSeconds: seconds * gb,
  usd: seconds * gb * PRICES.lambda.perGbSecond,
});

/** At most, per request that timed out: from its timeout to 3 minutes after it started. */
export const perListen = (): ListenCost => costOf((LATE_ANSWER_WINDOW_MS - DELIVERY_TIMEOUT_MS) / 1000);

/**
 * At most, per request that timed out, with the 120 s function: a request that started as its
 * invocation began was listened to until the finishing margin (85 s past its timeout), one that
 * started 85 s in not at all.
 */
export const perListenBefore = (): ListenCost =>
  costOf((PREVIOUS_DELIVERY_TIMEOUT_SECONDS * 1000 - FINISHING_MARGIN_MS - DELIVERY_TIMEOUT_MS) / 1000);

/** What an endpoint that never answers gets, one request at a time as its health lets them through. */
export interface HangingEndpoint {
  /** Requests that timed out and were listened to. */
  readonly listened: number;
  /** When (ms after its first request) its events went to its backlog, if they did. */
  readonly intoBacklogAfterMs: number | undefined;
}

/**
 * One worker's requests to an endpoint that never answers, events always waiting for it: a request
 * whenever its gate opens (a probation over, one probe at a time), each timing out after 30 s, for
 * `horizonMs`. With backlogs (the default), its events go to its backlog once it is unhealthy, and
 * the backlog's probes and drains are not listened to (a tick passes no `listenUntil`): listening
 * stops there. Without (`backlog: false`), every probe hops the retry queue and is listened to.
 * Requests already in flight when the first timeout came (the endpoint's first window) are not
 * counted here.
 */
export function hangingEndpoint(
  options: { backlog: boolean; horizonMs: number },
  profile: DeliveryProfile = TOPIC_PROFILE,
): HangingEndpoint {
  let health = freshHealth('topic', 'subscription', 'https://hanging.example/');
  let now = 0;
  let listened = 0;
  while (now < options.horizonMs) {
    if (options.backlog && holdsInBacklog(health)) return { listened, intoBacklogAfterMs: now };
    const gate = gateOf(health, now);
    if (gate.kind === 'disabled') break;
    if (gate.kind === 'hold') {
      now = gate.until;
      continue;
    }
    const until = lateListenUntil({
      profile,
      limits: { maxAttempts: profile.limits.maxDeliveryAttempts.default },
      attemptsBefore: 0,
      startedAt: now,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      stopBy: now + LATE_ANSWER_WINDOW_MS,
    });
    if (until !== undefined) listened += 1;
    health = applySignal(profile, health, {
      at: now,
      endedAt: now + DELIVERY_TIMEOUT_MS,
      outcome: 'TimedOut',
    });
    now += DELIVERY_TIMEOUT_MS;
  }
  return { listened, intoBacklogAfterMs: undefined };
}

const DAY_MS = 24 * 60 * 60_000;

/** The figures docs/cost.md gives, rounded as it gives them. */
export function lateAnswerCostFigures() {
  const now = perListen();
  const before = perListenBefore();
  const withBacklog = hangingEndpoint({ backlog: true, horizonMs: DAY_MS });
  const withoutBacklog = hangingEndpoint({ backlog: false, horizonMs: DAY_MS });
  return {
    memoryMb: FUNCTIONS.delivery.memoryMb,
    listenSeconds: now.seconds,
    gbSecondsPerListen: now.gbSeconds,
    usdPerListen: now.usd,
    usdPerMillionListens: now.usd * 1_000_000,
    listenSecondsBefore: before.seconds,
    /** The longest an invocation that listens runs: until the finishing margin before its timeout. */
    longestInvocationSeconds: (FUNCTIONS.delivery.timeoutSeconds * 1000 - FINISHING_MARGIN_MS) / 1000,
    longestInvocationSecondsBefore: (PREVIOUS_DELIVERY_TIMEOUT_SECONDS * 1000 - FINISHING_MARGIN_MS) / 1000,
    gbSecondsPerListenBefore: before.gbSeconds,
    hangingWithBacklog: {
      listened: withBacklog.listened,
      minutesToBacklog: (withBacklog.intoBacklogAfterMs ?? 0) / 60_000,
      usd: withBacklog.listened * now.usd,
    },
    hangingWithoutBacklogPerDay: {
      listened: withoutBacklog.listened,
      usd: withoutBacklog.listened * now.usd,
    },
  };
}
