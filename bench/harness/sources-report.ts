/**
 * The "Sources" section of docs/BENCHMARKS.md: what a topic's source costs per million events, every
 * line item of every case of the `sources` scenario, against EventBridge API destinations, the HTTP
 * publish API (the `bill` scenario's cases) and a forwarder of your own.
 */
import { PRICES } from '../prices';
import type { CostLine } from '../sources';
import type { ScenarioResult } from './types';

/** A line as the results file keeps it: its basis in words. */
type LineDetails = Omit<CostLine, 'basis'> & { basis: string };

interface OptionDetails {
  label: string;
  total: number;
  totalExcludingDataTransferOut: number;
  lines: LineDetails[];
}

interface SourceCaseDetails {
  case: { key: string; kind: string; eventsPerMessage: number; producer: string };
  messagesPerInvocation: number;
  billedMsPerInvocation: number;
  latencyMs: { p50: number; p99: number };
  perMillion: Record<'source' | 'ingest' | 'delivery' | 'apiDestinations' | 'forwarder', OptionDetails>;
  measured: { ingest: { events: number; publishInvocations: number } };
}

/** The bill's cases the HTTP publish API is shown by: 1 event a request at 500/s, 100 a request. */
export const HTTP_PUBLISH_CASES: ReadonlyArray<[key: string, label: string]> = [
  [
    '1 per request at 500 events/s, 100 ms webhook, no batching window',
    'HTTP publish API, 1 event a request, 500/s',
  ],
  ['100 per request, 100 ms webhook', 'HTTP publish API, 100 events a request'],
];

interface BillCaseTotals {
  case: { key: string };
  perMillion: { total: number; totalExcludingDataTransferOut: number };
  perMillionViaFunctionUrl?: { total: number; totalExcludingDataTransferOut: number };
}

const dollars = (value: number | undefined) =>
  value === undefined
    ? ''
    : value === 0
      ? '0'
      : value >= 1
        ? value.toFixed(2)
        : value >= 0.0001
          ? value.toFixed(4)
          : value.toExponential(1);

const quantity = (value: number) =>
  value === 0
    ? '0'
    : value >= 100
      ? Math.round(value).toLocaleString('en-US')
      : value >= 0.01
        ? value.toFixed(2)
        : value.toExponential(1);

/** A line's unit price as the pricing pages give it. */
export function unitPrice(line: Pick<LineDetails, 'unit' | 'unitPrice'>): string {
  if (line.unit === 'USD') return 'as the bill';
  if (line.unit === 'GB-s') return `$${line.unitPrice} per GB-s`;
  if (line.unit === 'GB') return `$${line.unitPrice.toFixed(3)} per GB`;
  return `$${(line.unitPrice * 1_000_000).toFixed(2)} per million ${line.unit}`;
}

/** Every line of the cases, once, in the order the options list them. */
function allLines(cases: readonly SourceCaseDetails[]): LineDetails[] {
  const seen = new Map<string, LineDetails>();
  for (const option of ['source', 'forwarder', 'apiDestinations'] as const) {
    for (const c of cases)
      for (const line of c.perMillion[option].lines) if (!seen.has(line.key)) seen.set(line.key, line);
  }
  return [...seen.values()];
}

