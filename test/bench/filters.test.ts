import {
  acceptedMatches,
  expectedMatches,
  FILTERED_SUBSCRIPTIONS,
  matchesPerEvent,
  ORDER_CYCLE,
  orderData,
} from '../../bench/filters';
import { ADVANCED_FILTER_OPERATORS } from '../../shared/domain/model';
import { validateFilter } from '../../shared/publish/filter';

describe('filtered throughput workload', () => {
  const data = orderData();

  it('has ten subscriptions of five advanced filters, each accepted by the management rules', () => {
    expect(FILTERED_SUBSCRIPTIONS).toHaveLength(10);
    expect(new Set(FILTERED_SUBSCRIPTIONS.map((s) => s.name)).size).toBe(10);
    for (const { filter } of FILTERED_SUBSCRIPTIONS) {
      expect(filter.advancedFilters).toHaveLength(5);
      expect(validateFilter(filter)).toBeUndefined();
      for (const advanced of filter.advancedFilters ?? []) expect(advanced.key).toMatch(/^data\./);
    }
  });

  it('uses every operator', () => {
    const used = new Set(
      FILTERED_SUBSCRIPTIONS.flatMap((s) => (s.filter.advancedFilters ?? []).map((f) => f.operatorType)),
    );
    expect([...used].sort()).toEqual(Object.values(ADVANCED_FILTER_OPERATORS).flat().sort());
  });

  it('draws the same events every time', () => {
    expect(data).toHaveLength(ORDER_CYCLE);
    expect(orderData()).toEqual(data);
    expect(data.some((order) => 'coupon' in order)).toBe(true);
    expect(data.some((order) => !('coupon' in order))).toBe(true);
  });

  it('makes every subscription match some events and miss most', () => {
    for (const subscription of FILTERED_SUBSCRIPTIONS) {
      const share = expectedMatches(matchesPerEvent(data, [subscription]), ORDER_CYCLE) / ORDER_CYCLE;
      expect(share).toBeGreaterThan(0.02);
      expect(share).toBeLessThan(0.25);
    }
    const perEvent = matchesPerEvent(data);
    const share = expectedMatches(perEvent, ORDER_CYCLE) / (ORDER_CYCLE * FILTERED_SUBSCRIPTIONS.length);
    expect(share).toBeGreaterThan(0.08);
    expect(share).toBeLessThan(0.12);
    expect(perEvent.some((n) => n === 0)).toBe(true);
    expect(perEvent.some((n) => n >= 2)).toBe(true);
  });

  it('counts matched pairs over whole and partial cycles', () => {
    expect(expectedMatches([1, 0, 2], 0)).toBe(0);
    expect(expectedMatches([1, 0, 2], 2)).toBe(1);
    expect(expectedMatches([1, 0, 2], 7)).toBe(7);
  });

  it('counts the matches of the events accepted, whichever requests were refused', () => {
    // Data entry 0 matches one subscription, entry 2 two; 3 events carried entry 0 and 2 entry 2.
    expect(acceptedMatches([1, 0, 2], [3, 5, 2])).toBe(7);
    expect(acceptedMatches([1, 0, 2], [0, 0, 0])).toBe(0);
    expect(() => acceptedMatches([1], undefined)).toThrow('no data');
  });
});
