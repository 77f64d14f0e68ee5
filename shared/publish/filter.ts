/**
 * Which subscriptions receive an event: a subscription's filter, compiled once into a predicate.
 *
 * - Event types match exactly, ignoring case; no list (or `All` in it) matches every type.
 * - `subjectBeginsWith`/`subjectEndsWith` ignore case unless `isSubjectCaseSensitive`.
 * - Advanced filters all must hold; the values inside one are alternatives. Strings compare
 *   ignoring case. A key is a dotted path into the event as delivered. A missing (or null) key
 *   matches only NumberNotIn, StringNotIn and IsNullOrUndefined. A value of another type than the
 *   operator compares (a string for a Number operator, say) matches nothing, negated operators
 *   included. An array value matches only with `enableAdvancedFilteringOnArrays`, and then when
 *   any element matches; IsNullOrUndefined and IsNotNull look at the value itself.
 */
import {
  ADVANCED_FILTER_OPERATORS,
  type AdvancedFilter,
  type AdvancedFilterOperator,
  type SubscriptionFilter,
} from '../domain/model';
import { isJsonObject, kindOf } from './limits';

/** Limits on a subscription's filter (the management API refuses more). */
export const FILTER_LIMITS = {
  maxAdvancedFilters: 25,
  maxIncludedEventTypes: 100,
  /** Values across all advanced filters (a range counts as one). */
  maxAdvancedFilterValues: 25,
  maxStringValueLength: 512,
} as const;

/** What a compiled filter reads of an event. */
export interface FilterView {
  /** Event Grid `eventType`, CloudEvents `type`. */
  readonly eventType: string;
  /** `undefined` when the event has none (a CloudEvent may not). */
  readonly subject: string | undefined;
  /**
   * The member that holds `eventType` in the event (`type` for CloudEvents), so an advanced filter
   * on it needs no parse.
   */
  readonly eventTypeKey: 'eventType' | 'type';
  /** The event as delivered, parsed; called only when an advanced filter reads another key. */
  readonly event: () => unknown;
}

export type CompiledFilter = (event: FilterView) => boolean;

function eventTypeTest(types: readonly string[] | undefined): (eventType: string) => boolean {
  if (types === undefined) return () => true;
  const lowered = new Set(types.map((type) => type.toLowerCase()));
  if (lowered.has('all')) return () => true;
  return (eventType) => lowered.has(eventType.toLowerCase());
}

const hasOwn = (value: object, key: string) => Object.hasOwn(value, key);

/** The value at a path, `undefined` when any step is missing or not an object. */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const step of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** A test of one (non-array, non-null) value, and whether a missing key matches. */
interface ValueTest {
  test: (value: unknown) => boolean;
  matchesMissing: boolean;
}

const isNumber = (value: unknown): value is number => typeof value === 'number';
const lowerIfString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.toLowerCase() : undefined;

const not =
  (test: (value: unknown) => boolean, accepts: (value: unknown) => boolean) =>
  (value: unknown): boolean =>
    accepts(value) && !test(value);

const isString = (value: unknown): value is string => typeof value === 'string';

function stringTest(
  values: readonly string[],
  compare: (value: string, wanted: string) => boolean,
): (value: unknown) => boolean {
  const wanted = values.map((value) => value.toLowerCase());
  return (value) => {
    const lowered = lowerIfString(value);
    return lowered !== undefined && wanted.some((candidate) => compare(lowered, candidate));
  };
}

