/**
 * `gridwire health`: the endpoint health of a topic's subscriptions (healthy, on probation,
 * unhealthy, or disabled after a 410 Gone) and what each one's backlog holds, and `gridwire health enable`, which lets a
 * subscription's endpoint take deliveries again. A client of the management API
 * (`.../eventSubscriptions` and `.../eventSubscriptions/{subscription}/health|enable`, of a classic
 * topic, or with `--namespace` of a namespace topic), local by default or `--api` (see
 * `admin-api.ts`).
 */
import { Command } from 'commander';
import type { HealthDocument, provisioningProperties } from '../shared/management/resource-documents';
import { mapWithConcurrency } from '../shared/platform/concurrency';
import {
  type ApiTarget,
  type ApiTargetOptions,
  namespaceOption,
  okData,
  resolveApiTarget,
  type SubscriptionRef,
  subscriptionLabel,
  subscriptionRoute,
  type TopicRef,
  topicLabel,
  topicRoute,
  withApiTargetOptions,
} from './admin-api';
import { table } from './output';
import { noSubscriptions } from './text';

/** Health reads in flight at once for one topic. */
export const HEALTH_READS_IN_FLIGHT = 8;

/**
 * One subscription's endpoint health, as the API answers it, with its provisioning state (an API
 * from before it was part of the health answers without it).
 */
export type EndpointHealthAnswer = HealthDocument & Partial<ReturnType<typeof provisioningProperties>>;

export interface SubscriptionHealth extends EndpointHealthAnswer {
  subscription: string;
}

/**
 * The health of every subscription of the topic, in the order the API lists them. A
 * subscription deleted between the list and its health read is left out.
 */
export async function topicHealth(target: ApiTarget, ref: TopicRef): Promise<SubscriptionHealth[]> {
  const listed = okData(
    await target.client.GET(topicRoute(ref, '/eventSubscriptions'), { params: { path: ref } }),
    `listing the subscriptions of ${topicLabel(ref)}`,
  );
  const names = listed.value.map((item) => item.name);
  const rows = await mapWithConcurrency(names, HEALTH_READS_IN_FLIGHT, async (subscription) => {
    const one = { ...ref, subscription };
    const result = await target.client.GET(subscriptionRoute(one, '/health'), { params: { path: one } });
    if (result.response.status === 404) return undefined;
    const health: EndpointHealthAnswer = okData(result, `reading the health of ${subscriptionLabel(one)}`);
    return { subscription, ...health };
  });
  return rows.filter((row): row is SubscriptionHealth => row !== undefined);
}

/** Enables the subscription's endpoint (forgets its failures); answers once workers see it. */
export async function enableEndpoint(target: ApiTarget, ref: SubscriptionRef): Promise<SubscriptionHealth> {
  const health: EndpointHealthAnswer = okData(
    await target.client.POST(subscriptionRoute(ref, '/enable'), { params: { path: ref } }),
    `enabling ${subscriptionLabel(ref)}`,
  );
  return { subscription: ref.subscription, ...health };
}

const HEADER = [
  'SUBSCRIPTION',
  'STATE',
  'FAILURES',
  'PROBATION UNTIL',
  'LAST OUTCOME',
  'LAST FAILURE',
  'LAST SUCCESS',
  'HELD',
  'HELD UNTIL',
] as const;

/** The backlog's events and what it is doing (`1200 Holding`); `-` when it holds nothing. */
const heldCell = (held: SubscriptionHealth['held'] | undefined): string =>
  held === null || held === undefined ? '-' : `${held.events} ${held.state}`;

/**
 * The STATE cell: the endpoint's health, unless it has not agreed to receive yet (the validation
 * handshake): then nothing is sent to it, whatever its health, and the cell says why.
 */
const stateCell = (row: SubscriptionHealth): string =>
  row.provisioningState === undefined || row.provisioningState === 'Succeeded'
    ? row.state
    : `${row.provisioningState} (not validated${row.endpointValidation?.handshakeError === undefined ? '' : `: ${row.endpointValidation.handshakeError}`})`;

const cellsOf = (row: SubscriptionHealth): string[] => [
  row.subscription,
  stateCell(row),
  String(row.consecutiveFailures),
  // A disabled or paused endpoint takes nothing until enabled or resumed: a probation end would mislead.
  row.state === 'Disabled' || row.state === 'Paused' ? '-' : (row.probationUntil ?? '-'),
  row.lastOutcome ?? '-',
  row.lastFailureAt ?? '-',
  row.lastSuccessAt ?? '-',
  // An API from before backlogs answers without `held`.
  heldCell(row.held),
  row.held?.until ?? '-',
];

/** The human-readable `health` output: one line per subscription, columns aligned. */
export function formatHealth(ref: TopicRef, rows: readonly SubscriptionHealth[]): string {
  if (rows.length === 0) {
    return noSubscriptions(ref);
  }
  return table(HEADER, rows.map(cellsOf));
}

export function healthCommand(): Command {
  const health = new Command('health')
    .description(
      "Endpoint health of a topic's event subscriptions: Healthy, Probation, Unhealthy or Disabled (answered 410 Gone).",
    )
    .addHelpText(
      'after',
      '\nWithout a command, lists: gridwire health --topic <name> [--namespace <name>] [--json]\n' +
        'With --namespace, --topic names a topic of that namespace.',
    );

  // The default: `gridwire health --topic T` is `gridwire health list --topic T`.
  health.addCommand(
    withApiTargetOptions(
      new Command('list')
        .description("Show the endpoint health of each of the topic's event subscriptions.")
        .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
        .addOption(namespaceOption())
        .option('--json', 'print a JSON array instead of a table'),
    ).action(async (options: ApiTargetOptions & TopicRef & { json?: boolean }) => {
      const rows = await topicHealth(await resolveApiTarget(options), options);
      console.log(options.json === true ? JSON.stringify(rows, null, 2) : formatHealth(options, rows));
    }),
    { isDefault: true },
  );

  health.addCommand(
    withApiTargetOptions(
      new Command('enable')
        .description(
          "Let a subscription's endpoint take deliveries again: forgets its failures, ends a probation and re-enables an endpoint disabled by 410 Gone.",
        )
        .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
        .addOption(namespaceOption())
        .requiredOption('--subscription <name>', 'the event subscription')
        .option('--json', 'print the health document as JSON'),
    ).action(async (options: ApiTargetOptions & SubscriptionRef & { json?: boolean }) => {
      const row = await enableEndpoint(await resolveApiTarget(options), options);
      console.log(
        options.json === true
          ? JSON.stringify(row, null, 2)
          : `Enabled ${subscriptionLabel(options)}: ${row.state}.`,
      );
    }),
  );
  return health;
}
