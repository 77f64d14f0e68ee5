/**
 * The message log's routes: `GET <subscription>/deliveries` (one event's deliveries with
 * `eventId`, a page of the log without) and `POST <subscription>/resend` (one logged event sent
 * again as a new delivery; `RESEND_LIMIT` calls a minute per subscription, `call-limits.ts`).
 * The log itself is the attempt history (`shared/storage/attempt-history.ts`); what it keeps
 * follows the subscription's `deliveryLog`. Both read the subscription's own records only: one
 * deleted and created again under the same name starts with an empty log, so nothing its
 * predecessor logged is listed to it or resent to its endpoint. A resend goes only where a publish
 * of the event would go now: the event must match the subscription's current filter.
 */

import { z } from 'zod';
import { MAX_LOGGED_EVENT_BYTES } from '../delivery/rules/decide';
import { RESEND_HEADER } from '../delivery/rules/headers';
import { deliveryTargetOf } from '../delivery/target';
import type { AttemptRecord } from '../domain/attempts';
import type { DeliveryItem } from '../domain/delivery';
import type { Subscription } from '../domain/model';
import { type HttpEvent, jsonResult, parseJsonBody } from '../http/api-gateway';
import { ApiError, badRequest, notFound } from '../http/errors';
import { stringMember } from '../platform/json-text';
import { compileFilter, type FilterView } from '../publish/filter';
import { packJobs, targetGroupId } from '../queue/job-codec';
import type { HistoryWindow } from '../storage/attempt-history';
import { admitCall, RESEND_LIMIT } from './call-limits';
import { parseWindow } from './dead-letters';
import type { CallLimitDeps, ClockDeps, HistoryDeps, IdDeps, QueueDeps } from './deps';
import { MAX_BODY_BYTES } from './http-helpers';
import type { Operations, SubscriptionFinder } from './operation';
import { invalidBody } from './request-body';

/** The deliveries API's window when the request names neither end. */
export const DEFAULT_HISTORY_WINDOW_MS = 24 * 3_600_000;
/** Deliveries a page of the log lists at least (whole hours are listed), unless `top` says otherwise. */
export const DEFAULT_LOG_PAGE = 100;
/** The most `top` may ask for. */
export const MAX_LOG_PAGE = 1000;

const iso = (ms: number) => new Date(ms).toISOString();

/** A delivery's status from its newest record. */
function statusOf(
  last: AttemptRecord,
): 'Retrying' | 'DeadLettered' | 'Dropped' | 'Delivered' | 'NotDelivered' {
  switch (last.next.action) {
    case 'retry':
      return 'Retrying';
    case 'deadLetter':
      return 'DeadLettered';
    case 'dropped':
      return 'Dropped';
    default:
      // Nothing follows: delivered (at this attempt or by a late answer), or a retry not made
      // because a late answer had delivered it.
      return last.outcome === 'Delivered' || last.outcome === 'NotAttempted' ? 'Delivered' : 'NotDelivered';
  }
}

/**
 * Attempt records as the API shows them: ISO times, grouped by delivery (in the order of each
 * delivery's first record, or newest delivery first with `newestFirst`). The event's text stays
 * out; `eventLogged` says whether the log holds it (so it can be resent).
 */
export function deliveriesDocument(
  records: readonly AttemptRecord[],
  options: { newestFirst?: boolean } = {},
) {
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const record of records)
    byDelivery.set(record.deliveryId, [...(byDelivery.get(record.deliveryId) ?? []), record]);
  const deliveries = [...byDelivery.entries()];
  if (options.newestFirst === true) {
    const newest = (attempts: readonly AttemptRecord[]) => Math.max(...attempts.map((record) => record.at));
    deliveries.sort(([, a], [, b]) => newest(b) - newest(a));
  }
  return {
    value: deliveries.map(([deliveryId, attempts]) => {
      const last = attempts[attempts.length - 1] as AttemptRecord;
      const resendOf = attempts.find((record) => record.resendOf !== undefined)?.resendOf;
      return {
        eventId: last.eventId,
        deliveryId,
        publishTime: iso(last.publishedAt),
        status: statusOf(last),
        ...(last.next.action === 'deadLetter' || last.next.action === 'dropped'
          ? { reason: last.next.reason }
          : {}),
        ...(last.next.action === 'retry' ? { nextAttemptTime: iso(last.next.dueAt) } : {}),
        ...(resendOf === undefined ? {} : { resendOf }),
        eventLogged: attempts.some((record) => record.eventJson !== undefined),
        attempts: attempts.map((record) => ({
          attempt: record.attempt,
          time: iso(record.at),
          outcome: record.outcome,
          ...(record.httpStatus === undefined ? {} : { httpStatus: record.httpStatus }),
          ...(record.durationMs === undefined ? {} : { durationMs: record.durationMs }),
          ...(record.error === undefined ? {} : { error: record.error }),
          ...(record.response === undefined ? {} : { response: record.response }),
        })),
      };
    }),
  };
}

