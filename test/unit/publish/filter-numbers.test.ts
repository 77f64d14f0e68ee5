/**
 * The numbers an advanced filter may hold (`FILTER_NUMBER_LIMITS`): within 2^53 - 1, and 0 or at
 * least DynamoDB's 1E-130 in magnitude; anything else is refused naming the very number.
 */
import { FILTER_NUMBER_LIMITS, validateFilter } from '../../../shared/publish/filter';

const compare = (value: unknown) => ({
  advancedFilters: [{ operatorType: 'NumberGreaterThan', key: 'data.n', value }],
});
const set = (values: unknown[]) => ({
  advancedFilters: [{ operatorType: 'NumberNotIn', key: 'data.n', values }],
});
const ranges = (values: unknown[]) => ({
  advancedFilters: [{ operatorType: 'NumberInRange', key: 'data.n', values }],
});

it('takes numbers up to 2^53 - 1 and down to 1e-130 in magnitude, and zero', () => {
  expect(FILTER_NUMBER_LIMITS).toEqual({ maxMagnitude: 2 ** 53 - 1, minMagnitude: 1e-130 });
  for (const value of [0, -0, 1e-130, -1e-130, 1.5, 2 ** 53 - 1, -(2 ** 53 - 1)]) {
    expect(validateFilter(compare(value))).toBeUndefined();
    expect(validateFilter(set([1, value]))).toBeUndefined();
  }
  expect(validateFilter(ranges([[-(2 ** 53 - 1), 2 ** 53 - 1]]))).toBeUndefined();
});

it.each([2 ** 53, 1e16, -1e16, 1e300, Number.MAX_VALUE, 1e126])(
  'refuses %p: beyond 2^53 - 1 not every integer can be told apart',
  (value) => {
    expect(validateFilter(compare(value))).toEqual({
      field: 'advancedFilters.0.value',
      message: `must be between -9007199254740991 and 9007199254740991 (2^53 - 1, the largest integer compared exactly) (got ${value})`,
    });
  },
);

it.each([1.5e-300, -1.5e-300, 5e-324, 9.99e-131])(
  'refuses %p: DynamoDB stores no smaller magnitude than 1e-130',
  (value) => {
    expect(validateFilter(set([1, 2, value]))).toEqual({
      field: 'advancedFilters.0.values.2',
      message: `must be 0 or at least 1e-130 in magnitude (the smallest number DynamoDB stores) (got ${value})`,
    });
  },
);

it('names the end of a range that is out of bounds, and the range when its ends are out of order', () => {
  expect(
    validateFilter(
      ranges([
        [0, 1],
        [1e300, 2],
      ]),
    )?.field,
  ).toBe('advancedFilters.0.values.1.0');
  expect(
    validateFilter(
      ranges([
        [0, 1],
        [-2, 1e300],
      ]),
    )?.field,
  ).toBe('advancedFilters.0.values.1.1');
  expect(
    validateFilter(
      ranges([
        [0, 1],
        [-2, 'x'],
      ]),
    ),
  ).toEqual({
    field: 'advancedFilters.0.values.1.1',
    message: 'must be a number (got a string)',
  });
  expect(validateFilter(ranges([[3, 1]]))?.field).toBe('advancedFilters.0.values.0');
});
