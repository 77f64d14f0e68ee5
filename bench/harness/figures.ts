/**
 * Report helpers the scenarios share: rounding, latency pairs, the publish outcome as details,
 * shares of this machine's reference rates, and the throughput block (the figures every
 * unbatched throughput run reports).
 */
import { percentile } from '../load';
import type { PublishOutcome } from '../publisher-protocol';
import type { Figure, ReferenceKey, ReferenceRates, Share } from './types';

export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** `p50 / p99` of `latencies`, ms to one decimal. */
export const p50p99 = (latencies: readonly number[]): string =>
  `${round(percentile(latencies, 50), 1)} / ${round(percentile(latencies, 99), 1)}`;

/** A publish outcome for a scenario's details: everything but the latency of every request. */
export function publishedDetails(published: PublishOutcome): Omit<PublishOutcome, 'publishLatencies'> {
  const { publishLatencies: _latencies, ...rest } = published;
  return rest;
}

/**
 * The `share` member of a throughput figure: its rate (or rates, for a figure of the form
 * `a / b`), events per second, as a multiple of a reference rate of this machine, each request
 * or round trip of the reference standing for `eventsPerUnit` events. Nothing when the reference
 * was not measured in this run.
 */
export function shareOf(
  reference: ReferenceRates | undefined,
  of: ReferenceKey,
  eventsPerSecond: number | readonly number[],
  eventsPerUnit = 1,
): { share: Share } | Record<string, never> {
  if (reference === undefined) return {};
  const multiple = (rate: number) => round(rate / eventsPerUnit / reference[of].rate, 2);
  const value =
    typeof eventsPerSecond === 'number'
      ? multiple(eventsPerSecond)
      : eventsPerSecond.map((rate) => multiple(rate).toFixed(2)).join(' / ');
  return { share: { of, value, eventsPerUnit } };
}

/** What the throughput block reads of a load run. */
interface ThroughputRun {
  published: PublishOutcome;
  steadyRate: number;
  steadyMin: number;
  latencies: readonly number[];
}

/**
 * The figures of an unbatched throughput run, by name, for a scenario to list in its own order:
 * events accepted, the delivered rate against its goal, the slowest second, latency under load
 * and the publish request's p99. Each event delivered is one webhook request, so the rates are
 * also given as shares of the loopback HTTP reference.
 */
export function throughputFigures(
  run: ThroughputRun,
  target: { goal: string; met: boolean | undefined },
  reference: ReferenceRates | undefined,
): Record<'accepted' | 'deliveredMean' | 'slowest' | 'latencyUnderLoad' | 'publishP99', Figure> {
  const mean = round(run.steadyRate, 0);
  const slowest = round(run.steadyMin, 0);
  return {
    accepted: { metric: 'events accepted', value: run.published.accepted, unit: 'events' },
    deliveredMean: {
      metric: 'delivered per second while publishing (mean)',
      value: mean,
      unit: 'events/s',
      goal: target.goal,
      ...(target.met === undefined ? {} : { met: target.met }),
      ...shareOf(reference, 'loopbackHttp', mean),
    },
    slowest: {
      metric: 'slowest second while publishing',
      value: slowest,
      unit: 'events/s',
      ...shareOf(reference, 'loopbackHttp', slowest),
    },
    latencyUnderLoad: {
      metric: 'publish -> webhook p50 / p99 under load',
      value: p50p99(run.latencies),
      unit: 'ms',
    },
    publishP99: {
      metric: 'publish request p99',
      value: round(percentile(run.published.publishLatencies, 99), 1),
      unit: 'ms',
    },
  };
}

/**
 * A chart panel's frame in SVG: its label above, the axes, the top and zero of the scale, and the
 * end of the time axis.
 */
export function panelFrame(panel: {
  label: string;
  left: number;
  right: number;
  width: number;
  /** The panel's top edge; `top` and `bottom` bound its plot. */
  y: number;
  top: number;
  bottom: number;
  max: number;
  end: string;
}): string[] {
  const { label, left, right, width, y, top, bottom, max, end } = panel;
  return [
    `<text x="${left}" y="${y + 12}" font-size="12">${label}</text>`,
    `<line x1="${left}" y1="${bottom}" x2="${width - right}" y2="${bottom}" stroke="#999"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#999"/>`,
    `<text x="${left - 6}" y="${top + 4}" font-size="10" text-anchor="end">${Math.round(max)}</text>`,
    `<text x="${left - 6}" y="${bottom + 4}" font-size="10" text-anchor="end">0</text>`,
    `<text x="${width - right}" y="${bottom + 14}" font-size="10" text-anchor="end">${end}</text>`,
  ];
}
