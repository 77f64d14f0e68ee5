/**
 * `gridwire events show`: what happened to one event at one subscription, from the delivery
 * history (`GET .../eventSubscriptions/{subscription}/deliveries?eventId=`): each delivery of it
 * (a replay is another), where it stands, and every attempt on record. The history keeps failed
 * attempts and what followed them, so an event delivered at its first attempt has none: the
 * command says so plainly rather than printing an empty list.
 */
import { Command } from 'commander';
import {
  type ApiTarget,
  type ApiTargetOptions,
  callOk,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionAdminPath,
  subscriptionLabel,
  withApiTargetOptions,
} from './admin-api';
import { type JsonOption, printAnswer, table } from './output';

/** One delivery of the event, as the API shows it. */
export interface DeliveryHistory {
  eventId: string;
  deliveryId: string;
  publishTime: string;
  status: 'Retrying' | 'Delivered' | 'DeadLettered' | 'Dropped';
  reason?: string;
  nextAttemptTime?: string;
  attempts: Array<{
    attempt: number;
    time: string;
    outcome: string;
    httpStatus?: number;
    durationMs?: number;
    error?: string;
  }>;
}

/** The lookup's answer: the deliveries found, and the window searched. */
export interface EventHistory {
  value: DeliveryHistory[];
  searched: { since: string; until: string };
  truncated: boolean;
}

/** The event's delivery history at the subscription, in [since, until) (default: the last 24 hours). */
export async function eventHistory(
  target: ApiTarget,
  options: SubscriptionRef & { eventId: string; since?: string; until?: string },
): Promise<EventHistory> {
  const query = new URLSearchParams({ eventId: options.eventId });
  if (options.since !== undefined) query.set('since', options.since);
  if (options.until !== undefined) query.set('until', options.until);
  const text = await callOk(
    target,
    'GET',
    `${subscriptionAdminPath(options)}/deliveries?${query}`,
    undefined,
    `reading the delivery history of ${subscriptionLabel(options)}`,
  );
  return JSON.parse(text) as EventHistory;
}

/** The history for a person: each delivery's state and its attempts, or why there is no record. */
export function formatEventHistory(ref: SubscriptionRef, eventId: string, history: EventHistory): string {
  const window = `between ${history.searched.since} and ${history.searched.until}`;
  const more = history.truncated
    ? [`The search stopped before the whole window: ask again with --until ${history.searched.since}.`]
    : [];
  if (history.value.length === 0) {
    return [
      `No record of event '${eventId}' at ${subscriptionLabel(ref)} ${window}.`,
      'The history keeps failed attempts and what followed them: an event delivered at its first attempt',
      'leaves no record, and neither does one never published to this subscription.',
      ...more,
    ].join('\n');
  }
  const lines: string[] = [];
  for (const delivery of history.value) {
    const standing =
      delivery.status === 'Retrying' && delivery.nextAttemptTime !== undefined
        ? `Retrying, next attempt at ${delivery.nextAttemptTime}`
        : delivery.reason === undefined
          ? delivery.status
          : `${delivery.status} (${delivery.reason})`;
    lines.push(
      `Event '${delivery.eventId}', delivery ${delivery.deliveryId}, published ${delivery.publishTime}: ${standing}.`,
    );
    lines.push(
      table(
        ['ATTEMPT', 'TIME', 'OUTCOME', 'STATUS', 'DURATION', 'ERROR'],
        delivery.attempts.map((attempt) => [
          String(attempt.attempt),
          attempt.time,
          attempt.outcome,
          attempt.httpStatus === undefined ? '-' : String(attempt.httpStatus),
          attempt.durationMs === undefined ? '-' : `${attempt.durationMs} ms`,
          attempt.error ?? '',
        ]),
      ),
    );
  }
  return [...lines, ...more].join('\n');
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
        .option('--since <time>', 'search from this ISO 8601 time (default: 24 hours ago)')
        .option('--until <time>', 'search up to this ISO 8601 time (default: now)'),
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
  return events;
}
