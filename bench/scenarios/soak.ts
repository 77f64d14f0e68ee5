/**
 * The soak (`npm run bench -- --only soak [--minutes N]`, 30 minutes by default; left out of a
 * plain `npm run bench`): the local stack in a process of its own under a third of this machine's
 * measured peak, a mix of endpoints and a schedule of faults (`../soak/`), then a ledger of every
 * accepted event. The run fails if the ledger does not close.
 */
import { execSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { round } from '../harness/figures';
import { log } from '../harness/log';
import type { Figure, Scenario, ScenarioResult } from '../harness/types';
import { faultSchedule } from '../soak/faults';
import { SOAK_SUBSCRIPTIONS } from '../soak/mix';
import type { SoakOutcome } from '../soak/outcome';
import { runSoak } from '../soak/run';

const DEFAULT_MINUTES = 30;

function commitOf(): string {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}
/** The unbatched throughput this machine sustained when no earlier result says (docs/BENCHMARKS.md). */
const FALLBACK_PEAK_EVENTS_PER_SECOND = 3971;
const THROUGHPUT_FIGURE = 'delivered per second while publishing (mean)';
const TIME_SCALE = 10;
const MB = 1e6;

/** The unbatched peak of the last full results on file (`throughput`), or the fallback. */
async function measuredPeak(): Promise<{ eventsPerSecond: number; source: string }> {
  try {
    const text = await readFile(join(__dirname, '..', 'results', 'latest.json'), 'utf8');
    const results = JSON.parse(text) as {
      date: string;
      quick: boolean;
      scenarios: Array<{ name: string; figures: Array<{ metric: string; value: unknown }> }>;
    };
    const figure = results.scenarios
      .find((scenario) => scenario.name === 'throughput')
      ?.figures.find((candidate) => candidate.metric === THROUGHPUT_FIGURE);
    if (!results.quick && typeof figure?.value === 'number') {
      return {
        eventsPerSecond: figure.value,
        source: `the throughput scenario of ${results.date.slice(0, 10)}`,
      };
    }
  } catch {
    // No results on file: the fallback.
  }
  return {
    eventsPerSecond: FALLBACK_PEAK_EVENTS_PER_SECOND,
    source: 'the throughput figure in docs/BENCHMARKS.md',
  };
}

const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : round(bytes / MB, 0));
const count = (n: number) => n.toLocaleString('en-US');