/**
 * The deliveries API's `since` and `until`: ISO 8601 times, `until` exclusive. Without `until` the
 * window ends now; without `since` it is the 24 hours before `until`. A window longer than the
 * history's retention is a 400 naming `since`.
 */
export function parseHistoryWindow(
  input: { since?: unknown; until?: unknown },
  nowMs: number,
  retentionDays: number,
): HistoryWindow {
  const window = parseWindow(input);
  const until = window.until ?? nowMs;
  const since = window.since ?? until - DEFAULT_HISTORY_WINDOW_MS;
  if (since >= until) throw badRequest('since: must be before until (which defaults to now).');
  if (until - since > retentionDays * 86_400_000) {
    throw badRequest(
      `since: the window may span at most ${retentionDays} days, the attempt history's retention (got ${iso(since)} to ${iso(until)}).`,
    );
  }
  return { since, until };
}

/** `top`: how many deliveries a page lists at least, 1..{@link MAX_LOG_PAGE}. */
export function parseTop(top: string | undefined): number {
  if (top === undefined || top === '') return DEFAULT_LOG_PAGE;
  const value = /^\d{1,7}$/.test(top) ? Number(top) : Number.NaN;
  if (!(value >= 1 && value <= MAX_LOG_PAGE)) {
    throw badRequest(`top: must be a whole number from 1 to ${MAX_LOG_PAGE} (got ${JSON.stringify(top)}).`);
  }
  return value;
}

/** Why a lookup found nothing, in the subscription's terms. */
const noRecordNote = (subscription: Subscription, eventId: string, searched: HistoryWindow) =>
  `No record of event '${eventId}' for this subscription between ${iso(searched.since)} and ${iso(searched.until)}.${
    subscription.deliveryLog === 'All'
      ? ''
      : " The subscription's deliveryLog is 'Failures': an event delivered at its first attempt leaves no record (set properties.deliveryLog to 'All' to log every delivery)."
  }`;

/** The resend request: `{"eventId": "...", "deliveryId"?: "...", "since"?: ISO, "until"?: ISO}`. */
export const resendBodySchema = z.strictObject(
  {
    eventId: z.string({ error: 'is required: the id of the event to send again' }).min(1, {
      error: 'is required: the id of the event to send again',
    }),
    deliveryId: z
      .string({ error: 'must be a delivery id from the log' })
      .min(1, { error: 'must be a delivery id from the log' })
      .optional(),
    // Checked as the deliveries route checks them (`parseHistoryWindow`).
    since: z.unknown().optional(),
    until: z.unknown().optional(),
  },
  { error: 'must be a JSON object such as {"eventId": "order-1"}' },
);

function parseResendBody(event: HttpEvent): z.infer<typeof resendBodySchema> {
  const parsed = resendBodySchema.safeParse(parseJsonBody(event, MAX_BODY_BYTES));
  if (!parsed.success) throw invalidBody(parsed.error, 'resend request');
  return parsed.data;
}

/**
 * The event to send again: the newest delivery of `eventId` (or the one named) whose text the
 * log holds. 404 when the log has no record of it, 409 when it has records but not the text.
 */
function eventToResend(
  subscription: Subscription,
  request: { eventId: string; deliveryId?: string | undefined },
  records: readonly AttemptRecord[],
  searched: HistoryWindow,
): AttemptRecord {
  const candidates = records.filter(
    (record) => request.deliveryId === undefined || record.deliveryId === request.deliveryId,
  );
  if (candidates.length === 0) {
    throw notFound(
      request.deliveryId === undefined
        ? noRecordNote(subscription, request.eventId, searched)
        : `No record of delivery '${request.deliveryId}' of event '${request.eventId}' between ${iso(searched.since)} and ${iso(searched.until)}.`,
    );
  }
  const withText = candidates.filter((record) => record.eventJson !== undefined);
  const newest = withText[withText.length - 1];
  if (newest === undefined) {
    throw new ApiError(
      409,
      'Conflict',
      `The log has records of event '${request.eventId}' but not its text (events over ${MAX_LOGGED_EVENT_BYTES / 1024} KiB are logged without it); if it was dead-lettered, replay its dead letter.`,
    );
  }
  return newest;
}

/**
 * What a filter reads of a logged event, as publish read it: the logged text is the event as
 * queued, the Event Grid form (Event Grid and custom-schema topics: `eventType`) or a CloudEvent
 * (`type`).
 */