function valueTest(filter: AdvancedFilter): ValueTest {
  const plain = (test: (value: unknown) => boolean): ValueTest => ({ test, matchesMissing: false });
  switch (filter.operatorType) {
    case 'NumberIn':
    case 'NumberNotIn': {
      const set = new Set(filter.values);
      const within = (value: unknown) => isNumber(value) && set.has(value);
      return filter.operatorType === 'NumberIn'
        ? plain(within)
        : { test: not(within, isNumber), matchesMissing: true };
    }
    case 'NumberLessThan': {
      const bound = filter.value;
      return plain((value) => isNumber(value) && value < bound);
    }
    case 'NumberGreaterThan': {
      const bound = filter.value;
      return plain((value) => isNumber(value) && value > bound);
    }
    case 'NumberLessThanOrEquals': {
      const bound = filter.value;
      return plain((value) => isNumber(value) && value <= bound);
    }
    case 'NumberGreaterThanOrEquals': {
      const bound = filter.value;
      return plain((value) => isNumber(value) && value >= bound);
    }
    case 'NumberInRange':
    case 'NumberNotInRange': {
      const ranges = filter.values.map(([min, max]) => [min, max] as const);
      const within = (value: unknown) =>
        isNumber(value) && ranges.some(([min, max]) => value >= min && value <= max);
      return plain(filter.operatorType === 'NumberInRange' ? within : not(within, isNumber));
    }
    case 'BoolEquals': {
      const wanted = filter.value;
      return plain((value) => value === wanted);
    }
    case 'StringIn':
    case 'StringNotIn': {
      const set = new Set(filter.values.map((value) => value.toLowerCase()));
      const within = (value: unknown) => {
        const lowered = lowerIfString(value);
        return lowered !== undefined && set.has(lowered);
      };
      return filter.operatorType === 'StringIn'
        ? plain(within)
        : { test: not(within, isString), matchesMissing: true };
    }
    case 'StringContains':
      return plain(stringTest(filter.values, (value, wanted) => value.includes(wanted)));
    case 'StringNotContains':
      return plain(
        not(
          stringTest(filter.values, (value, wanted) => value.includes(wanted)),
          isString,
        ),
      );
    case 'StringBeginsWith':
      return plain(stringTest(filter.values, (value, wanted) => value.startsWith(wanted)));
    case 'StringNotBeginsWith':
      return plain(
        not(
          stringTest(filter.values, (value, wanted) => value.startsWith(wanted)),
          isString,
        ),
      );
    case 'StringEndsWith':
      return plain(stringTest(filter.values, (value, wanted) => value.endsWith(wanted)));
    case 'StringNotEndsWith':
      return plain(
        not(
          stringTest(filter.values, (value, wanted) => value.endsWith(wanted)),
          isString,
        ),
      );
    case 'IsNullOrUndefined':
    case 'IsNotNull':
      // Handled in `compileAdvanced`: they look at the value itself, arrays included.
      return plain(() => false);
  }
}

function compileAdvanced(filter: AdvancedFilter, onArrays: boolean): CompiledFilter {
  const path = filter.key.split('.');
  // `subject` and the event type are in the view already; any other key needs the parsed event.
  const read: (view: FilterView) => unknown =
    filter.key === 'subject'
      ? (view) => view.subject
      : path.length === 1
        ? (view) => (view.eventTypeKey === filter.key ? view.eventType : valueAt(view.event(), path))
        : (view) => valueAt(view.event(), path);
  if (filter.operatorType === 'IsNullOrUndefined') return (view) => (read(view) ?? null) === null;
  if (filter.operatorType === 'IsNotNull') return (view) => (read(view) ?? null) !== null;
  const { test, matchesMissing } = valueTest(filter);
  return (view) => {
    const value = read(view);
    if (value === undefined || value === null) return matchesMissing;
    if (Array.isArray(value)) return onArrays && value.some(test);
    return test(value);
  };
}

function subjectTest(filter: SubscriptionFilter): ((subject: string | undefined) => boolean) | undefined {
  const caseSensitive = filter.isSubjectCaseSensitive === true;
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const begins = filter.subjectBeginsWith ? fold(filter.subjectBeginsWith) : undefined;
  const ends = filter.subjectEndsWith ? fold(filter.subjectEndsWith) : undefined;
  if (begins === undefined && ends === undefined) return undefined;
  return (subject) => {
    if (subject === undefined) return false;
    const folded = fold(subject);
    return (
      (begins === undefined || folded.startsWith(begins)) && (ends === undefined || folded.endsWith(ends))
    );
  };
}

/**
 * Compiles a subscription's filter once (lower-cased strings, sets, split key paths) into a
 * predicate run for every published event.
 */
export function compileFilter(filter: SubscriptionFilter): CompiledFilter {
  const checks: CompiledFilter[] = [];
  if (filter.includedEventTypes !== undefined) {
    const test = eventTypeTest(filter.includedEventTypes);
    checks.push((view) => test(view.eventType));
  }
  const subject = subjectTest(filter);
  if (subject !== undefined) checks.push((view) => subject(view.subject));
  const onArrays = filter.enableAdvancedFilteringOnArrays === true;
  for (const advanced of filter.advancedFilters ?? []) checks.push(compileAdvanced(advanced, onArrays));
  if (checks.length === 0) return () => true;
  if (checks.length === 1) return checks[0] as CompiledFilter;
  return (view) => checks.every((check) => check(view));
}

/** The first problem with a filter definition: the field's path and what is wrong. */
export interface FilterViolation {
  field: string;
  message: string;
}

const OPERATOR_GROUP = new Map<string, keyof typeof ADVANCED_FILTER_OPERATORS>(
  (Object.keys(ADVANCED_FILTER_OPERATORS) as (keyof typeof ADVANCED_FILTER_OPERATORS)[]).flatMap((group) =>
    ADVANCED_FILTER_OPERATORS[group].map((operator) => [operator, group] as const),
  ),
);

