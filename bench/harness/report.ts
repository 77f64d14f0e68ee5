/**
 * Writes benchmark results: bench/results/latest.json, docs/BENCHMARKS.md and an SVG chart of
 * throughput and latency per second; reads the last results file back.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRICES } from '../prices';
import { billSection } from './bill-report';
import { panelFrame } from './figures';
import { soakSection, soakSvg } from './soak-report';
import { sourcesSection } from './sources-report';
import type { Figure, ReferenceKey, ReferenceRates, ScenarioResult, Share } from './types';

export interface Results {
  date: string;
  commit: string;
  quick: boolean;
  machine: { cpus: number; cpuModel: string; node: string };
  /** This machine's reference rates, measured in the run; null when it ran no throughput scenario. */
  referenceRates: ReferenceRates | null;
  durationSeconds: number;
  scenarios: ScenarioResult[];
  /**
   * Later runs of some scenarios merged into these results (`--only <names> --merge`): which, when
   * and at which commit. The header's date and commit are the base run's.
   */
  merged?: MergedRun[];
}

export interface MergedRun {
  scenarios: string[];
  date: string;
  commit: string;
  durationSeconds: number;
}

/**
 * `base` with `run`'s scenarios in place of its own of the same name (or added), in the
 * registry's order (`order`), and `run` noted among the merged runs.
 */
export function mergeResults(base: Results, run: Results, order: readonly string[]): Results {
  const ran = new Map(run.scenarios.map((scenario) => [scenario.name, scenario]));
  // In place where the base has them; scenarios it has not go before the first of a later rank.
  const scenarios = base.scenarios.map((scenario) => ran.get(scenario.name) ?? scenario);
  const rank = (name: string) => order.indexOf(name);
  for (const scenario of run.scenarios) {
    if (base.scenarios.some((kept) => kept.name === scenario.name)) continue;
    const at = scenarios.findIndex((kept) => rank(kept.name) > rank(scenario.name));
    scenarios.splice(at === -1 ? scenarios.length : at, 0, scenario);
  }
  return {
    ...base,
    scenarios,
    merged: [
      ...(base.merged ?? []),
      {
        scenarios: run.scenarios.map((scenario) => scenario.name),
        date: run.date,
        commit: run.commit,
        durationSeconds: run.durationSeconds,
      },
    ],
  };
}

const mergedNote = (results: Results): string =>
  (results.merged ?? [])
    .map(
      (run) =>
        `\nScenario${run.scenarios.length === 1 ? '' : 's'} ${run.scenarios.map((name) => `\`${name}\``).join(', ')} measured later, by \`npm run bench -- --only ${run.scenarios.join(',')} --merge\` on ${run.date} (commit \`${run.commit}\`, ${run.durationSeconds} s), in place of this run's.`,
    )
    .join('');

const ROOT = join(__dirname, '..', '..');
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'latest.json');

