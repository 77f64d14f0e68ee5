import { matchesFilter } from '../../../shared/publish/filter';

describe('filters', () => {
  it.each([
    [{}, 'Any.Type', true],
    [{ includedEventTypes: ['A.B'] }, 'a.b', true],
    [{ includedEventTypes: ['A.B'] }, 'A.C', false],
    [{ includedEventTypes: [] }, 'A.B', false],
  ])('%j matches %s: %s', (filter, eventType, expected) => {
    expect(matchesFilter(filter, { eventType })).toBe(expected);
  });
});
