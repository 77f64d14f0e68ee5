/** Argument parsers and options more than one command uses. */
import { InvalidArgumentError, Option } from 'commander';
import { LOCAL_ENV } from '../shared/config/resources';
import { parseSwitch } from '../shared/config/runtime';

export const integer = (name: string, min: number, max: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
  }
  return parsed;
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
  const parsed = parseSwitch(value);
  if (parsed === undefined) throw new InvalidArgumentError('must be true, false, 1 or 0.');
  return parsed;
};
