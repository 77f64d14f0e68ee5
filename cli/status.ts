/**
 * `gridwire status`: what the running local stack has counted since it started, per topic and per
 * event subscription, from the same metric points the functions emit to CloudWatch on AWS (the
 * local stack's `GET /local/status`), how many messages each queue holds, and how overdue the
 * oldest backlog wake is right now. On AWS the same figures are on the stack's CloudWatch
 * dashboard (the last as `OldestOverdueSeconds`, written by every sweep).
 */
import { Command, Option } from 'commander';
import {
  type BacklogTimersStatus,
  LOCAL_STATUS_PATH,
  type LocalStatusDocument,
  type QueueDepth,
} from '../local/status';
import { METRIC, type MetricName } from '../shared/observability/metrics';
import { localApiTarget, okData, okText, resolveApiTarget } from './admin-api';
import { CliError } from './errors';
import { dataDirOption } from './options';
import { table } from './output';

export interface TopicStatus {
  topic: string;
  /** Events accepted (`PublishSuccessCount`). */
  published: number;
  /** Refused publish requests of callers holding the topic's key (`PublishFailCount`). */
  failedPublishes: number;
  /** Deliveries created: events times subscriptions they matched (`MatchedEventCount`). */
  matched: number;
  /** Events no subscription took (`UnmatchedEventCount`). */
  unmatched: number;
}

export interface SubscriptionStatus {
  topic: string;
  /** As the metrics name it: upper case. */
  subscription: string;
  matched: number;
  delivered: number;
  attemptFailures: number;
  deadLettered: number;
  dropped: number;
  /** Deliveries held back without an attempt (probation, stalled endpoint). */
  held: number;
  /** Probations begun. */
  probations: number;
  replayed: number;
  /** `DestinationProcessingDurationInMs` over every attempt; absent before the first attempt. */
  durationMs?: { avg: number; max: number; attempts: number };
}

/** A stack-wide count by a reason or error (`{ Error: 'NotFound', ErrorType: 'ClientError' }`). */
export interface Breakdown {
  metric: MetricName;
  dimensions: Record<string, string>;
  count: number;
}

export interface StatusSummary {
  since: string;
  /** Stack-wide totals of every metric (the series without dimensions). */
  totals: Record<MetricName, number>;
  topics: TopicStatus[];
  subscriptions: SubscriptionStatus[];
  /** Publish failures by `ErrorType`/`Error`, attempt failures by `Error`/`ErrorType`, drops and dead letters by reason. */
  breakdowns: Breakdown[];
  queues: QueueDepth[];
  /** The oldest overdue backlog wake, read from the timer index when the status was asked for. */
  backlogs: BacklogTimersStatus;
}

const BREAKDOWN_DIMENSIONS: Partial<Record<MetricName, string>> = {
  PublishFailCount: 'ErrorType',
  DeliveryAttemptFailCount: 'Error',
  DroppedEventCount: 'DropReason',
  DeadLetteredCount: 'DeadLetterReason',
};

const byName = (a: string, b: string) => a.localeCompare(b);

