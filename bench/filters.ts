/**
 * The filtered-throughput benchmark's workload: ten subscriptions with five advanced filters each,
 * shaped like order routing (amount, colour, region, priority, express, SKU, customer tier,
 * optional coupon and gift message), and the `data` of the events published to them. Every one
 * of the 19 operators appears at least once, on `data.*` keys (one nested a level deeper).
 *
 * The events are drawn from a seeded generator, so every run publishes the same events and the
 * deliveries each subscription must get are known before the run: the model is the fan-out's own
 * `compileFilter` on each event as delivered.
 */
import type { SubscriptionFilter } from '../shared/domain/model';
import { seededRandom } from '../shared/platform/clock';
import { compileFilter, type FilterView } from '../shared/publish/filter';

export interface FilteredSubscription {
  name: string;
  filter: SubscriptionFilter;
}

/** Ten subscriptions, five advanced filters each; together they match about 10% of the pairs. */
export const FILTERED_SUBSCRIPTIONS: readonly FilteredSubscription[] = [
  {
    name: 'priority-express',
    filter: {
      advancedFilters: [
        { operatorType: 'NumberGreaterThanOrEquals', key: 'data.priority', value: 4 },
        { operatorType: 'BoolEquals', key: 'data.express', value: true },
        { operatorType: 'StringNotIn', key: 'data.region', values: ['ap-southeast-2'] },
        { operatorType: 'IsNotNull', key: 'data.customer.tier' },
        { operatorType: 'NumberLessThan', key: 'data.amount', value: 400 },
      ],
    },
  },
  {
    name: 'eu-large',
    filter: {
      advancedFilters: [
        { operatorType: 'StringBeginsWith', key: 'data.region', values: ['eu-'] },
        { operatorType: 'NumberGreaterThan', key: 'data.amount', value: 200 },
        { operatorType: 'StringIn', key: 'data.customer.tier', values: ['gold', 'silver'] },
        { operatorType: 'NumberNotIn', key: 'data.priority', values: [1] },
        { operatorType: 'StringNotContains', key: 'data.sku', values: ['TO-'] },
      ],
    },
  },
  {
    name: 'coupons',
    filter: {
      advancedFilters: [
        { operatorType: 'IsNotNull', key: 'data.coupon' },
        { operatorType: 'StringIn', key: 'data.color', values: ['red', 'blue', 'green'] },
        {
          operatorType: 'NumberInRange',
          key: 'data.amount',
          values: [
            [10, 250],
            [300, 500],
          ],
        },
        { operatorType: 'BoolEquals', key: 'data.express', value: false },
        { operatorType: 'StringNotEndsWith', key: 'data.region', values: ['-2'] },
      ],
    },
  },
  {
    name: 'electronics',
    filter: {
      advancedFilters: [
        { operatorType: 'StringBeginsWith', key: 'data.sku', values: ['EL-'] },
        { operatorType: 'StringIn', key: 'data.region', values: ['us-east-1', 'us-west-2', 'eu-west-1'] },
        { operatorType: 'NumberLessThanOrEquals', key: 'data.priority', value: 4 },
        { operatorType: 'IsNullOrUndefined', key: 'data.coupon' },
        { operatorType: 'NumberGreaterThan', key: 'data.amount', value: 50 },
      ],
    },
  },
  {
    name: 'gold',
    filter: {
      advancedFilters: [
        { operatorType: 'StringIn', key: 'data.customer.tier', values: ['gold'] },
        { operatorType: 'NumberGreaterThanOrEquals', key: 'data.amount', value: 100 },
        { operatorType: 'StringNotBeginsWith', key: 'data.sku', values: ['GR-'] },
        { operatorType: 'NumberNotInRange', key: 'data.priority', values: [[1, 1]] },
        { operatorType: 'StringContains', key: 'data.color', values: ['e'] },
      ],
    },
  },
  {
    name: 'books',
    filter: {
      advancedFilters: [
        { operatorType: 'StringBeginsWith', key: 'data.sku', values: ['BK-'] },
        { operatorType: 'NumberLessThan', key: 'data.amount', value: 400 },
        { operatorType: 'NumberIn', key: 'data.priority', values: [1, 2, 3, 4] },
        { operatorType: 'StringEndsWith', key: 'data.region', values: ['-1'] },
        { operatorType: 'IsNullOrUndefined', key: 'data.giftMessage' },
      ],
    },
  },
  {
    name: 'black-yellow',
    filter: {
      advancedFilters: [
        { operatorType: 'StringIn', key: 'data.color', values: ['black', 'yellow'] },
        { operatorType: 'NumberGreaterThan', key: 'data.amount', value: 30 },
        { operatorType: 'NumberNotIn', key: 'data.priority', values: [5] },
        { operatorType: 'StringNotIn', key: 'data.customer.tier', values: ['bronze'] },
        { operatorType: 'StringNotContains', key: 'data.region', values: ['ap-'] },
      ],
    },
  },
  {
    name: 'gifts',
    filter: {
      advancedFilters: [
        { operatorType: 'IsNotNull', key: 'data.giftMessage' },
        { operatorType: 'StringContains', key: 'data.sku', values: ['BK-', 'TO-', 'EL-'] },
        { operatorType: 'NumberLessThanOrEquals', key: 'data.amount', value: 350 },
        { operatorType: 'StringNotBeginsWith', key: 'data.region', values: ['ap-'] },
        { operatorType: 'NumberGreaterThan', key: 'data.priority', value: 1 },
      ],
    },
  },
  {
    name: 'high-value',
    filter: {
      advancedFilters: [
        { operatorType: 'NumberGreaterThanOrEquals', key: 'data.amount', value: 300 },
        { operatorType: 'NumberInRange', key: 'data.priority', values: [[3, 5]] },
        { operatorType: 'StringEndsWith', key: 'data.sku', values: ['1', '3', '5', '7', '9'] },
        { operatorType: 'IsNotNull', key: 'data.customer.tier' },
        { operatorType: 'StringNotEndsWith', key: 'data.color', values: ['w'] },
      ],
    },
  },
  {
    name: 'asia-pacific',
    filter: {
      advancedFilters: [
        { operatorType: 'StringBeginsWith', key: 'data.region', values: ['ap-'] },
        { operatorType: 'NumberGreaterThan', key: 'data.amount', value: 10 },
        { operatorType: 'StringIn', key: 'data.color', values: ['red', 'blue', 'green', 'black'] },
        { operatorType: 'BoolEquals', key: 'data.express', value: false },
        { operatorType: 'NumberNotInRange', key: 'data.amount', values: [[495, 500]] },
      ],
    },
  },
];