/** The section, or a note when the run did not include the `sources` scenario. */
export function sourcesSection(scenarios: readonly ScenarioResult[]): string {
  const found = scenarios.find((scenario) => scenario.name === 'sources');
  if (found === undefined) return 'Not run this time: `npm run bench -- --only sources --merge`.';
  const cases = (found.details.cases ?? []) as SourceCaseDetails[];
  const bill = scenarios.find((scenario) => scenario.name === 'bill');
  const billCases = (bill?.details.cases ?? []) as BillCaseTotals[];
  const idle = (
    found.details.assumptions as
      | { idlePollingPerSourceQueue?: { monthly: number; receivesPerMonth: number } }
      | undefined
  )?.idlePollingPerSourceQueue;

  const summary = [
    '| per million events | messages per invocation / billed ms each | ingest side | delivery side | **all-in, excluding data transfer out** | all-in |',
    '|---|---:|---:|---:|---:|---:|',
    ...cases.flatMap((c) => [
      `| (${c.case.kind === 'eventBridge' ? 'b' : 'a'}) ${c.case.key} | ${c.messagesPerInvocation} / ${c.billedMsPerInvocation} ms | ${dollars(c.perMillion.ingest.total)} | ${dollars(c.perMillion.delivery.totalExcludingDataTransferOut)} | **${dollars(c.perMillion.source.totalExcludingDataTransferOut)}** | ${dollars(c.perMillion.source.total)} |`,
      `| (e) the same with a forwarder of your own | | | | ${dollars(c.perMillion.forwarder.totalExcludingDataTransferOut)} | ${dollars(c.perMillion.forwarder.total)} |`,
    ]),
    `| (c) EventBridge bus, rule -> API destination | | ${dollars(cases[0]?.perMillion.apiDestinations.total)} | included | **${dollars(cases[0]?.perMillion.apiDestinations.total)}** | ${dollars(cases[0]?.perMillion.apiDestinations.total)} (no data transfer priced) |`,
    ...HTTP_PUBLISH_CASES.flatMap(([key, label]) => {
      const billCase = billCases.find((c) => c.case.key === key);
      if (billCase === undefined) return [];
      const viaUrl = billCase.perMillionViaFunctionUrl;
      return [
        `| (d) ${label} (bill scenario) | | | | **${dollars(billCase.perMillion.totalExcludingDataTransferOut)}** | ${dollars(billCase.perMillion.total)} |`,
        ...(viaUrl === undefined
          ? []
          : [
              `| (d) ${label}, function URL ingress (bill scenario) | | | | ${dollars(viaUrl.totalExcludingDataTransferOut)} | ${dollars(viaUrl.total)} |`,
            ]),
      ];
    }),
  ];

  const lines = allLines(cases);
  const costOf = (c: SourceCaseDetails, key: string) => {
    for (const option of ['source', 'forwarder', 'apiDestinations'] as const) {
      const line = c.perMillion[option].lines.find((one) => one.key === key);
      if (line !== undefined) return line;
    }
    return undefined;
  };
  const inOption = (c: SourceCaseDetails, option: 'source' | 'forwarder' | 'apiDestinations', key: string) =>
    c.perMillion[option].lines.some((line) => line.key === key);
  const header = `| line item | unit price | ${cases.map((_c, i) => `case ${i + 1}`).join(' | ')} |`;
  const rule = `|---|---|${cases.map(() => '---:').join('|')}|`;
  const rows = lines.map((line) => {
    const inSource = cases.filter((c) => inOption(c, 'source', line.key));
    const kinds = new Set(inSource.map((c) => c.case.kind));
    const where =
      inSource.length === cases.length
        ? ''
        : inSource.length > 0
          ? kinds.has('sqs')
            ? ' (a)'
            : ' (b)'
          : cases.some((c) => inOption(c, 'forwarder', line.key))
            ? ' (e only)'
            : ' (c only)';
    return `| ${line.label}${where} | ${unitPrice(line)} | ${cases
      .map((c) => {
        const one = costOf(c, line.key);
        return one === undefined
          ? ''
          : `${dollars(one.cost)}${one.unit === 'USD' ? '' : ` (${quantity(one.quantity)} ${one.unit})`}`;
      })
      .join(' | ')} |`;
  });
  const totals = (option: 'source' | 'forwarder' | 'apiDestinations', label: string) =>
    `| ${label} | | ${cases.map((c) => `${dollars(c.perMillion[option].totalExcludingDataTransferOut)} / ${dollars(c.perMillion[option].total)}`).join(' | ')} |`;
  const caseList = cases.map((c, i) => `${i + 1}. ${c.case.key}`).join('\n');
  return `${found.description}

Dollars per million events delivered, excluding data transfer out (the webhook requests' bytes
leaving AWS, $${PRICES.dataTransfer.outToInternetPerGb}/GB; EventBridge's pricing page lists no data transfer charge for API
destinations but between regions, so (c) has none) and with it:

${summary.join('\n')}

Every line item, dollars per million events (the quantity per million events in brackets):

${caseList}

${header}
${rule}
${rows.join('\n')}
${totals('source', '**(a) / (b) all-in, excluding data transfer out / with it**')}
${totals('forwarder', '(e) all-in with a forwarder, excluding data transfer out / with it')}
${totals('apiDestinations', '(c) API destinations')}

What is measured and what is not:

- **Measured on the emulators**: the producer's \`SendMessage\` or \`SendMessageBatch\` calls (billed
  per 64 KiB chunk), the pollers' \`ReceiveMessage\` calls that returned messages and their
  \`DeleteMessageBatch\` calls, the publish function's invocations and their billed ms (wall time
  of each invocation of its process, rounded up to 1 ms, at 512 MB), its CPU time (stretched to
  the share of a vCPU Lambda gives 512 MB), the SQS requests and DynamoDB units its publish path
  makes, its metric records, and the whole delivery side as the bill measures it.
- **Lambda's pollers** are emulated (\`local/poller.ts\`): five, long polls of 20 s, up to 10
  messages a receive, more pollers while receives come back full, one delete per batch. On AWS
  Lambda runs them and bills their receives and deletes to the queue's owner, as priced here;
  their empty receives of an idle queue are a fixed cost, ${idle === undefined ? 'about $0.26' : `$${idle.monthly.toFixed(2)}`} a month per source queue
  (${idle === undefined ? '648,000' : idle.receivesPerMonth.toLocaleString('en-US')} receives of 5 pollers every 20 s), not per event. How many
  messages an invocation gets depends on how they arrive: a producer's batches of ten arrive
  together and are received together; single sends at 500 a second about five a receive; a
  backlog full batches.
- **Assumed or modelled**: PutEvents ($${(PRICES.eventBridge.perCustomEvent * 1_000_000).toFixed(2)} per million 64 KB chunks, custom events; events of AWS
  services on the default bus are free, for (b) and (c) alike) and API destination invocations
  ($${(PRICES.eventBridge.perApiDestinationInvocation * 1_000_000).toFixed(2)} per million, one per event and attempt); for a bus source, the rule's SQS target
  sending each matching event as one message (the case sends them so); the forwarder of (e)
  (128 MB, as long as the publish function took for the batch and 15 ms more for the HTTPS round
  trip, one HTTP API request of the whole batch, its access log line); cold starts (10 per million
  events per function, INIT as the bill measured it).

A source publishes the readable messages of a batch together, as one publish (each alone only
when the topic refuses them together), so a batch's events cost one send to the delivery queue
(per subscription), whatever the messages they came in.
EventBridge API destinations deliver each event as one request (no batching), sign nothing
(a connection adds a header: an API key, basic or OAuth credentials), keep no per-endpoint
health, send events that failed to an SQS dead-letter queue (not to S3 with the request and its
answers), retry for 24 hours at most, and invoke a destination at most 300 times a second by
default (an adjustable quota); a source's events are delivered as every topic's are.`;
}