export function soakResult(outcome: SoakOutcome, peakSource: string): ScenarioResult {
  const { ledger, memory, options } = outcome;
  const idle = memory.idleBefore?.totalRssBytes;
  const after = memory.afterMinute?.totalRssBytes;
  const offeredRate = round(
    outcome.traffic.offeredPerSecond.reduce((a, b) => a + b, 0) / (options.minutes * 60),
    0,
  );
  const serverErrors = Object.entries(outcome.traffic.byStatus)
    .filter(([status]) => Number(status) >= 500 && status !== '503')
    .reduce((sum, [, n]) => sum + n, 0);
  const figures: Figure[] = [
    {
      metric: 'events offered / accepted (answered 200)',
      value: `${count(ledger.offered)} / ${count(ledger.accepted)}`,
      unit: 'events',
    },
    { metric: 'offered per second (mean over the load)', value: offeredRate, unit: 'events/s' },
    {
      metric: 'ledger: accepted = delivered + dead-lettered + dropped + missing',
      value: `${count(ledger.accepted)} = ${count(ledger.delivered)} + ${count(ledger.deadLettered)} + ${count(ledger.dropped)} + ${count(ledger.missing)}`,
      unit: 'events',
      goal: '0 missing',
      met: ledger.closed,
    },
    {
      metric: 'events delivered more than once / of them with no fault to explain them',
      value: `${count(ledger.duplicated)} / ${count(ledger.unexplainedDuplicates)}`,
      unit: 'events',
      goal: '0 unexplained',
      met: ledger.unexplainedDuplicates === 0,
    },
    {
      metric:
        'longest an accepted event of an immediate subscription waited for its first attempt (10 s samples)',
      value: outcome.worstUnattemptedSeconds,
      unit: 's',
      goal: '<= 60',
      met: outcome.worstUnattemptedSeconds <= 60,
    },
    {
      metric:
        "the stack's oldest overdue backlog wake, worst of its status's 10 s samples (a wake counts once it is 2 min past due)",
      value: outcome.worstStackOverdueSeconds ?? 'not reported',
      unit: 's',
      goal: '0',
      met: outcome.worstStackOverdueSeconds === 0,
    },
    {
      metric: 'publish requests sent again: refused for load (429, 503) / unanswered (the stack down)',
      value: `${count((outcome.traffic.byStatus['429'] ?? 0) + (outcome.traffic.byStatus['503'] ?? 0))} / ${count(outcome.traffic.byStatus['0'] ?? 0)}`,
      unit: 'requests',
    },
    {
      metric: 'stack exits nobody caused',
      value: outcome.unplannedExits.length,
      unit: 'exits',
      goal: '0',
      met: outcome.unplannedExits.length === 0,
    },
    {
      metric: 'publish answers >= 500 other than 503 / refused publishes (4xx)',
      value: `${serverErrors} / ${outcome.traffic.refused}`,
      unit: 'answers',
      goal: '0 / 0',
      met: serverErrors === 0 && outcome.traffic.refused === 0,
    },
    {
      metric: 'signed requests whose signature did not verify',
      value: `${outcome.webhook.badSignatures} of ${count(outcome.webhook.signedChecked)}`,
      unit: 'requests',
      goal: '0',
      met: outcome.webhook.badSignatures === 0,
    },
    {
      metric: 'rate-limited endpoint: requests in its busiest second (limit 10, then 20 after the edit)',
      value: outcome.webhook.limitedPeakPerSecond,
      unit: 'requests',
      goal: '<= 20',
      met: outcome.webhook.limitedPeakPerSecond <= 20,
    },
    {
      metric: 'drain: load over -> every accepted event delivered or dead-lettered',
      value: outcome.drainedAll ? outcome.drainSeconds : `gave up after ${outcome.drainSeconds}`,
      unit: 's',
    },
    {
      metric: "stack's process tree resident: idle before / peak under load / a minute after the load",
      value: `${mb(idle)} / ${mb(memory.peakRssBytes)} / ${mb(after)}`,
      unit: 'MB',
      goal: `<= 200 / <= 400 / within 20% of idle`,
      met:
        idle !== undefined &&
        after !== undefined &&
        idle <= 200 * MB &&
        memory.peakRssBytes <= 400 * MB &&
        after <= idle * 1.2,
    },
    {
      metric: 'restarts (kills), seconds to serve again',
      value: outcome.faults
        .filter((fault) => fault.restartSeconds !== undefined)
        .map((fault) => round(fault.restartSeconds as number, 1))
        .join(', '),
      unit: 's',
    },
  ];
  const mix = SOAK_SUBSCRIPTIONS.map(
    (subscription) => `${subscription.name} (${subscription.share / 10}%, ${subscription.behaviour})`,
  ).join(', ');
  return {
    name: 'soak',
    description: `${options.minutes} minutes of load on a local stack in a process of its own at time scale ${options.timeScale} (retry waits and holds divided by ${options.timeScale}), ${count(options.eventsPerSecond)} events/s offered (a third of ${peakSource}'s unbatched peak), in requests of 100 and ${options.singlesPerSecond} requests of one event a second, to one Event Grid topic whose ten subscriptions each take one event type: ${mix}. Batched is maxEventsPerBatch 50; signed has a signing secret its webhook verifies; ordered is ordered by subject (20 keys); queue is an SQS destination the stack's process reads; limited allows 10 requests/s. Every subscription dead-letters to the stack's bucket. A publish goes again until answered 200 (after Retry-After when refused; after 1 s unanswered, its events then marked as sent again). Faults, one after another: ${faultSchedule(
      options.minutes,
    )
      .map((fault) => `${round(fault.atMs / 60_000, 1)} min: ${fault.description}`)
      .join(
        '; ',
      )}. Then the ledger: each accepted event found delivered (a 2xx at the webhook, or read from the queue), in a dead-letter blob (read through the API), or dropped per its delivery history; what is in none is missing. A duplicate is explained when the event was published again after an unanswered request, or a fault began between 2 minutes before its first delivery and its next. Overdue: every 10 s, the oldest accepted event of an immediate subscription (healthy, signed, ordered, queue) not yet attempted, and the stack's own oldest overdue wake from its status. Memory: the resident size of the stack's whole process tree (its process, the emulator process, helpers), RSS summed, from /proc.`,
    figures,
    details: {
      // A run of every scenario carries this result over: it says when it was measured.
      measured: { date: new Date().toISOString(), commit: commitOf() },
      options,
      faults: outcome.faults,
      minutes: outcome.minutes,
      ledger: outcome.ledger,
      traffic: { ...outcome.traffic, offeredPerSecond: undefined },
      webhook: outcome.webhook,
      unplannedExits: outcome.unplannedExits,
      memory: {
        idleBefore: outcome.memory.idleBefore,
        peakRssBytes: outcome.memory.peakRssBytes,
        afterMinute: outcome.memory.afterMinute,
      },
      worstUnattemptedId: outcome.worstUnattemptedId ?? null,
      historyLookups: outcome.historyLookups,
    },
  };
}

export const soak: Scenario = {
  name: 'soak',
  description:
    'a long run (30 min, --minutes N) under mixed traffic and faults, closed by a ledger of every accepted event',
  uses: [],
  onlyWhenNamed: true,
  async run(ctx) {
    const minutes = ctx.minutes ?? (ctx.quick ? 5 : DEFAULT_MINUTES);
    const peak = await measuredPeak();
    const eventsPerSecond = Math.round(peak.eventsPerSecond / 3);
    log(
      `soak: ${minutes} minutes at ${eventsPerSecond} events/s (a third of ${Math.round(peak.eventsPerSecond)}, ${peak.source})`,
    );
    const outcome = await runSoak({
      minutes,
      eventsPerSecond,
      singlesPerSecond: 20,
      timeScale: TIME_SCALE,
      drainStallMs: 5 * 60_000,
    });
    const result = soakResult(outcome, peak.source);
    for (const figure of result.figures) log(`  ${figure.metric}: ${figure.value} ${figure.unit}`);
    if (!outcome.ledger.closed) {
      // The results are still written, so the run can be read; the command fails.
      log(
        `soak: THE LEDGER DID NOT CLOSE: ${outcome.ledger.missing} accepted events missing (${outcome.ledger.missingSample.join(', ')})`,
      );
      process.exitCode = 1;
    }
    return { results: [result] };
  },
};