/** The results file the last run wrote, if there is one. */
export async function readLastResults(): Promise<Results | undefined> {
  try {
    return JSON.parse(await readFile(RESULTS_FILE, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

const REFERENCE_NAMES: Record<ReferenceKey, string> = {
  loopbackHttp: 'loopback HTTP',
  sqsRoundTrips: 'SQS round trips',
};
const showShare = (share: Share) =>
  `${typeof share.value === 'number' ? share.value.toFixed(2) : share.value}x ${REFERENCE_NAMES[share.of]}${share.eventsPerUnit === 1 ? '' : ` (${share.eventsPerUnit} events each)`}`;
/** The shares column appears only when some figure has a share (the reference ran). */
const hasShares = (results: Results) =>
  results.scenarios.some((scenario) => scenario.figures.some((figure) => figure.share !== undefined));
const verdict = (figure: Figure) =>
  figure.goal === undefined ? '' : figure.met === undefined ? 'report' : figure.met ? 'met' : 'not met';
const show = (value: number | string) => (typeof value === 'number' ? value.toLocaleString('en-US') : value);

function textTable(results: Results): string {
  const shares = hasShares(results);
  const rows = results.scenarios.flatMap((scenario) =>
    scenario.figures.map((figure) => [
      scenario.name,
      figure.metric,
      `${show(figure.value)} ${figure.unit}`.trim(),
      figure.goal ?? '',
      verdict(figure),
      ...(shares ? [figure.share === undefined ? '' : showShare(figure.share)] : []),
    ]),
  );
  const header = ['scenario', 'metric', 'measured', 'goal', '', ...(shares ? ['x reference'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function markdownTable(results: Results): string {
  const shares = hasShares(results);
  const lines = shares
    ? ['| scenario | metric | measured | goal | | x reference |', '|---|---|---|---|---|---|']
    : ['| scenario | metric | measured | goal | |', '|---|---|---|---|---|'];
  for (const scenario of results.scenarios) {
    for (const figure of scenario.figures) {
      const share = shares ? ` ${figure.share === undefined ? '' : showShare(figure.share)} |` : '';
      lines.push(
        `| ${scenario.name} | ${figure.metric} | ${show(figure.value)} ${figure.unit} | ${figure.goal ?? ''} | ${verdict(figure)} |${share}`,
      );
    }
  }
  return lines.join('\n');
}

/** The "Machine reference rates" section: the two rates, how they were taken, how shares are made. */
function referenceSection(results: Results): string {
  const rates = results.referenceRates;
  if (rates === null)
    return `Not measured in this run: the reference runs first whenever a throughput scenario runs
(\`throughput\`, \`batching\`, \`filters\`, \`overload\`), or alone with \`npm run bench -- --only reference\`.`;
  const rows = (Object.keys(REFERENCE_NAMES) as ReferenceKey[]).map((key) => {
    const rate = rates[key];
    return `| ${REFERENCE_NAMES[key]} | ${rate.rate.toLocaleString('en-US')} ${rate.unit} | ${rate.method} |`;
  });
  return `Measured in this run, before the load scenarios, so that local throughput figures can be
compared between machines as multiples of what the machine itself does: a machine of the same kind
but another speed gives other absolute rates. The goals stay absolute; the column "x reference" of
the results gives each local throughput figure also as a multiple of the reference that bounds its work.

| reference | rate | how |
|---|---|---|
${rows.join('\n')}

Unbatched, every event delivered is a webhook request of its own (publishing adds one request per
100 events), so unbatched rates in events/s are divided by the loopback HTTP rate. Batched, 100
events travel as one job: one SQS message sent, received and deleted, besides one publish and one
webhook request; so batched rates are divided by 100 and by the SQS round-trip rate.`;
}

/** A two-panel line chart: delivered events/s, and p50/p99 latency, per second of each load run. */
export function chartSvg(results: Results): string {
  const runs = results.scenarios.filter((scenario) => (scenario.timeline?.length ?? 0) > 0);
  const width = 760;
  const panelHeight = 180;
  const left = 60;
  const right = 20;
  const parts: string[] = [];
  let y = 30;
  parts.push(
    `<text x="${left}" y="18" font-size="14" font-weight="bold">Gridwire local stack, ${results.date.slice(0, 10)}, ${results.machine.cpus} CPUs${results.quick ? ' (quick run)' : ''}</text>`,
  );
  for (const run of runs) {
    const timeline = run.timeline ?? [];
    const maxSecond = Math.max(...timeline.map((point) => point.second), 1);
    const x = (second: number) => left + ((second - 1) / Math.max(1, maxSecond - 1)) * (width - left - right);
    for (const [label, series, color, max] of [
      [
        'delivered events/s',
        timeline.map((p) => p.delivered),
        '#1f77b4',
        Math.max(...timeline.map((p) => p.delivered), 1),
      ],
      [
        'latency ms (p50 green, p99 red)',
        timeline.map((p) => p.p99),
        '#d62728',
        Math.max(...timeline.map((p) => (Number.isFinite(p.p99) ? p.p99 : 0)), 1),
      ],
    ] as const) {
      const top = y + 20;
      const bottom = y + panelHeight - 20;
      const scaleY = (value: number) => bottom - (Math.min(value, max) / max) * (bottom - top);
      parts.push(
        ...panelFrame({
          label: `${run.name}: ${label}`,
          left,
          right,
          width,
          y,
          top,
          bottom,
          max,
          end: `${maxSecond} s`,
        }),
      );
      const polyline = (values: readonly number[], stroke: string) =>
        `<polyline fill="none" stroke="${stroke}" stroke-width="1.5" points="${values
          .map(
            (value, i) =>
              `${x(timeline[i]?.second ?? 1).toFixed(1)},${scaleY(Number.isFinite(value) ? value : 0).toFixed(1)}`,
          )
          .join(' ')}"/>`;
      parts.push(polyline(series, color));
      if (label.startsWith('latency'))
        parts.push(
          polyline(
            timeline.map((p) => p.p50),
            '#2ca02c',
          ),
        );
      y += panelHeight;
    }
  }
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img">\n<title>Gridwire benchmark timelines: delivered events per second and latency</title>\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

const LABELS: Record<string, string> = {
  httpApi: 'HTTP API requests',
  lambdaRequests: 'Lambda requests',
  lambdaDuration: 'Lambda duration',
  sqs: 'SQS requests',
  dynamodb: 'DynamoDB',
  s3: 'S3',
};

/** The measured cost items of each priced scenario (or each of its priced cases), largest first. */
function dominates(results: Results): string {
  const line = (label: string, breakdown: Record<string, number>) => {
    const items = Object.entries(breakdown)
      .filter(([key, value]) => key !== 'total' && value > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([key, value]) => `${LABELS[key] ?? key} $${value.toFixed(4)}`);
    return `- **${label}** ($${(breakdown.total ?? 0).toFixed(4)} per million events): ${items.join(', ')}.`;
  };
  return results.scenarios
    .flatMap((scenario) => {
      const single = scenario.details.costBreakdownPerMillion as Record<string, number> | undefined;
      const several = scenario.details.costBreakdownsPerMillion as
        | Record<string, Record<string, number>>
        | undefined;
      return [
        ...(single === undefined ? [] : [line(scenario.name, single)]),
        ...Object.entries(several ?? {}).map(([label, breakdown]) =>
          line(`${scenario.name}, ${label}`, breakdown),
        ),
      ];
    })
    .join('\n');
}

export function markdown(results: Results, names: readonly string[]): string {
  const scenarios = results.scenarios
    .map((scenario) => `- **${scenario.name}**: ${scenario.description}`)
    .join('\n');
  return `# Benchmarks

Generated by \`npm run bench${results.quick ? ' -- --quick' : ''}\` on ${results.date} (commit \`${results.commit}\`),
${results.machine.cpus} CPUs (${results.machine.cpuModel}), Node.js ${results.machine.node}; the run took
${results.durationSeconds} s. ${results.quick ? 'This was a **quick** run: shorter load phases, so the throughput goal (60 s sustained) is not judged.' : ''}${mergedNote(results)}
Machine-readable results: [\`bench/results/latest.json\`](../bench/results/latest.json).

## Machine reference rates

${referenceSection(results)}

## Results

${markdownTable(results)}

![Delivered events per second and publish-to-webhook latency per second](benchmarks.svg)

## What was run

${scenarios}

To run it: \`npm run bench\` runs every scenario (about 40 minutes); \`-- --quick\` shortens the
load phases (goals that need the full length are then reported, not judged); \`-- --only <names>\`
runs some, by the comma-separated names ${names.map((name) => `\`${name}\``).join(', ')};
with \`--merge\` as well, the last results' other scenarios are kept and only those run are replaced.
The soak runs only when named: \`npm run bench -- --only soak --merge\` (30 minutes of load, then the
drain and the ledger; \`--minutes 5\` for the short one, about 12 minutes in all), and fails (exit
status 1) when its ledger does not close. The fuzz of the management API runs only when named
too: \`npm run bench -- --only fuzz --merge\` (20,000 generated requests, five to eight minutes; the
test suite sends 1,500), its goal no answer of 500 or more.
The harness is \`bench/run.ts\` (\`bench/harness/\`), each scenario a file in \`bench/scenarios/\`.

The load scenarios run after three seconds of unmeasured load (JIT compilation, connection
set-up). Everything runs on this one machine: the local stack (API, handlers, delivery pollers) in the
benchmark's process, the emulators (fauxqs, dynalite) in a child process, and the webhook sink
in another. Publishers send at a fixed rate whatever the answers (open loop), so an overloaded
stack shows up as latency and backlog, not as a quietly reduced load.

## How to read the numbers

- **Latency** is measured from just before the publish request is sent to when the sink
  receives the event (\`data.t\` carries the send time). It includes the publish call, the queue,
  the poller's wait and the webhook request.
- **AWS requests** are counted by an SDK middleware on the clients the handlers really use, by
  service and operation. SQS requests are also counted as billed: each 64 KiB of payload is a
  request. Empty receives are the local pollers' long polls; on AWS the Lambda event source
  mapping polls too, per queue rather than per event, so the table shows SQS requests with and
  without them.
- **Lambda** invocations and durations are measured per invocation in the local runtime, rounded
  up to 1 ms and billed at the memory size the CDK stack configures (512 MB for publish and
  delivery). The delivery function's duration is mostly waiting for the webhook.
- **DynamoDB units** are counted from requests (dynalite does not report capacity): a put costs a
  write unit per started KiB of the item (sized by DynamoDB's rules), an update or delete one;
  half a read unit per eventually consistent read and a whole one per strongly consistent read
  (4 KB each). Requests that fail are counted too: a conditional put that loses its race is
  billed. Writes are also counted by the kind of item (the partition key's prefix: \`HEALTH#\`
  endpoint health, \`HISTORY#\` attempt history), with the time of every health write, so a dead
  endpoint's writes per second on its one key are measured, not estimated.
- **Cost** multiplies those counts by list prices (${PRICES.source}, taken ${PRICES.takenOn}),
  without free tiers or volume discounts, and divides by the events delivered.
- **Dead endpoint** runs on the local stack in real time (time scale 1): one worker process, so
  one health tracker sees every outcome at once. On AWS each delivery instance has its own
  tracker and learns of another's probation within the health cache time (2 s), so a dead
  endpoint there receives up to one burst (a quarter of an instance's request slots) per instance that
  meets it before then, and one probe per instance when a probation ends.
- **Held 24 h** is a model, not a measurement on AWS: the real engine in virtual time, with
  every SQS, Lambda, DynamoDB and webhook request counted as the code makes it; Lambda duration
  is the part assumed (see the scenario). An SQS delay is at most 15 minutes, so a held job is
  received, sent again and deleted every 15 minutes while it waits; at real time the last hop is
  rounded up to a whole second, so no invocation sleeps. The original
  is priced by its attempts alone ($${(PRICES.eventGrid.perOperation * 1_000_000).toFixed(2)} per million operations, ${PRICES.eventGrid.source}).

## What dominates the cost

${dominates(results)}

On the happy path a published request of 100 events becomes one SQS message per subscription,
received and deleted in batches; no database write happens. The local webhook sink answers in
about a millisecond, so delivery-function duration is small here; a webhook that takes 50 ms
keeps each delivery invocation busy longer (requests run ${'`'}deliveryConcurrency${'`'} at a time), and
Lambda duration grows with it. With failures, each job with failed attempts adds one packed
attempt-history item per subscription in DynamoDB (not one per attempt), and retry messages on
SQS (events that failed together share one retry message).

## The AWS bill

${billSection(results.scenarios)}

## Sources

${sourcesSection(results.scenarios)}
${soakSection(results.scenarios)}`;
}

/**
 * Writes the results file, the chart and docs/BENCHMARKS.md (which lists `scenarioNames`, the
 * names \`--only\` takes); returns the results as a text table.
 */
export async function writeReports(results: Results, scenarioNames: readonly string[]): Promise<string> {
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  await mkdir(join(ROOT, 'docs'), { recursive: true });
  await writeFile(join(ROOT, 'docs', 'benchmarks.svg'), chartSvg(results));
  const soak = soakSvg(results.scenarios, results.date);
  if (soak !== undefined) await writeFile(join(ROOT, 'docs', 'soak.svg'), soak);
  await writeFile(join(ROOT, 'docs', 'BENCHMARKS.md'), markdown(results, scenarioNames));
  return textTable(results);
}
