/**
 * The soak's part of docs/BENCHMARKS.md: its fault timeline, its ledger per subscription and a
 * chart (docs/soak.svg) of what it accepted and settled, the stack's memory and the worst overdue
 * event, minute by minute. Empty when the results hold no soak.
 */

import type { LedgerClose } from '../soak/ledger';
import type { FaultRecord, SoakMinute } from '../soak/outcome';
import { panelFrame } from './figures';
import type { ScenarioResult } from './types';

interface SoakDetails {
  measured: { date: string; commit: string };
  faults: FaultRecord[];
  minutes: SoakMinute[];
  ledger: LedgerClose;
}

const soakOf = (scenarios: readonly ScenarioResult[]): SoakDetails | undefined => {
  const found = scenarios.find((scenario) => scenario.name === 'soak');
  return found === undefined ? undefined : (found.details as unknown as SoakDetails);
};

const count = (n: number) => n.toLocaleString('en-US');

/** The markdown section (with a leading heading), or '' without a soak in the results. */
export function soakSection(scenarios: readonly ScenarioResult[]): string {
  const soak = soakOf(scenarios);
  if (soak === undefined) return '';
  const faults = soak.faults
    .map(
      (fault) =>
        `| ${fault.startedAtSeconds} | ${fault.description} | ${fault.lastedSeconds}${fault.restartSeconds === undefined ? '' : ` (serving again after ${fault.restartSeconds.toFixed(1)})`} | ${fault.error ?? fault.exit ?? ''} |`,
    )
    .join('\n');
  const ledger = soak.ledger.bySubscription
    .map(
      (tally) =>
        `| ${tally.subscription} | ${count(tally.accepted)} | ${count(tally.delivered)} | ${count(tally.deadLettered)} | ${count(tally.dropped)} | ${count(tally.missing)} | ${count(tally.duplicated)} (${count(tally.unexplainedDuplicates)}) | ${count(tally.attempts)} |`,
    )
    .join('\n');
  const reasons = Object.entries({ ...soak.ledger.deadLetterReasons, ...soak.ledger.dropReasons })
    .map(([reason, n]) => `${reason} ${count(n)}`)
    .join(', ');
  const minutes = soak.minutes
    .map(
      (row) =>
        `| ${row.minute} | ${count(row.accepted)} | ${count(row.settled)} | ${row.rssMb ?? ''} | ${row.pssMb ?? ''} | ${row.worstUnattemptedSeconds}${row.worstUnattemptedSubscription === undefined || row.worstUnattemptedSeconds < 10 ? '' : ` (${row.worstUnattemptedSubscription})`} | ${row.worstStackOverdueSeconds ?? ''}${row.overdueWakes.length === 0 ? '' : ` (${row.overdueWakes.join(', ')})`} | ${row.worstVisibleMessages}${row.worstVisibleQueue === undefined || row.worstVisibleMessages < 100 ? '' : ` (${row.worstVisibleQueue})`} | ${row.faults.join(', ')} |`,
    )
    .join('\n');
  return `## Soak

Measured on ${soak.measured.date} (commit \`${soak.measured.commit}\`) by \`npm run bench -- --only soak
--merge\` (30 minutes of load; \`--minutes N\` for another length); a run of every scenario leaves
it out and keeps its last results. What it runs is in its entry under [What was run](#what-was-run);
its figures are in the results table.

![The soak, minute by minute: events accepted and settled, the stack's resident memory, the worst overdue event](soak.svg)

**Faults**, in the order they ran (seconds after the load began):

| at (s) | fault | lasted (s) | outcome |
|---|---|---|---|
${faults}

**Ledger** by subscription (duplicates: events delivered more than once, and in brackets those no fault explains; attempts: requests seen at the webhook for its events):

| subscription | accepted | delivered | dead-lettered | dropped | missing | duplicated (unexplained) | attempts |
|---|---|---|---|---|---|---|---|
${ledger}

Reasons: ${reasons || 'none'}.${soak.ledger.missingSample.length === 0 ? '' : ` Missing, first ids: ${soak.ledger.missingSample.join(', ')}.`}

**Minute by minute** (memory: the stack's process tree at the minute's last sample; overdue: the
worst 10 s sample, the ledger's with the subscription of its oldest waiting event (from 10 s) and
the stack's own with the subscriptions it named; visible: messages waiting in the delivery queues,
most at once, with the queue that held the most (from 100)):

| minute | accepted | settled | RSS MB | PSS MB | overdue, ledger (s) | overdue, stack (s) | visible | faults |
|---|---|---|---|---|---|---|---|---|
${minutes}
`;
}

/** docs/soak.svg: three panels over the soak's minutes, or undefined without a soak. */
export function soakSvg(scenarios: readonly ScenarioResult[], date: string): string | undefined {
  const soak = soakOf(scenarios);
  if (soak === undefined || soak.minutes.length === 0) return undefined;
  const rows = soak.minutes;
  const width = 760;
  const panelHeight = 170;
  const left = 60;
  const right = 20;
  const parts: string[] = [
    `<text x="${left}" y="18" font-size="14" font-weight="bold">Gridwire soak, ${date.slice(0, 10)}: minute by minute (faults marked)</text>`,
  ];
  const last = Math.max(1, rows.length - 1);
  const x = (minute: number) => left + (minute / last) * (width - left - right);
  let y = 30;
  const panels: Array<{ label: string; series: Array<{ values: number[]; color: string }> }> = [
    {
      label: 'events per minute: accepted (blue), settled (green)',
      series: [
        { values: rows.map((row) => row.accepted), color: '#1f77b4' },
        { values: rows.map((row) => row.settled), color: '#2ca02c' },
      ],
    },
    {
      label: "the stack's process tree, resident MB",
      series: [{ values: rows.map((row) => row.rssMb ?? 0), color: '#9467bd' }],
    },
    {
      label: 'worst overdue, s: ledger (red), stack (orange)',
      series: [
        { values: rows.map((row) => row.worstUnattemptedSeconds), color: '#d62728' },
        { values: rows.map((row) => row.worstStackOverdueSeconds ?? 0), color: '#ff7f0e' },
      ],
    },
  ];
  for (const panel of panels) {
    const top = y + 20;
    const bottom = y + panelHeight - 20;
    const max = Math.max(1, ...panel.series.flatMap((series) => series.values));
    const scaleY = (value: number) => bottom - (Math.min(value, max) / max) * (bottom - top);
    parts.push(
      ...panelFrame({
        label: panel.label,
        left,
        right,
        width,
        y,
        top,
        bottom,
        max,
        end: `minute ${rows.length - 1}`,
      }),
    );
    for (const row of rows) {
      if (row.faults.length > 0) {
        parts.push(
          `<line x1="${x(row.minute).toFixed(1)}" y1="${top}" x2="${x(row.minute).toFixed(1)}" y2="${bottom}" stroke="#bbb" stroke-dasharray="3,3"><title>${row.faults.join(', ')}</title></line>`,
        );
      }
    }
    for (const series of panel.series) {
      parts.push(
        `<polyline fill="none" stroke="${series.color}" stroke-width="1.5" points="${series.values
          .map((value, minute) => `${x(minute).toFixed(1)},${scaleY(value).toFixed(1)}`)
          .join(' ')}"/>`,
      );
    }
    y += panelHeight;
  }
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" role="img">\n<title>Gridwire soak: events, memory and overdue events per minute</title>\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}