/** Distinct event bodies the load generator cycles through (event n carries number n % this). */
export const ORDER_CYCLE = 1000;

/** The `data` fields of the events, beside the send time `t` the load generator adds. */
export function orderData(count = ORDER_CYCLE, seed = 11): Array<Record<string, unknown>> {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  return Array.from({ length: count }, () => {
    const order: Record<string, unknown> = {
      amount: Math.round(random() * 50_000) / 100,
      color: pick(['red', 'blue', 'green', 'yellow', 'black']),
      region: pick(['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-southeast-2']),
      priority: 1 + Math.floor(random() * 5),
      express: random() < 0.3,
      sku: `${pick(['BK', 'EL', 'TO', 'GR'])}-${1000 + Math.floor(random() * 9000)}`,
      customer: { tier: pick(['gold', 'silver', 'bronze']) },
    };
    // Optional members: absent from most events, so the presence operators see both cases.
    if (random() < 0.25) order.coupon = `SAVE${5 + Math.floor(random() * 4) * 5}`;
    if (random() < 0.2) order.giftMessage = 'Happy birthday!';
    return order;
  });
}

/**
 * How many of `subscriptions` each event (by its `data`) matches, as the fan-out decides it: an
 * Event Grid event as the load generator publishes it.
 */
export function matchesPerEvent(
  data: ReadonlyArray<Record<string, unknown>>,
  subscriptions: readonly FilteredSubscription[] = FILTERED_SUBSCRIPTIONS,
): number[] {
  const filters = subscriptions.map(({ filter }) => compileFilter(filter));
  return data.map((fields, n) => {
    const event = {
      id: `filters-${n}`,
      subject: `bench/filters-${n}`,
      eventType: 'Bench.Event',
      eventTime: new Date(0).toISOString(),
      data: { ...fields, t: 0 },
    };
    const view: FilterView = {
      eventType: event.eventType,
      eventTypeKey: 'eventType',
      subject: event.subject,
      event: () => event,
    };
    return filters.filter((matches) => matches(view)).length;
  });
}

/**
 * Matched (event, subscription) pairs among the events accepted, given how many accepted events
 * carried each entry of the data (`PublishOutcome.acceptedByData`): exact whichever requests
 * were refused.
 */
export function acceptedMatches(
  perEvent: readonly number[],
  acceptedByData: readonly number[] | undefined,
): number {
  if (acceptedByData === undefined) throw new Error('the load run published no data to count matches by');
  return acceptedByData.reduce((pairs, count, n) => pairs + count * (perEvent[n] ?? 0), 0);
}

/** Matched (event, subscription) pairs among the first `events` events published from the cycle. */
export function expectedMatches(perEvent: readonly number[], events: number): number {
  const cycleTotal = perEvent.reduce((a, b) => a + b, 0);
  const whole = Math.floor(events / perEvent.length);
  let pairs = whole * cycleTotal;
  for (let n = 0; n < events % perEvent.length; n += 1) pairs += perEvent[n] ?? 0;
  return pairs;
}
