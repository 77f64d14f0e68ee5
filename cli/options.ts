/** Argument parsers and options more than one command uses. */
import { InvalidArgumentError, Option } from 'commander';
import { LOCAL_ENV } from '../shared/config/resources';

export const integer = (name: string, min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
  }
  return parsed;
};

/**
 * An option taking a whole number of at least 1, for a field whose range the API checks (its 400
 * names the field and the limit, which differ between classic and namespace subscriptions).
 */
export const countOption = (flags: string, description: string): Option => {
  const name = flags.split(' ')[0] as string;
  return new Option(flags, description).argParser(integer(name, 1, Number.MAX_SAFE_INTEGER));
};

export const atLeastOne = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 1) throw new InvalidArgumentError('must be a number >= 1.');
  return parsed;
};

export const DEFAULT_DATA_DIR = '.gridwire';

/** `--data-dir`: where a local stack keeps its state and `endpoints.json`. */
export const dataDirOption = (description: string) =>
  new Option('--data-dir <dir>', description).env(LOCAL_ENV.dataDir).default(DEFAULT_DATA_DIR);

/**
 * A switch that also comes from an environment variable: `--name` alone is on, and the variable
 * (or `--name false`) takes `true`, `false`, `1` or `0`.
 */
export const flag = (value: string | boolean): boolean => {
  if (typeof value === 'boolean') return value;
  if (value.trim() === '') return true;
  // The runtime configuration's reader, loaded when a switch is given a value (it loads zod).
  const { parseSwitch } = require('../shared/config/runtime') as typeof import('../shared/config/runtime');
  const parsed = parseSwitch(value);
  if (parsed === undefined) throw new InvalidArgumentError('must be true, false, 1 or 0.');
  return parsed;
};

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration written `30s`, `15m`, `1h` or `7d`, in milliseconds; `undefined` when it is not one. */
export function durationMs(value: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (match === null) return undefined;
  const [, amount, unit] = match as unknown as [string, string, string];
  return Number(amount) * (DURATION_UNITS_MS[unit] as number);
}

/**
 * `--since`/`--until`: an ISO 8601 time as the API takes it, or a time that long ago, written
 * `30s`, `15m`, `1h` or `7d` (answered as the ISO time it means at `now`).
 */
export const timeArgument =
  (flagName: string, now: () => number = Date.now) =>
  (value: string): string => {
    const ago = durationMs(value);
    if (ago !== undefined) return new Date(now() - ago).toISOString();
    if (Number.isNaN(Date.parse(value))) {
      throw new InvalidArgumentError(
        `${flagName} must be an ISO 8601 time such as 2026-11-28T10:00:00Z, or how long ago such as 30m, 1h or 7d.`,
      );
    }
    return value;
  };
