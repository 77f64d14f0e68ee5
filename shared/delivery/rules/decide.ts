/**
 * The decide phase of a delivery job, as a pure function: given what each event's attempt
 * returned (or that it expired, or was not started in time), say which events were delivered,
 * which are retried and when, which ended and why, and what the attempt history records.
 * Time (`now`) and the random source are arguments, so every decision is table-tested.
 */

import type { AttemptNext, AttemptRecord, AttemptResult } from '../../domain/attempts';
import type { DeliveryItem, EndedDelivery } from '../../domain/delivery';
import type { DeadLetterReason, DeliveryLogMode, RetryLimits } from '../../domain/model';
import type { DeliveryProfile } from './profiles';
import { baseDelayMs, decideAfterFailure, jitterMs } from './retry';

/** What the attempt phase reports for one event. */
export type Attempted =
  | {
      readonly kind: 'attempted';
      readonly item: DeliveryItem;
      readonly startedAt: number;
      readonly result: AttemptResult;
    }
  /** Not started: the invocation's deadline came first. */
  | { readonly kind: 'deferred'; readonly item: DeliveryItem }
  /**
   * Not started, held back until `until`: the endpoint is on probation (`probation`), it is
   * stalled and already has all the requests it may have in flight (`busy`), or its rate limit
   * has no budget for the request soon enough (`rate`). No attempt is used.
   */
  | {
      readonly kind: 'held';
      readonly item: DeliveryItem;
      readonly until: number;
      readonly reason: 'probation' | 'busy' | 'rate';
    }
  /** Not started: the endpoint answered 410 Gone and is disabled. */
  | { readonly kind: 'disabled'; readonly item: DeliveryItem }
  /**
   * Not started: an earlier request of this event, timed out, was answered late with a success
   * (`late-answer.ts`), so the event was delivered then and this retry is dropped.
   */
  | { readonly kind: 'answeredLate'; readonly item: DeliveryItem };

export interface DecideInput {
  readonly topic: string;
  readonly subscription: string;
  /** The subscription's uid, kept on every history record (absent when it has none). */
  readonly uid?: string;
  readonly profile: DeliveryProfile;
  readonly limits: RetryLimits;
  readonly attempted: readonly Attempted[];
  /** Events whose time to live ran out when the job came due (not attempted). */
  readonly expired: readonly DeliveryItem[];
  /** When the job came due (the TTL check's time). */
  readonly dueAt: number;
  /** When the attempts were over: retry delays count from here. */
  readonly now: number;
  /** Uniform draws in [0, 1); one per group of events that failed alike. */
  readonly random: () => number;
  /** Whether the subscription has a dead-letter destination (else ended events are dropped). */
  readonly deadLetters: boolean;
  /**
   * What the message log keeps: `Failures` (default) records failed attempts and what follows
   * them, `All` also first-attempt successes.
   */
  readonly deliveryLog?: DeliveryLogMode;
}

export interface JobDecisions {
  /** Attempts that succeeded, with their results (for metrics). */
  readonly delivered: readonly Extract<Attempted, { kind: 'attempted' }>[];
  /** Attempts that failed, with their results (for metrics). */
  readonly failed: readonly Extract<Attempted, { kind: 'attempted' }>[];
  /** Events to try again, by due time (epoch ms), with their state after this attempt. */
  readonly retries: ReadonlyMap<number, readonly DeliveryItem[]>;
  /** Events that will not be tried again. */
  readonly ended: readonly EndedDelivery[];
  /** Events to re-queue untouched. */
  readonly deferred: readonly DeliveryItem[];
  /** Events held back without an attempt, by the time they are due again (jitter included). */
  readonly held: ReadonlyMap<number, readonly DeliveryItem[]>;
  /** Events already delivered by a late answer: nothing more is sent or kept for them. */
  readonly answeredLate: readonly DeliveryItem[];
  /**
   * History entries: failed attempts, what follows them, and successes after a failure (and, with
   * `deliveryLog: All`, every success).
   */
  readonly records: readonly AttemptRecord[];
}

/**
 * An event as it leaves a hold of its endpoint (probation, or a disabled endpoint): `Probation`
 * is what it last met, as the original reports it. Its attempt count and last status stay, since
 * no request was made.
 */
export const stampProbation = (item: DeliveryItem): DeliveryItem => ({ ...item, lastOutcome: 'Probation' });

/**
 * Events up to this size (UTF-8 bytes of the event as delivered) are kept in the message log so
 * they can be resent: 64 KiB, the size Event Grid bills as one operation. Larger ones are logged
 * without their text (a dead letter still holds them whole).
 */
export const MAX_LOGGED_EVENT_BYTES = 64 * 1024;

/** Whether the message log keeps an event's text (so it can be resent): up to {@link MAX_LOGGED_EVENT_BYTES}. */
const loggedEvent = (eventJson: string) =>
  // Checked by length first: a UTF-8 byte count is at least the string's length.
  eventJson.length <= MAX_LOGGED_EVENT_BYTES &&
  Buffer.byteLength(eventJson, 'utf8') <= MAX_LOGGED_EVENT_BYTES;

