/**
 * `gridwire events show|list|resend`: a subscription's message log
 * (`GET .../eventSubscriptions/{subscription}/deliveries`). `show` is what happened to one event:
 * each delivery of it (a replay or a resend is another), where it stands, and every attempt on
 * record; `list` pages through the log, newest first; `resend` sends a logged event again
 * (`POST .../resend`). With the subscription's `deliveryLog` at `Failures` the log keeps failed
 * attempts and what followed them, so an event delivered at its first attempt has none: the
 * commands say so plainly rather than printing an empty list. `replay` and `replays`
 * (replays from the topic's archive) are in `replays.ts`, `recover` (bulk recovery) in `recover.ts`.
 */
import { Command } from 'commander';
import type { components } from '../shared/client/api';
import {
  type ApiTarget,
  type ApiTargetOptions,
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
  withApiTargetOptions,
} from './admin-api';
import { countOption, timeArgument } from './options';
import { type JsonOption, printAnswer, table } from './output';
import { recoverCommand } from './recover';
import { replayCommands } from './replays';

/** One delivery of the event, as the API shows it. */
export interface DeliveryHistory {
  eventId: string;
  deliveryId: string;
  publishTime: string;
  status: 'Retrying' | 'Delivered' | 'DeadLettered' | 'Dropped' | 'NotDelivered';
  reason?: string;
  nextAttemptTime?: string;
  resendOf?: string;
  eventLogged?: boolean;
  attempts: Array<{
    attempt: number;
    time: string;
    outcome: string;
    httpStatus?: number;
    durationMs?: number;
    error?: string;
    response?: string;
  }>;
}

/** The lookup's answer: the deliveries found, and the window searched. */
export interface EventHistory {
  value: DeliveryHistory[];
  searched: { since: string; until: string };
  truncated: boolean;
  /** Why nothing was found, when nothing was. */
  note?: string;
}

/** A page of the log: deliveries newest first, and where the next page ends when there is one. */
export interface LogPage {
  deliveryLog: 'Failures' | 'All';
  value: DeliveryHistory[];
  searched: { since: string; until: string };
  nextUntil?: string;
}

/** What a resend queued. */
export type ResendAnswer = components['schemas']['Resend'];

/** The event's delivery history at the subscription, in [since, until) (default: the last 24 hours). */
export async function eventHistory(
  target: ApiTarget,
  options: SubscriptionRef & { eventId: string; since?: string; until?: string },
): Promise<EventHistory> {
  const answer = okData(
    await target.client.GET(subscriptionRoute(options, '/deliveries'), {
      params: {
        path: options,
        query: { eventId: options.eventId, since: options.since, until: options.until },
      },
    }),
    `reading the delivery history of ${subscriptionLabel(options)}`,
  );
  // With `eventId` the route answers the event's deliveries, not a page of the log.
  return answer as components['schemas']['DeliveryLookup'];
}

/** A page of the subscription's log, newest deliveries first, in [since, until) (default: the last 24 hours). */
export async function logPage(
  target: ApiTarget,
  options: SubscriptionRef & { since?: string; until?: string; top?: number },
): Promise<LogPage> {
  const answer = okData(
    await target.client.GET(subscriptionRoute(options, '/deliveries'), {
      params: { path: options, query: { since: options.since, until: options.until, top: options.top } },
    }),
    `reading the message log of ${subscriptionLabel(options)}`,
  );
  // Without `eventId` the route answers a page of the log.
  return answer as components['schemas']['DeliveryLogPage'];
}

/** Sends a logged event again; the newest logged delivery of it unless `deliveryId` names one. */
export async function resendEvent(
  target: ApiTarget,
  options: SubscriptionRef & { eventId: string; deliveryId?: string; since?: string; until?: string },
): Promise<ResendAnswer> {
  const body = {
    eventId: options.eventId,
    ...(options.deliveryId === undefined ? {} : { deliveryId: options.deliveryId }),
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
  };
  return okData(
    await target.client.POST(subscriptionRoute(options, '/resend'), { params: { path: options }, body }),
    `resending event '${options.eventId}' to ${subscriptionLabel(options)}`,
  );
}