/** Sums the local stack's metric totals into per-topic and per-subscription rows. */
export function summarizeStatus(document: LocalStatusDocument): StatusSummary {
  const totals = Object.fromEntries(Object.values(METRIC).map((name) => [name, 0])) as Record<
    MetricName,
    number
  >;
  const topics = new Map<string, TopicStatus>();
  const subscriptions = new Map<string, SubscriptionStatus>();
  const breakdowns: Breakdown[] = [];
  const topicRow = (topic: string) => {
    let row = topics.get(topic);
    if (row === undefined) {
      row = { topic, published: 0, failedPublishes: 0, matched: 0, unmatched: 0 };
      topics.set(topic, row);
    }
    return row;
  };
  const subscriptionRow = (topic: string, subscription: string) => {
    const key = `${topic}\n${subscription}`;
    let row = subscriptions.get(key);
    if (row === undefined) {
      row = {
        topic,
        subscription,
        matched: 0,
        delivered: 0,
        attemptFailures: 0,
        deadLettered: 0,
        dropped: 0,
        held: 0,
        probations: 0,
        replayed: 0,
      };
      subscriptions.set(key, row);
    }
    return row;
  };
  const SUBSCRIPTION_COLUMNS: Partial<Record<MetricName, keyof SubscriptionStatus>> = {
    MatchedEventCount: 'matched',
    DeliverySuccessCount: 'delivered',
    DeliveryAttemptFailCount: 'attemptFailures',
    DeadLetteredCount: 'deadLettered',
    DroppedEventCount: 'dropped',
    DeliveryHeldCount: 'held',
    ProbationEnteredCount: 'probations',
    ReplayedEventCount: 'replayed',
  };
  const TOPIC_COLUMNS: Partial<Record<MetricName, keyof TopicStatus>> = {
    PublishSuccessCount: 'published',
    PublishFailCount: 'failedPublishes',
    UnmatchedEventCount: 'unmatched',
  };

  for (const total of document.metrics) {
    const name = total.name as MetricName;
    const { Topic: topic, EventSubscriptionName: subscription, ...rest } = total.dimensions;
    const keys = Object.keys(total.dimensions);
    if (keys.length === 0) {
      if (name in totals) totals[name] = total.sum;
    } else if (topic !== undefined && subscription !== undefined) {
      const row = subscriptionRow(topic, subscription);
      if (name === METRIC.DestinationProcessingDurationInMs) {
        row.durationMs = {
          avg: total.samples === 0 ? 0 : Math.round(total.sum / total.samples),
          max: Math.round(total.max),
          attempts: total.samples,
        };
      }
      const column = SUBSCRIPTION_COLUMNS[name];
      if (column !== undefined) (row[column] as number) += total.sum;
      if (name === METRIC.MatchedEventCount) topicRow(topic).matched += total.sum;
    } else if (topic !== undefined) {
      const column = TOPIC_COLUMNS[name];
      if (column !== undefined) (topicRow(topic)[column] as number) += total.sum;
    } else if (BREAKDOWN_DIMENSIONS[name] !== undefined && Object.keys(rest).length > 0) {
      breakdowns.push({ metric: name, dimensions: { ...rest }, count: total.sum });
    }
  }
  return {
    since: document.since,
    totals,
    topics: [...topics.values()].sort((a, b) => byName(a.topic, b.topic)),
    subscriptions: [...subscriptions.values()].sort(
      (a, b) => byName(a.topic, b.topic) || byName(a.subscription, b.subscription),
    ),
    breakdowns: breakdowns.sort(
      (a, b) =>
        byName(a.metric, b.metric) ||
        b.count - a.count ||
        byName(JSON.stringify(a.dimensions), JSON.stringify(b.dimensions)),
    ),
    queues: document.queues,
    backlogs: document.backlogs,
  };
}

/** Reads the status of the local stack running in `dataDir`. */
export async function readLocalStatus(dataDir: string): Promise<StatusSummary> {
  const target = await localApiTarget(dataDir, '--data-dir <the directory it runs in>');
  // The local stack's own route, which the API's description (and so the typed client) does not have.
  const text = okText(await target.call('GET', LOCAL_STATUS_PATH), `reading the status of ${target.where}`);
  return summarizeStatus(JSON.parse(text) as LocalStatusDocument);
}

/** Columns aligned, two spaces apart; numbers right-aligned. */
const numbersTable = (header: readonly string[], rows: readonly (readonly string[])[]): string =>
  table(header, rows, { numbersRight: true });

const describe = (dimensions: Record<string, string>) =>
  Object.entries(dimensions)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');

/** The oldest overdue backlog wake, in a sentence. */
export function overdueLine(backlogs: BacklogTimersStatus): string {
  const { oldestOverdue: wake, oldestOverdueSeconds: seconds } = backlogs;
  if (wake === undefined) return 'Backlog wakes: none overdue.';
  return `Oldest overdue backlog wake: ${wake.topic}/${wake.subscription}, due since ${wake.dueSince} (${seconds} s).`;
}

