/**
 * Bulk recovery: `POST <subscription>/recover` with `{"since", "until"?, "dryRun"?}` sends again,
 * as new deliveries, every delivery of the subscription that ended without success in the range:
 *
 * - **dropped** ones (ended with no dead-letter destination to go to) from the message log, which
 *   keeps every failed delivery's records with its event's text. Each is marked recovered
 *   (`storage/recoveries.ts`) before it is queued, so it goes once however many recoveries cover
 *   it; it goes as a resend does (`gridwire-resend-of: <its delivery id>`), and only when the
 *   subscription's filter as it is now lets it through.
 * - **dead-lettered** ones from the subscription's dead letters, as `POST .../deadLetters/replay`
 *   replays them: blobs written in the range and not replayed before, each marked replayed.
 *
 * One call reads at most {@link MAX_RECOVER_DELIVERIES} deliveries of the log, newest first; when
 * the range holds more, the answer's `nextUntil` is where the next call (the same `since`,
 * `until = nextUntil`) goes on. What a call queued is never queued again by another.
 */
import { z } from 'zod';
import type { AttemptRecord } from '../domain/attempts';
import type { DeliveryItem } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { jsonResult, parseJsonBody } from '../http/api-gateway';
import { badRequest } from '../http/errors';
import { mapWithConcurrency } from '../platform/concurrency';
import { compileFilter } from '../publish/filter';
import type { HistoryWindow } from '../storage/attempt-history';
import { admitCall, RECOVER_LIMIT } from './call-limits';
import { type DeadLetterRouteDeps, deadLetterService } from './dead-letter-routes';
import type { HistoryDeps, RecoveryDeps } from './deps';
import { MAX_BODY_BYTES } from './http-helpers';
import { loggedEventView, parseHistoryWindow, queueDeliveries, resendItem } from './message-log-routes';
import type { Operations, SubscriptionFinder } from './operation';
import { invalidBody } from './request-body';

/** Deliveries of the message log one recover call reads at most. */
export const MAX_RECOVER_DELIVERIES = 1000;

/** Marks written at once. */
const MARK_CONCURRENCY = 16;

export type RecoverRouteDeps = DeadLetterRouteDeps & HistoryDeps & RecoveryDeps;

export const recoverBodySchema = z.strictObject(
  {
    since: z.string({ error: 'is required: an ISO 8601 time such as 2026-12-01T10:00:00Z' }),
    until: z.string({ error: 'must be an ISO 8601 time such as 2026-12-01T10:00:00Z' }).optional(),
    dryRun: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'must be a JSON object such as {"since": "2026-12-01T10:00:00Z"}' },
);