const ALL_OPERATORS: readonly AdvancedFilterOperator[] = [
  ...OPERATOR_GROUP.keys(),
] as AdvancedFilterOperator[];

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * The numbers an advanced filter may hold (`value` and every number of `values`). Two things
 * bound them. The matcher compares JS numbers, and beyond 2^53 - 1 neighbouring integers share
 * one double (9007199254740993 reads as 9007199254740992), so `NumberIn: [9007199254740993]`
 * would quietly match 9007199254740992: such integers are refused rather than compared
 * inexactly. And the filter is stored in DynamoDB, whose numbers are at most 38 digits of
 * precision with a magnitude from 1E-130 to 9.99...E+125: a double has at most 17 digits, and
 * the cap above keeps it far below the top, but a magnitude under 1E-130 (1.5e-300, 5e-324)
 * cannot be stored at all. Both are refused with a 400 naming the value, never a failed write.
 */
export const FILTER_NUMBER_LIMITS = {
  /** 2^53 - 1 (`Number.MAX_SAFE_INTEGER`): the largest magnitude compared exactly. */
  maxMagnitude: Number.MAX_SAFE_INTEGER,
  /** DynamoDB's smallest non-zero magnitude; 0 (and -0, stored as 0) is allowed. */
  minMagnitude: 1e-130,
} as const;

/** What is wrong with one number of a filter, or `undefined` when it is within the limits. */
function filterNumberProblem(value: unknown): string | undefined {
  if (!isFiniteNumber(value)) return `must be a number (got ${kindOf(value)})`;
  const { maxMagnitude, minMagnitude } = FILTER_NUMBER_LIMITS;
  const magnitude = Math.abs(value);
  if (magnitude > maxMagnitude) {
    return `must be between -${maxMagnitude} and ${maxMagnitude} (2^53 - 1, the largest integer compared exactly) (got ${value})`;
  }
  if (magnitude !== 0 && magnitude < minMagnitude) {
    return `must be 0 or at least ${minMagnitude} in magnitude (the smallest number DynamoDB stores) (got ${value})`;
  }
  return undefined;
}

/** How many values a (well-formed) advanced filter counts toward the limit. */
const valueCount = (filter: Record<string, unknown>): number =>
  Array.isArray(filter.values) ? filter.values.length : 'value' in filter ? 1 : 0;

function advancedViolation(filter: unknown, field: string): FilterViolation | undefined {
  const violation = (at: string, message: string): FilterViolation => ({ field: `${field}${at}`, message });
  if (!isJsonObject(filter)) return violation('', `must be an object (got ${kindOf(filter)})`);
  const { operatorType, key } = filter;
  const group = typeof operatorType === 'string' ? OPERATOR_GROUP.get(operatorType) : undefined;
  if (group === undefined) {
    return violation(
      '.operatorType',
      `unknown operator ${JSON.stringify(operatorType)}; one of ${ALL_OPERATORS.join(', ')}`,
    );
  }
  if (typeof key !== 'string' || key === '') return violation('.key', 'must be a non-empty string');
  if (key.split('.').some((step) => step === '')) {
    return violation('.key', `must be a dotted path without empty steps (got '${key}')`);
  }
  const hasValue = 'value' in filter;
  const hasValues = 'values' in filter;
  const needsValues = group === 'numberSet' || group === 'numberRange' || group === 'string';
  const needsValue = group === 'numberCompare' || group === 'bool';
  if (group === 'presence') {
    if (hasValue || hasValues) return violation('', `${operatorType} takes no value or values`);
    return undefined;
  }
  if (needsValue) {
    if (hasValues) return violation('.values', `${operatorType} takes one value (value), not values`);
    if (group === 'bool') {
      if (typeof filter.value === 'boolean') return undefined;
      return violation('.value', `must be a boolean (got ${kindOf(filter.value)})`);
    }
    const problem = filterNumberProblem(filter.value);
    return problem === undefined ? undefined : violation('.value', problem);
  }
  if (needsValues) {
    if (hasValue) return violation('.value', `${operatorType} takes values (an array), not value`);
    const { values } = filter;
    if (!Array.isArray(values) || values.length === 0) {
      return violation('.values', 'must be a non-empty array');
    }
    for (const [index, value] of values.entries()) {
      const at = `.values.${index}`;
      if (group === 'numberSet') {
        const problem = filterNumberProblem(value);
        if (problem !== undefined) return violation(at, problem);
      }
      if (group === 'numberRange') {
        if (!Array.isArray(value) || value.length !== 2) {
          return violation(at, 'must be a range [min, max] of two numbers');
        }
        // Each end is named on its own (`values.1.0`), so the refusal points at the very number.
        for (const [end, bound] of value.entries()) {
          const problem = filterNumberProblem(bound);
          if (problem !== undefined) return violation(`${at}.${end}`, problem);
        }
        const [min, max] = value as [number, number];
        if (min > max) return violation(at, `min must not exceed max (got [${min}, ${max}])`);
      }
      if (group === 'string') {
        if (typeof value !== 'string') return violation(at, `must be a string (got ${kindOf(value)})`);
        if (value.length > FILTER_LIMITS.maxStringValueLength) {
          return violation(
            '.values',
            `at most ${FILTER_LIMITS.maxStringValueLength} characters per string (got ${value.length})`,
          );
        }
      }
    }
  }
  return undefined;
}