export function decideJob(input: DecideInput): JobDecisions {
  const { profile, limits, now } = input;
  /** What follows an ended delivery: dead-lettered with a destination, dropped without. */
  const endedNext = (reason: DeadLetterReason): AttemptNext =>
    input.deadLetters ? { action: 'deadLetter', reason } : { action: 'dropped', reason };
  const record = (
    item: DeliveryItem,
    attempt: number,
    at: number,
    detail: Pick<AttemptRecord, 'outcome' | 'next'> &
      Partial<Pick<AttemptResult, 'httpStatus' | 'durationMs' | 'error' | 'response'>>,
  ): AttemptRecord => ({
    topic: input.topic,
    subscription: input.subscription,
    ...(input.uid === undefined ? {} : { uid: input.uid }),
    eventId: item.eventId,
    deliveryId: item.deliveryId,
    publishedAt: item.publishedAt,
    attempt,
    at,
    outcome: detail.outcome,
    ...(detail.httpStatus === undefined ? {} : { httpStatus: detail.httpStatus }),
    ...(detail.durationMs === undefined ? {} : { durationMs: detail.durationMs }),
    ...(detail.error === undefined ? {} : { error: detail.error }),
    ...(detail.response === undefined ? {} : { response: detail.response }),
    ...(loggedEvent(item.eventJson) ? { eventJson: item.eventJson } : {}),
    ...(item.resendOf === undefined ? {} : { resendOf: item.resendOf }),
    next: detail.next,
  });

  const delivered: Extract<Attempted, { kind: 'attempted' }>[] = [];
  const failedAttempts: Extract<Attempted, { kind: 'attempted' }>[] = [];
  const retries = new Map<number, DeliveryItem[]>();
  const ended: EndedDelivery[] = [];
  const deferred: DeliveryItem[] = [];
  const held = new Map<number, DeliveryItem[]>();
  const answeredLate: DeliveryItem[] = [];
  const records: AttemptRecord[] = [];
  /** One jitter draw per hold end, so events held together stay packed together. */
  const holdDraws = new Map<number, number>();

  for (const item of input.expired) {
    ended.push({ item, reason: 'TimeToLiveExceeded', endedAt: input.dueAt });
    records.push(
      record(item, item.attempts + 1, input.dueAt, {
        outcome: 'NotAttempted',
        next: endedNext('TimeToLiveExceeded'),
      }),
    );
  }

  // One jitter draw per group of events that failed alike, so they stay packed together.
  const draws = new Map<string, number>();
  for (const entry of input.attempted) {
    if (entry.kind === 'deferred') {
      deferred.push(entry.item);
      continue;
    }
    // Its delivery was counted and recorded when the late answer came; the history says this
    // retry was not made, and that nothing follows.
    if (entry.kind === 'answeredLate') {
      answeredLate.push(entry.item);
      records.push(
        record(entry.item, entry.item.attempts + 1, now, {
          outcome: 'NotAttempted',
          next: { action: 'none' },
        }),
      );
      continue;
    }
    if (entry.kind === 'held') {
      let draw = holdDraws.get(entry.until);
      if (draw === undefined) {
        draw = input.random();
        holdDraws.set(entry.until, draw);
      }
      const dueAt = entry.until + jitterMs(profile, Math.max(0, entry.until - now), draw);
      // Probation is what the event last met (the original reports it so); a busy or rate hold changes nothing.
      const item: DeliveryItem = entry.reason === 'probation' ? stampProbation(entry.item) : entry.item;
      held.set(dueAt, [...(held.get(dueAt) ?? []), item]);
      continue;
    }
    if (entry.kind === 'disabled') {
      const item = stampProbation(entry.item);
      ended.push({ item, reason: 'EndpointDisabled', endedAt: now });
      records.push(
        record(entry.item, entry.item.attempts + 1, now, {
          outcome: 'Probation',
          next: endedNext('EndpointDisabled'),
        }),
      );
      continue;
    }
    const { item, result, startedAt } = entry;
    const attemptNumber = item.attempts + 1;
    if (result.delivered) {
      delivered.push(entry);
      if (item.attempts > 0 || input.deliveryLog === 'All') {
        records.push(
          record(item, attemptNumber, startedAt, {
            ...result,
            outcome: 'Delivered',
            next: { action: 'none' },
          }),
        );
      }
      continue;
    }
    failedAttempts.push(entry);
    const outcome = result.outcome ?? 'GenericError';
    const failed: DeliveryItem = {
      ...item,
      attempts: attemptNumber,
      lastOutcome: outcome,
      ...(result.httpStatus === undefined ? {} : { lastHttpStatus: result.httpStatus }),
      lastAttemptAt: startedAt,
      // Its retries look for a late answer to this request, or to an earlier one.
      ...(result.listeningUntil === undefined
        ? {}
        : { lateUntil: Math.max(result.listeningUntil, item.lateUntil ?? 0) }),
    };
    const group = `${attemptNumber}|${baseDelayMs(profile, attemptNumber, result, limits.scheduleMs)}`;
    let draw = draws.get(group);
    if (draw === undefined) {
      draw = input.random();
      draws.set(group, draw);
    }
    const decision = decideAfterFailure({
      profile,
      limits,
      attemptsMade: attemptNumber,
      result,
      now,
      random: draw,
    });
    if (decision.action === 'retry') {
      retries.set(decision.dueAt, [...(retries.get(decision.dueAt) ?? []), failed]);
      records.push(
        record(item, attemptNumber, startedAt, {
          ...result,
          outcome,
          next: { action: 'retry', dueAt: decision.dueAt },
        }),
      );
    } else {
      ended.push({ item: failed, reason: decision.reason, endedAt: now });
      records.push(
        record(item, attemptNumber, startedAt, { ...result, outcome, next: endedNext(decision.reason) }),
      );
    }
  }
  return { delivered, failed: failedAttempts, retries, ended, deferred, held, answeredLate, records };
}
