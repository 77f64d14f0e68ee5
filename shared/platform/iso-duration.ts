/**
 * ISO 8601 durations of weeks, days, hours, minutes and seconds, as the management API takes them
 * (`PT30M`, `P1DT12H`, `PT10S`): no years or months, whose length varies.
 */

const MINUTES_PER_DAY = 24 * 60;

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Seconds in an ISO 8601 duration (`PT10S`, `PT1M`, `P1D`); `undefined` when it is not one. */
export function isoDurationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text === 'P') return undefined;
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds;
}

/**
 * Minutes in an ISO 8601 duration (`P1D`, `PT30M`, `P1DT12H`, `PT120S`); `undefined` when it is
 * not one, or is not a whole number of minutes.
 */
export function isoDurationMinutes(text: string): number | undefined {
  const totalSeconds = isoDurationSeconds(text);
  if (totalSeconds === undefined || totalSeconds % 60 !== 0) return undefined;
  return totalSeconds / 60;
}

/** Minutes as the shortest ISO 8601 duration: `P1D`, `PT20M`, `P1DT2H30M`. */
export function isoDurationOf(totalMinutes: number): string {
  const days = Math.floor(totalMinutes / MINUTES_PER_DAY);
  const hours = Math.floor((totalMinutes % MINUTES_PER_DAY) / 60);
  const minutes = totalMinutes % 60;
  const time = `${hours > 0 ? `${hours}H` : ''}${minutes > 0 ? `${minutes}M` : ''}`;
  if (days === 0 && time === '') return 'PT0M';
  return `P${days > 0 ? `${days}D` : ''}${time === '' ? '' : `T${time}`}`;
}

/** Seconds as the shortest ISO 8601 duration: `PT10S`, `PT1M`, `PT1H30M`, `P1DT2H`. */
export function isoDurationOfSeconds(totalSeconds: number): string {
  const seconds = totalSeconds % 60;
  if (seconds === 0) return isoDurationOf(totalSeconds / 60);
  const minutesPart = isoDurationOf(Math.floor(totalSeconds / 60));
  return minutesPart === 'PT0M'
    ? `PT${seconds}S`
    : `${minutesPart.includes('T') ? minutesPart : `${minutesPart}T`}${seconds}S`;
}