/** What the log part of a recovery did. */
export interface DroppedRecovery {
  /** Dropped deliveries the log holds in the range (of those read). */
  deliveries: number;
  eventsQueued: number;
  /** Marked recovered by an earlier call: not queued again. */
  alreadyRecovered: number;
  /** Of those, the ones that would be queued (with their text, through the filter), marked before or not. */
  matched: number;
  /** Logged without their text (over 64 KiB): they cannot be sent again from the log. */
  withoutText: number;
  /** Not let through by the subscription's filter as it is now. */
  filteredOut: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `POST <subscription>/recover` on the subscriptions under `subscriptionPath`. */
export function recoverOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & RecoverRouteDeps> {
  return {
    [`POST ${subscriptionPath}/recover`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      const parsed = recoverBodySchema.safeParse(parseJsonBody(event, MAX_BODY_BYTES));
      if (!parsed.success) throw invalidBody(parsed.error, 'recover request');
      const now = deps.clock.now();
      const window = parseHistoryWindow(parsed.data, now, deps.history.retentionDays);
      if (window.until > now) throw badRequest('until: must not be in the future.');
      const dryRun = parsed.data.dryRun ?? false;
      await admitCall(deps.callBudget, RECOVER_LIMIT, subscription, now);
      const recovery = `recover-${deps.newId()}`;
      const log = await recoverDropped(deps, subscription, window, { recovery, dryRun });
      const deadLetters =
        subscription.deadLetter === undefined
          ? undefined
          : // The whole range each call: blobs replayed by an earlier call are skipped (their markers).
            await deadLetterService(deps).replay(subscription, {
              window,
              dryRun,
              force: false,
            });
      return jsonResult(200, {
        since: iso(window.since),
        until: iso(window.until),
        dryRun,
        eventsQueued: log.dropped.eventsQueued + (deadLetters?.eventsQueued ?? 0),
        dropped: log.dropped,
        deadLetters:
          deadLetters === undefined
            ? null
            : {
                blobsSelected: deadLetters.blobsSelected,
                recordsMatched: deadLetters.recordsMatched,
                eventsQueued: deadLetters.eventsQueued,
                blobsSkipped: deadLetters.blobsSkipped,
                failedKeys: deadLetters.failedKeys,
              },
        ...(log.nextUntil === undefined ? {} : { nextUntil: iso(log.nextUntil) }),
      });
    },
  };
}

/**
 * The dropped deliveries of the log in `window`, newest hours first, up to
 * {@link MAX_RECOVER_DELIVERIES} deliveries read: each marked and queued (or, in a dry run,
 * counted). `nextUntil` when the window holds more than was read.
 */
export async function recoverDropped(
  deps: Pick<RecoverRouteDeps, 'history' | 'recoveries' | 'queue' | 'clock'>,
  subscription: Subscription,
  window: HistoryWindow,
  options: { recovery: string; dryRun: boolean },
): Promise<{ dropped: DroppedRecovery; nextUntil?: number }> {
  const dropped: DroppedRecovery = {
    deliveries: 0,
    matched: 0,
    eventsQueued: 0,
    alreadyRecovered: 0,
    withoutText: 0,
    filteredOut: 0,
  };
  const matches = compileFilter(subscription.filter);
  let until = window.until;
  let read = 0;
  for (;;) {
    const page = await deps.history.list(
      subscription,
      { since: window.since, until },
      MAX_RECOVER_DELIVERIES - read,
    );
    const endings = droppedEndings(page.records);
    read += endings.read;
    const items: { item: DeliveryItem; original: AttemptRecord }[] = [];
    for (const original of endings.dropped) {
      dropped.deliveries += 1;
      if (original.eventJson === undefined) {
        dropped.withoutText += 1;
        continue;
      }
      if (!matches(loggedEventView(original.eventJson))) {
        dropped.filteredOut += 1;
        continue;
      }
      items.push({
        original,
        item: resendItem(original, `${options.recovery}.${dropped.deliveries}`, deps.clock.now()),
      });
    }
    dropped.matched += items.length;
    if (!options.dryRun) await queueMarked(deps, subscription, options.recovery, items, dropped);
    if (!page.more) return { dropped };
    until = page.searched.since;
    if (read >= MAX_RECOVER_DELIVERIES) return { dropped, nextUntil: until };
  }
}

/**
 * The page's deliveries that ended dropped, each as its newest record holding the event's text
 * (or its last record when none does), and how many deliveries the page held.
 */
function droppedEndings(records: readonly AttemptRecord[]): { dropped: AttemptRecord[]; read: number } {
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const record of records) {
    const list = byDelivery.get(record.deliveryId);
    if (list === undefined) byDelivery.set(record.deliveryId, [record]);
    else list.push(record);
  }
  const dropped: AttemptRecord[] = [];
  for (const attempts of byDelivery.values()) {
    const last = attempts[attempts.length - 1] as AttemptRecord;
    if (last.next.action !== 'dropped') continue;
    dropped.push(attempts.findLast((record) => record.eventJson !== undefined) ?? last);
  }
  return { dropped, read: byDelivery.size };
}

/**
 * Marks each delivery recovered and queues those it marked (one send for all); when the send
 * fails, the marks are taken back so a later recovery sends them, and the error stands.
 */
async function queueMarked(
  deps: Pick<RecoverRouteDeps, 'recoveries' | 'queue' | 'clock'>,
  subscription: Subscription,
  recovery: string,
  items: readonly { item: DeliveryItem; original: AttemptRecord }[],
  dropped: DroppedRecovery,
): Promise<void> {
  const deliveryOf = (original: AttemptRecord) => ({
    topic: subscription.topic,
    subscription: subscription.name,
    deliveryId: original.deliveryId,
  });
  const firsts = await mapWithConcurrency(items, MARK_CONCURRENCY, (entry) =>
    deps.recoveries.mark(deliveryOf(entry.original), recovery, deps.clock.now()),
  );
  const marked = items.filter((_, index) => firsts[index] === true);
  dropped.alreadyRecovered += items.length - marked.length;
  if (marked.length === 0) return;
  try {
    await queueDeliveries(
      deps,
      subscription,
      marked.map(({ item }) => item),
    );
  } catch (error) {
    await Promise.allSettled(
      marked.map(({ original }) => deps.recoveries.unmark(deliveryOf(original), recovery)),
    );
    throw error;
  }
  dropped.eventsQueued += marked.length;
}