export function loggedEventView(eventJson: string): FilterView {
  const event = JSON.parse(eventJson) as unknown;
  const fields = typeof event === 'object' && event !== null && !Array.isArray(event) ? event : {};
  const member = (name: string): string | undefined => {
    const value = Object.hasOwn(fields, name) ? (fields as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const eventTypeKey = Object.hasOwn(fields, 'eventType') ? 'eventType' : 'type';
  return {
    eventType: member(eventTypeKey) ?? '',
    eventTypeKey,
    subject: member('subject'),
    event: () => event,
  };
}

/**
 * Refuses to resend an event the subscription's filter no longer lets through (it was changed
 * since the event was logged): a resend goes only where a publish of it would go now. A 409, not
 * a 400: the request is well formed, the subscription's present state is what stands in its way
 * (as for an event logged without its text).
 */
export function checkResendFilter(subscription: Pick<Subscription, 'filter'>, original: AttemptRecord): void {
  if (compileFilter(subscription.filter)(loggedEventView(original.eventJson as string))) return;
  throw new ApiError(
    409,
    'Conflict',
    `Event '${original.eventId}' does not match the subscription's filter as it is now (it was changed since the event was logged), so it is not resent: a resend goes only where a publish of the event would go.`,
  );
}

/**
 * What the message log's routes use: the attempt history, the time, ids and the queue of a
 * resend, and the per-subscription limit on resend calls.
 */
export type MessageLogRouteDeps = HistoryDeps & ClockDeps & IdDeps & QueueDeps & CallLimitDeps;

/** The deliveries lookup, the log's pages and resend, on the subscriptions under `subscriptionPath`. */
export function messageLogOperations<D>(
  subscriptionPath: string,
  find: SubscriptionFinder<D>,
): Operations<D & MessageLogRouteDeps> {
  return {
    [`GET ${subscriptionPath}/deliveries`]: async (event, deps) => {
      const subscription = await find(event, deps);
      const query = event.queryStringParameters ?? {};
      const window = parseHistoryWindow(
        { since: query.since, until: query.until },
        deps.clock.now(),
        deps.history.retentionDays,
      );
      const eventId = query.eventId;
      if (eventId === undefined || eventId === '') return logPage(deps, subscription, window, query.top);
      if (query.top !== undefined)
        throw badRequest('top: lists a page of the log; it does not go with eventId.');
      const found = await deps.history.find(subscription, eventId, window);
      return jsonResult(200, {
        ...deliveriesDocument(found.records),
        searched: { since: iso(found.searched.since), until: iso(found.searched.until) },
        truncated: found.truncated,
        ...(found.records.length === 0 ? { note: noRecordNote(subscription, eventId, found.searched) } : {}),
      });
    },

    [`POST ${subscriptionPath}/resend`]: async (event, deps) => {
      const subscription = await find(event, deps, { consistent: true });
      const request = parseResendBody(event);
      const window = parseHistoryWindow(request, deps.clock.now(), deps.history.retentionDays);
      await admitCall(deps.callBudget, RESEND_LIMIT, subscription, deps.clock.now());
      const found = await deps.history.find(subscription, request.eventId, window);
      const original = eventToResend(subscription, request, found.records, found.searched);
      checkResendFilter(subscription, original);
      const item = resendItem(original, `resend-${deps.newId()}`, deps.clock.now());
      await queueDelivery(deps, subscription, item);
      return jsonResult(202, {
        eventId: item.eventId,
        deliveryId: item.deliveryId,
        resendOf: original.deliveryId,
        header: `${RESEND_HEADER}: ${original.deliveryId}`,
      });
    },
  };
}

/**
 * Sends `item` to `subscription` alone, as a new delivery now: the one way the management API
 * queues an event for one subscription (a resend, a test event).
 */
export function queueDelivery(deps: QueueDeps, subscription: Subscription, item: DeliveryItem) {
  return queueDeliveries(deps, subscription, [item]);
}

/** Sends `items` to `subscription` alone, as new deliveries now (packed into as few messages as fit). */
export async function queueDeliveries(
  deps: QueueDeps,
  subscription: Subscription,
  items: readonly DeliveryItem[],
): Promise<void> {
  const target = deliveryTargetOf(subscription);
  await deps.queue.send(
    'delivery',
    packJobs({ target }, items).map((body) => ({ body, delaySeconds: 0, groupId: targetGroupId(target) })),
  );
}

/** A page of the log: deliveries newest first, and where the next page ends when there is one. */
async function logPage(deps: HistoryDeps, subscription: Subscription, window: HistoryWindow, top?: string) {
  const page = await deps.history.list(subscription, window, parseTop(top));
  return jsonResult(200, {
    deliveryLog: subscription.deliveryLog ?? 'Failures',
    ...deliveriesDocument(page.records, { newestFirst: true }),
    searched: { since: iso(page.searched.since), until: iso(page.searched.until) },
    ...(page.more ? { nextUntil: iso(page.searched.since) } : {}),
  });
}

/**
 * A logged event as a new delivery: the same event text and id, a new delivery id, attempts
 * from 0, published now (its time to live counts from the resend), marked as a resend of the
 * delivery it came from.
 */
export function resendItem(original: AttemptRecord, deliveryId: string, now: number): DeliveryItem {
  const eventJson = original.eventJson as string;
  return {
    deliveryId,
    eventId: original.eventId,
    // The Event Grid schema's member, or the CloudEvents extension.
    dataVersion: stringMember(eventJson, 'dataVersion') ?? stringMember(eventJson, 'dataversion') ?? '',
    eventJson,
    attempts: 0,
    publishedAt: now,
    resendOf: original.deliveryId,
  };
}