/** The fields a filter may have. */
const FILTER_FIELDS: ReadonlySet<string> = new Set([
  'includedEventTypes',
  'subjectBeginsWith',
  'subjectEndsWith',
  'isSubjectCaseSensitive',
  'enableAdvancedFilteringOnArrays',
  'advancedFilters',
]);

/**
 * Checks a filter definition as the management API receives it: shapes, known operators, the
 * {@link FILTER_LIMITS} and the {@link FILTER_NUMBER_LIMITS}. Returns the first violation, or
 * `undefined` when the filter is valid.
 */
export function validateFilter(filter: unknown): FilterViolation | undefined {
  if (!isJsonObject(filter)) return { field: 'filter', message: `must be an object (got ${kindOf(filter)})` };
  const unknown = Object.keys(filter).find((name) => !FILTER_FIELDS.has(name));
  if (unknown !== undefined) {
    return { field: unknown, message: `unknown filter field (known: ${[...FILTER_FIELDS].join(', ')})` };
  }
  // A null field is an absent one (the management API shows absent fields as null).
  return checkFilterFields(
    Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== null && value !== undefined)),
  );
}

function checkFilterFields(filter: Record<string, unknown>): FilterViolation | undefined {
  const { includedEventTypes, advancedFilters } = filter;
  if (includedEventTypes !== undefined) {
    if (!Array.isArray(includedEventTypes)) {
      return { field: 'includedEventTypes', message: `must be an array (got ${kindOf(includedEventTypes)})` };
    }
    if (includedEventTypes.length > FILTER_LIMITS.maxIncludedEventTypes) {
      return {
        field: 'includedEventTypes',
        message: `at most ${FILTER_LIMITS.maxIncludedEventTypes} event types (got ${includedEventTypes.length})`,
      };
    }
    const index = includedEventTypes.findIndex((type) => typeof type !== 'string' || type === '');
    if (index >= 0) return { field: `includedEventTypes.${index}`, message: 'must be a non-empty string' };
  }
  for (const field of ['subjectBeginsWith', 'subjectEndsWith'] as const) {
    const value = filter[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return { field, message: `must be a string (got ${kindOf(value)})` };
    if (value.length > FILTER_LIMITS.maxStringValueLength) {
      return {
        field,
        message: `at most ${FILTER_LIMITS.maxStringValueLength} characters (got ${value.length})`,
      };
    }
  }
  for (const field of ['isSubjectCaseSensitive', 'enableAdvancedFilteringOnArrays'] as const) {
    const value = filter[field];
    if (value !== undefined && typeof value !== 'boolean') {
      return { field, message: `must be a boolean (got ${kindOf(value)})` };
    }
  }
  if (advancedFilters === undefined) return undefined;
  if (!Array.isArray(advancedFilters)) {
    return { field: 'advancedFilters', message: `must be an array (got ${kindOf(advancedFilters)})` };
  }
  if (advancedFilters.length > FILTER_LIMITS.maxAdvancedFilters) {
    return {
      field: 'advancedFilters',
      message: `at most ${FILTER_LIMITS.maxAdvancedFilters} advanced filters (got ${advancedFilters.length})`,
    };
  }
  let values = 0;
  for (const [index, advanced] of advancedFilters.entries()) {
    const violation = advancedViolation(advanced, `advancedFilters.${index}`);
    if (violation !== undefined) return violation;
    values += valueCount(advanced as Record<string, unknown>);
  }
  if (values > FILTER_LIMITS.maxAdvancedFilterValues) {
    return {
      field: 'advancedFilters',
      message: `at most ${FILTER_LIMITS.maxAdvancedFilterValues} values in all across advanced filters (got ${values})`,
    };
  }
  return undefined;
}
