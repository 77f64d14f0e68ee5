/**
 * Break-even against the managed services: what a million events costs at a monthly volume, once
 * the stack's fixed monthly cost is spread over the month's events, for Gridwire in a given
 * configuration (the per-event part measured at the rate nearest the volume's), and the first
 * volume shown at which it costs less than Event Grid or EventBridge. No free tier on any side.
 */

/** Monthly volumes the table shows, events a month. */
export const BREAK_EVEN_VOLUMES = [100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000] as const;

export interface BreakEvenInput {
  /** What the row is (a configuration and a publish size). */
  label: string;
  /**
   * Per million events excluding data transfer out, at a steady rate of `eventsPerSecond`: the
   * measured rate nearest to each volume's is used for it (batches fill less at lower rates).
   */
  perMillionByRate: ReadonlyArray<{ eventsPerSecond: number; perMillion: number }>;
  /** Fixed by the month: a stack with one topic and one subscription. */
  fixedMonthly: number;
  /** The managed services' per million for the same work (no fixed cost, no free tier). */
  eventGrid: number;
  eventBridge: number;
}

export interface BreakEvenRow {
  label: string;
  /** Gridwire's cost per million at each of {@link BREAK_EVEN_VOLUMES}. */
  perMillionAt: number[];
  eventGrid: number;
  eventBridge: number;
  /** The first volume of the table at which Gridwire costs less (undefined: none of them). */
  cheaperThanEventGridFrom: number | undefined;
  cheaperThanEventBridgeFrom: number | undefined;
}

/** Seconds in a month of 30 days. */
export const SECONDS_PER_MONTH = 30 * 24 * 3600;

/** The measured per million nearest (on a log scale) to a month's volume as a steady rate. */
export function perMillionAtVolume(input: Pick<BreakEvenInput, 'perMillionByRate'>, volume: number): number {
  const rate = volume / SECONDS_PER_MONTH;
  const distance = (measured: number) => Math.abs(Math.log(measured / rate));
  const nearest = [...input.perMillionByRate].sort(
    (a, b) => distance(a.eventsPerSecond) - distance(b.eventsPerSecond),
  )[0];
  if (nearest === undefined) throw new RangeError(`${input.perMillionByRate.length} rates measured`);
  return nearest.perMillion;
}

export function breakEven(input: BreakEvenInput): BreakEvenRow {
  const perMillionAt = BREAK_EVEN_VOLUMES.map(
    (volume) => perMillionAtVolume(input, volume) + input.fixedMonthly / (volume / 1_000_000),
  );
  const firstBelow = (other: number) =>
    BREAK_EVEN_VOLUMES.find((_, index) => (perMillionAt[index] ?? Infinity) < other);
  return {
    label: input.label,
    perMillionAt,
    eventGrid: input.eventGrid,
    eventBridge: input.eventBridge,
    cheaperThanEventGridFrom: firstBelow(input.eventGrid),
    cheaperThanEventBridgeFrom: firstBelow(input.eventBridge),
  };
}

/** A volume as people say it: 100k, 1M, 10M, 1B. */
export function volumeLabel(events: number): string {
  if (events >= 1e9) return `${Number((events / 1e9).toPrecision(3))}B`;
  if (events >= 1e6) return `${Number((events / 1e6).toPrecision(3))}M`;
  if (events >= 1e3) return `${Number((events / 1e3).toPrecision(3))}k`;
  return String(Math.round(events));
}

/** The rows as a Markdown table (USD per million events at each monthly volume). */
export function breakEvenTable(rows: readonly BreakEvenRow[]): string {
  const money = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(2));
  const from = (value: number | undefined) => (value === undefined ? 'none shown' : volumeLabel(value));
  const header = `| USD per million events, at events a month | ${BREAK_EVEN_VOLUMES.map(volumeLabel).join(' | ')} | cheaper than Event Grid from | cheaper than EventBridge from |`;
  const rule = `|---|${BREAK_EVEN_VOLUMES.map(() => '---:').join('|')}|---:|---:|`;
  const lines = rows.map(
    (row) =>
      `| ${row.label} | ${row.perMillionAt.map(money).join(' | ')} | ${from(row.cheaperThanEventGridFrom)} | ${from(row.cheaperThanEventBridgeFrom)} |`,
  );
  const [first] = rows;
  const managed =
    first === undefined
      ? []
      : [
          `| Event Grid (basic) | ${BREAK_EVEN_VOLUMES.map(() => money(first.eventGrid)).join(' | ')} | | |`,
          `| EventBridge + API destinations | ${BREAK_EVEN_VOLUMES.map(() => money(first.eventBridge)).join(' | ')} | | |`,
        ];
  return [header, rule, ...lines, ...managed].join('\n');
}
