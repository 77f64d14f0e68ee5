/**
 * The worker's side of late answers (`rules/late-answer.ts`): asks the sender to keep listening
 * to a request that times out; when a success comes in time, records it for the events' retries
 * to find, counts the events delivered and adds the answer to their attempt history. Before a
 * retry is attempted, looks up whether a late success already delivered it.
 *
 * Best effort throughout: a late answer that cannot be recorded, or a lookup that fails, only
 * means the retry is sent (at least once either way). Each listening joins the `scope` of the
 * invocation that opened it, which waits for them before it ends: its requests start early enough
 * for each window to close before its finishing margin (`invocationLimits`).
 */

import type { AttemptRecord } from '../domain/attempts';
import type { DeliveryItem } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import type { LateAnswer, LateAnswerStore, RecordedLateAnswer } from '../storage/late-answers';
import type { AttemptHistory } from './ports';
import { lateListenUntil } from './rules/late-answer';
import type { DeliveryProfile } from './rules/profiles';
import { DELIVERY_TIMEOUT_MS, type LateListen } from './webhook-sender';

/** A recorded answer is kept this long past its event's time to live. */
const KEPT_PAST_TTL_MS = 60 * 60_000;

export interface LateAnswersDeps {
  readonly clock: Clock;
  readonly store: LateAnswerStore;
  readonly history: AttemptHistory;
  readonly metrics: MetricBuffer;
  readonly logger: LoggerLike;
  /** The sender's timeout (default 30 s): there is no late window shorter than it. */
  readonly timeoutMs?: number;
  /** How long after it started a request is listened to at most (default 3 minutes). */
  readonly windowMs?: number;
}

export class LateAnswers {
  /** Aborted when the worker stops: every listen ends early, and no new one starts. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: LateAnswersDeps) {}

  /**
   * What the sender is asked for one request of `events` (which share an attempt count), or
   * `undefined` when a timeout of it would not be listened to (`lateListenUntil`). `stopBy` is
   * when the worker must stop listening; the listening is added to `scope` (the invocation's).
   */
  listen(
    subscription: Subscription,
    profile: DeliveryProfile,
    events: readonly DeliveryItem[],
    startedAt: number,
    stopBy: number | undefined,
    scope?: Promise<void>[],
  ): LateListen | undefined {
    const first = events[0];
    if (first === undefined || stopBy === undefined || this.stopping.signal.aborted) return undefined;
    const until = lateListenUntil({
      profile,
      limits: subscription.retry,
      attemptsBefore: first.attempts,
      startedAt,
      timeoutMs: this.deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      stopBy,
      ...(this.deps.windowMs === undefined ? {} : { windowMs: this.deps.windowMs }),
    });
    if (until === undefined) return undefined;
    let settle = () => {};
    const listening = new Promise<void>((resolve) => {
      settle = resolve;
    });
    scope?.push(listening);
    return {
      until,
      stop: this.stopping.signal,
      ended: (answer) => {
        if (answer === undefined) settle();
        else void this.answered(subscription, events, startedAt, answer).finally(settle);
      },
    };
  }

  /** Ends every listen now, as if its window had closed (the worker is stopping). */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Which of `items` a late success already delivered (by delivery id). Only events one of whose
   * requests was listened to after a timeout are looked up; none when the lookup fails.
   */
  async answeredAmong(
    subscription: Subscription,
    items: readonly DeliveryItem[],
  ): Promise<ReadonlyMap<string, RecordedLateAnswer>> {
    const ids = items.filter((item) => item.lateUntil !== undefined).map((item) => item.deliveryId);
    if (ids.length === 0) return new Map();
    try {
      return await this.deps.store.find(subscription.topic, subscription.name, ids);
    } catch (error) {
      this.deps.logger.warn('could not look up late answers; the retries are sent', {
        topic: subscription.topic,
        subscription: subscription.name,
        events: ids.length,
        error: (error as Error).message,
      });
      return new Map();
    }
  }

  /** A late success: recorded for the retries, counted, and added to the history. */
  private async answered(
    subscription: Subscription,
    events: readonly DeliveryItem[],
    startedAt: number,
    answer: { httpStatus: number; at: number },
  ): Promise<void> {
    const { store, history, metrics, logger } = this.deps;
    const answers: LateAnswer[] = events.map((item) => ({
      topic: subscription.topic,
      subscription: subscription.name,
      deliveryId: item.deliveryId,
      attempt: item.attempts + 1,
      startedAt,
      answeredAt: answer.at,
      httpStatus: answer.httpStatus,
      expiresAt: Math.max(item.publishedAt + subscription.retry.ttlMs, answer.at) + KEPT_PAST_TTL_MS,
    }));
    const dims = subscriptionDimensions(subscription.topic, subscription.name);
    metrics.count(METRIC.DeliverySuccessCount, events.length, dims);
    metrics.count(METRIC.DeliveryLateAnswerCount, events.length, dims);
    const records: AttemptRecord[] = events.map((item) => ({
      topic: subscription.topic,
      subscription: subscription.name,
      ...(subscription.uid === undefined ? {} : { uid: subscription.uid }),
      eventId: item.eventId,
      deliveryId: item.deliveryId,
      publishedAt: item.publishedAt,
      attempt: item.attempts + 1,
      // When the answer came: the attempt's own record (at its start) says it timed out.
      at: answer.at,
      outcome: 'Delivered',
      httpStatus: answer.httpStatus,
      durationMs: answer.at - startedAt,
      next: { action: 'none' },
    }));
    const [stored, recorded] = await Promise.allSettled([store.record(answers), history.record(records)]);
    if (stored.status === 'rejected') {
      logger.error('could not record a late answer; its events will be retried', {
        topic: subscription.topic,
        subscription: subscription.name,
        events: events.length,
        error: (stored.reason as Error).message,
      });
    }
    if (recorded.status === 'rejected') {
      logger.error('could not record delivery attempts', {
        error: (recorded.reason as Error).message,
        records: records.length,
      });
    }
  }
}