/** The human-readable `status` output. */
export function formatStatus(summary: StatusSummary): string {
  const parts: string[] = [`Counted since ${summary.since}.`];
  parts.push(
    summary.topics.length === 0
      ? 'Topics: nothing published yet.'
      : numbersTable(
          ['TOPIC', 'PUBLISHED', 'FAILED', 'MATCHED', 'UNMATCHED'],
          summary.topics.map((row) => [
            row.topic,
            String(row.published),
            String(row.failedPublishes),
            String(row.matched),
            String(row.unmatched),
          ]),
        ),
  );
  if (summary.subscriptions.length > 0) {
    parts.push(
      numbersTable(
        [
          'TOPIC/SUBSCRIPTION',
          'DELIVERED',
          'FAILED ATTEMPTS',
          'DEAD-LETTERED',
          'DROPPED',
          'HELD',
          'PROBATIONS',
          'REPLAYED',
          'AVG MS',
          'MAX MS',
        ],
        summary.subscriptions.map((row) => [
          `${row.topic}/${row.subscription}`,
          String(row.delivered),
          String(row.attemptFailures),
          String(row.deadLettered),
          String(row.dropped),
          String(row.held),
          String(row.probations),
          String(row.replayed),
          row.durationMs === undefined ? '-' : String(row.durationMs.avg),
          row.durationMs === undefined ? '-' : String(row.durationMs.max),
        ]),
      ),
    );
  }
  const failed = summary.totals.PublishFailCount;
  const attributed = summary.topics.reduce((sum, row) => sum + row.failedPublishes, 0);
  if (failed > attributed) {
    parts.push(
      `${failed - attributed} failed publish request(s) came before the caller authenticated (no topic is named for them).`,
    );
  }
  if (summary.breakdowns.length > 0) {
    parts.push(
      numbersTable(
        ['METRIC', 'BY', 'COUNT'],
        summary.breakdowns.map((row) => [row.metric, describe(row.dimensions), String(row.count)]),
      ),
    );
  }
  parts.push(overdueLine(summary.backlogs));
  parts.push(
    numbersTable(
      ['QUEUE', 'WAITING', 'IN FLIGHT', 'DELAYED', 'REDRIVE'],
      summary.queues.map((row) => [
        row.queue,
        String(row.visible),
        String(row.inFlight),
        String(row.delayed),
        String(row.redrive),
      ]),
    ),
  );
  return parts.join('\n\n');
}

/** What `gridwire status` prints. */
export async function statusOutput(options: { dataDir: string; json?: boolean }): Promise<string> {
  const summary = await readLocalStatus(options.dataDir);
  return options.json === true ? JSON.stringify(summary, null, 2) : formatStatus(summary);
}

/** Where a stack's requests to endpoints leave from (`GET /admin/egress`). */
export interface EgressStatus {
  addresses: string[];
  staticAddresses: boolean;
  proxy: boolean;
}

/** The egress lines: the addresses receivers allow-list, or that there are none fixed. */
export function formatEgress(egress: EgressStatus, where: 'aws' | 'local'): string {
  const via = egress.proxy ? ' through the egress proxy' : '';
  if (egress.staticAddresses) {
    return `Egress       ${egress.addresses.join(', ')}${via}  (fixed: receivers may allow-list these)`;
  }
  return where === 'aws'
    ? `Egress       no fixed addresses${via}: requests leave from Lambda's shared addresses (the egress prop's staticIps gives fixed ones)`
    : `Egress       this machine's addresses${via}`;
}

/**
 * What `gridwire status --api <url>` prints of a deployed stack: where its requests leave from.
 * Its counts are on the stack's CloudWatch dashboard, not behind the API.
 */
export async function deployedStatusOutput(options: {
  api: string;
  region?: string;
  json?: boolean;
}): Promise<string> {
  const target = await resolveApiTarget({
    dataDir: '',
    api: options.api,
    ...(options.region === undefined ? {} : { region: options.region }),
  });
  const egress = okData(
    await target.client.GET('/admin/egress'),
    'read where requests leave from',
  ) as EgressStatus;
  if (options.json === true) return JSON.stringify({ egress }, null, 2);
  return [
    `Gridwire at ${options.api}`,
    formatEgress(egress, 'aws'),
    "Counts       on the stack's CloudWatch dashboard (gridwire status counts the local stack's)",
  ].join('\n');
}

export function statusCommand(): Command {
  return new Command('status')
    .description(
      "What the running local stack has counted since it started: events published, matched, delivered, failed, dead-lettered and dropped, per topic and per event subscription, the queue depths, and the oldest overdue backlog wake. With --api, where a deployed stack's requests to endpoints leave from (its fixed egress addresses).",
    )
    .addOption(dataDirOption('data directory of the local stack to read'))
    .addOption(
      new Option(
        '--api <url>',
        'a deployed API (the ApiUrl stack output): show where its deliveries leave from (signed with your AWS credentials)',
      ),
    )
    .addOption(
      new Option('--region <region>', "the API's AWS region (default: from the URL, else AWS_REGION)"),
    )
    .option('--json', 'print the figures as JSON')
    .action(async (options: { dataDir: string; json?: boolean; api?: string; region?: string }) => {
      if (options.api === undefined) {
        if (options.region !== undefined) throw new CliError('--region goes with --api');
        console.log(await statusOutput(options));
        return;
      }
      console.log(
        await deployedStatusOutput({
          api: options.api,
          ...(options.region === undefined ? {} : { region: options.region }),
          ...(options.json === undefined ? {} : { json: options.json }),
        }),
      );
    });
}