/** A response excerpt on one line, cut to `max` characters. */
export const oneLine = (text: string | undefined, max = 60): string => {
  if (text === undefined) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Where a delivery stands, in words. */
const standingOf = (delivery: DeliveryHistory): string =>
  delivery.status === 'Retrying' && delivery.nextAttemptTime !== undefined
    ? `Retrying, next attempt at ${delivery.nextAttemptTime}`
    : delivery.reason === undefined
      ? delivery.status
      : `${delivery.status} (${delivery.reason})`;

/** The history for a person: each delivery's state and its attempts, or why there is no record. */
export function formatEventHistory(ref: SubscriptionRef, eventId: string, history: EventHistory): string {
  const window = `between ${history.searched.since} and ${history.searched.until}`;
  const more = history.truncated
    ? [`The search stopped before the whole window: ask again with --until ${history.searched.since}.`]
    : [];
  if (history.value.length === 0) {
    // The API says why in its note; without one, the reasons there may be.
    const why =
      history.note === undefined
        ? [
            `No record of event '${eventId}' at ${subscriptionLabel(ref)} ${window}.`,
            'The history keeps failed attempts and what followed them: an event delivered at its first attempt',
            'leaves no record, and neither does one never published to this subscription.',
          ]
        : [history.note];
    return [...why, ...more].join('\n');
  }
  const lines: string[] = [];
  for (const delivery of history.value) {
    const resend = delivery.resendOf === undefined ? '' : ` (a resend of ${delivery.resendOf})`;
    lines.push(
      `Event '${delivery.eventId}', delivery ${delivery.deliveryId}${resend}, published ${delivery.publishTime}: ${standingOf(delivery)}.`,
    );
    lines.push(
      table(
        ['ATTEMPT', 'TIME', 'OUTCOME', 'STATUS', 'DURATION', 'ERROR', 'RESPONSE'],
        delivery.attempts.map((attempt) => [
          String(attempt.attempt),
          attempt.time,
          attempt.outcome,
          attempt.httpStatus === undefined ? '-' : String(attempt.httpStatus),
          attempt.durationMs === undefined ? '-' : `${attempt.durationMs} ms`,
          oneLine(attempt.error),
          oneLine(attempt.response),
        ]),
      ),
    );
  }
  return [...lines, ...more].join('\n');
}

/** A page of the log for a person: a line per delivery, and how to get the next page. */
export function formatLogPage(ref: SubscriptionRef, page: LogPage): string {
  const lines: string[] = [];
  if (page.value.length === 0) {
    lines.push(
      `No deliveries in the log of ${subscriptionLabel(ref)} between ${page.searched.since} and ${page.searched.until}.`,
    );
  } else {
    lines.push(
      table(
        ['LAST ATTEMPT', 'EVENT ID', 'DELIVERY', 'STATUS', 'ATTEMPTS', 'HTTP', 'RESPONSE'],
        page.value.map((delivery) => {
          const last = delivery.attempts[delivery.attempts.length - 1];
          return [
            last?.time ?? '-',
            delivery.eventId,
            delivery.deliveryId,
            delivery.status,
            String(delivery.attempts.filter((attempt) => attempt.outcome !== 'NotAttempted').length),
            last?.httpStatus === undefined ? '-' : String(last.httpStatus),
            oneLine(last?.response ?? last?.error, 40),
          ];
        }),
        { numbersRight: true },
      ),
    );
  }
  if (page.deliveryLog === 'Failures') {
    lines.push(
      "The log keeps failures only (deliveryLog 'Failures'): deliveries that succeeded at the first attempt are not listed; 'gridwire subscription update --delivery-log All' logs every delivery.",
    );
  }
  if (page.nextUntil !== undefined) lines.push(`Older deliveries: add --until ${page.nextUntil}`);
  return lines.join('\n');
}

export function eventsCommand(): Command {
  const events = new Command('events').description("What happened to a subscription's events.");
  events.addCommand(
    withApiTargetOptions(
      new Command('show')
        .description(
          "One event's deliveries at a subscription: where each stands, and its attempts on record.",
        )
        .requiredOption('--topic <name>', 'the topic')
        .requiredOption('--subscription <name>', 'the event subscription')
        .requiredOption('--event-id <id>', 'the id the event was published with')
        .option(
          '--since <time>',
          'search from this ISO 8601 time, or this long ago (30m, 1h, 7d) (default: 24 hours ago)',
          timeArgument('--since'),
        )
        .option('--until <time>', 'search up to this time (default: now)', timeArgument('--until')),
    )
      .option('--json', 'print the API’s JSON answer instead of text')
      .action(
        async (
          options: ApiTargetOptions &
            JsonOption &
            SubscriptionRef & { eventId: string; since?: string; until?: string },
        ) => {
          const history = await eventHistory(await resolveApiTarget(options), options);
          printAnswer(options, history, (found) => formatEventHistory(options, options.eventId, found));
        },
      ),
  );
  events.addCommand(
    withApiTargetOptions(
      new Command('list')
        .description("A page of a subscription's message log, newest deliveries first.")
        .requiredOption('--topic <name>', 'the topic')
        .requiredOption('--subscription <name>', 'the event subscription')
        .option(
          '--since <time>',
          'list from this ISO 8601 time, or this long ago (30m, 1h, 7d) (default: 24 hours ago)',
          timeArgument('--since'),
        )
        .option(
          '--until <time>',
          'list up to this time (default: now; the next page: the time the last one printed)',
          timeArgument('--until'),
        )
        .addOption(countOption('--top <n>', 'list at least this many deliveries (whole hours; default 100)')),
    )
      .option('--json', 'print the API’s JSON answer instead of text')
      .action(
        async (
          options: ApiTargetOptions &
            JsonOption &
            SubscriptionRef & { since?: string; until?: string; top?: number },
        ) => {
          const page = await logPage(await resolveApiTarget(options), options);
          printAnswer(options, page, (found) => formatLogPage(options, found));
        },
      ),
  );
  events.addCommand(
    withApiTargetOptions(
      new Command('resend')
        .description(
          'Send a logged event to the subscription again, as a new delivery (attempts from 0, marked with a gridwire-resend-of header).',
        )
        .requiredOption('--topic <name>', 'the topic')
        .requiredOption('--subscription <name>', 'the event subscription')
        .requiredOption('--event-id <id>', 'the id the event was published with')
        .option('--delivery-id <id>', 'which logged delivery of it (default: the newest)')
        .option(
          '--since <time>',
          'look for it from this ISO 8601 time, or this long ago (30m, 1h, 7d) (default: 24 hours ago)',
          timeArgument('--since'),
        )
        .option('--until <time>', 'look for it up to this time (default: now)', timeArgument('--until')),
    )
      .option('--json', 'print the API’s JSON answer instead of text')
      .action(
        async (
          options: ApiTargetOptions &
            JsonOption &
            SubscriptionRef & { eventId: string; deliveryId?: string; since?: string; until?: string },
        ) => {
          const answer = await resendEvent(await resolveApiTarget(options), options);
          printAnswer(
            options,
            answer,
            (sent) =>
              `Event '${sent.eventId}' queued again to ${subscriptionLabel(options)} as delivery ${sent.deliveryId} (${sent.header}).`,
          );
        },
      ),
  );
  for (const command of [...replayCommands(), recoverCommand()]) events.addCommand(command);
  return events;
}
