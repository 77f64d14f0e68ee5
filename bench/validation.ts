/**
 * What checking events against their topic's event catalog costs the publish function: the CPU
 * time of the publish path's parse-and-check step (`parseEvents`, then `checkEventData` against
 * a catalog compiled once) per event, for events whose data has 20 fields, on a topic with
 * `validateEvents` and on one without; and what compiling a catalog's schema costs once per
 * catalog version. In-process, on this machine's core: the step the publish function runs per
 * request, without its I/O.
 */
import type { Topic } from '../shared/domain/model';
import { CompiledCatalog, checkEventData } from '../shared/publish/event-validation';
import { type AcceptedEvent, parseEvents } from '../shared/publish/publish-request';

/** Fields of each event's data, and of the schema. */
export const DATA_FIELDS = 20;

export const EVENT_TYPE = 'Order.Created';

/**
 * A schema of 20 fields, of the kinds event data carries: strings (some with formats, a pattern,
 * an enum), numbers with bounds, integers, booleans, a nested object and an array of objects;
 * all required, no others allowed.
 */
export function twentyFieldSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    orderId: { type: 'string', pattern: '^o-[0-9]+$' },
    customerId: { type: 'string', minLength: 1, maxLength: 64 },
    email: { type: 'string', format: 'email' },
    placedAt: { type: 'string', format: 'date-time' },
    currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] },
    total: { type: 'number', minimum: 0 },
    tax: { type: 'number', minimum: 0 },
    discount: { type: 'number', minimum: 0, maximum: 100 },
    itemCount: { type: 'integer', minimum: 1 },
    giftWrap: { type: 'boolean' },
    express: { type: 'boolean' },
    channel: { type: 'string', enum: ['web', 'app', 'store'] },
    note: { type: 'string', maxLength: 500 },
    couponCode: { type: ['string', 'null'] },
    loyaltyPoints: { type: 'integer', minimum: 0 },
    region: { type: 'string', minLength: 2, maxLength: 2 },
    website: { type: 'string', format: 'uri' },
    shipping: {
      type: 'object',
      required: ['street', 'city', 'zip'],
      properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string' } },
    },
    lines: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['sku', 'quantity', 'price'],
        properties: {
          sku: { type: 'string' },
          quantity: { type: 'integer', minimum: 1 },
          price: { type: 'number', minimum: 0 },
        },
      },
    },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
  };
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

/** The data of event `index`: the 20 fields, matching {@link twentyFieldSchema}. */
export function orderData(index: number): Record<string, unknown> {
  return {
    orderId: `o-${index}`,
    customerId: `c-${index % 977}`,
    email: `buyer${index}@example.com`,
    placedAt: '2026-12-01T10:00:00Z',
    currency: ['EUR', 'USD', 'GBP'][index % 3],
    total: 120.5 + (index % 50),
    tax: 20.08,
    discount: index % 20,
    itemCount: 2,
    giftWrap: index % 2 === 0,
    express: false,
    channel: 'web',
    note: 'Leave at the door.',
    couponCode: null,
    loyaltyPoints: index % 300,
    region: 'DE',
    website: 'https://shop.example.com/',
    shipping: { street: 'Main St 1', city: 'Berlin', zip: '10115' },
    lines: [
      { sku: 'A-1', quantity: 1, price: 100 },
      { sku: 'B-2', quantity: 1, price: 20.5 },
    ],
    tags: ['first-order', 'newsletter'],
  };
}

/** A publish request's body: `events` Event Grid events of {@link EVENT_TYPE} with {@link orderData}. */
export function requestBody(events: number, first = 0): Buffer {
  return Buffer.from(
    JSON.stringify(
      Array.from({ length: events }, (_, offset) => ({
        id: `e-${first + offset}`,
        subject: `orders/${first + offset}`,
        eventType: EVENT_TYPE,
        eventTime: '2026-12-01T10:00:00Z',
        data: orderData(first + offset),
      })),
    ),
  );
}

const topicOf = (validateEvents: boolean): Topic => ({
  name: 'orders',
  inputSchema: 'EventGridSchema',
  keys: { key1: 'k', key2: 'k' },
  tags: {},
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  subscriptionsVersion: 0,
  validateEvents,
  catalogVersion: 1,
});

/** The catalog a topic of the measurement holds: the one type, with the 20-field schema. */
export const benchCatalog = (): CompiledCatalog =>
  new CompiledCatalog([{ name: EVENT_TYPE, schemaJson: JSON.stringify(twentyFieldSchema()) }]);

/** The publish path's parse-and-check step for one request: what the publisher runs before fan-out. */
export function parseAndCheck(
  body: Buffer,
  validateEvents: boolean,
  catalog: CompiledCatalog,
): AcceptedEvent[] {
  const topic = topicOf(validateEvents);
  const events = parseEvents(
    topic,
    { topic: 'orders', credential: undefined, path: '/topics/orders/api/events', body },
    { publishedAt: Date.parse('2026-12-01T10:00:00Z'), newId: () => 'id' },
  );
  checkEventData(events, { validateEvents, unknownEventTypes: 'allow' }, catalog);
  return events;
}

/** CPU microseconds of `work`, by the process's CPU clock (user and system). */
export function cpuMicros(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const spent = process.cpuUsage(before);
  return spent.user + spent.system;
}

export interface ValidationCost {
  eventsPerRequest: number;
  requests: number;
  /** CPU µs per event of the parse-and-check step, with validation off and on (the median of the rounds). */
  offMicrosPerEvent: number;
  onMicrosPerEvent: number;
  /** What validating adds per event, and as a share of the step without it. */
  addedMicrosPerEvent: number;
  addedShare: number;
  /** CPU ms to compile the 20-field schema, the first event of a catalog version (the median of the rounds). */
  compileMs: number;
  rounds: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * Measures the step `rounds` times each way, alternating (so neither pays for the machine's
 * moments alone), after a warm-up: `requests` requests of `eventsPerRequest` events a round.
 */
export function measureValidationCost(options: {
  eventsPerRequest: number;
  requests: number;
  rounds: number;
}): ValidationCost {
  const { eventsPerRequest, requests, rounds } = options;
  const bodies = Array.from({ length: requests }, (_, index) =>
    requestBody(eventsPerRequest, index * eventsPerRequest),
  );
  const catalog = benchCatalog();
  const run = (validate: boolean) => () => {
    for (const body of bodies) parseAndCheck(body, validate, catalog);
  };
  // Warm-up: JIT, the schema compiled.
  run(true)();
  run(false)();
  const off: number[] = [];
  const on: number[] = [];
  for (let round = 0; round < rounds; round++) {
    off.push(cpuMicros(run(false)));
    on.push(cpuMicros(run(true)));
  }
  const compiles: number[] = [];
  for (let round = 0; round < Math.max(3, Math.min(rounds, 7)); round++) {
    const fresh = benchCatalog();
    compiles.push(cpuMicros(() => fresh.validatorOf(EVENT_TYPE)) / 1000);
  }
  const events = eventsPerRequest * requests;
  const offMicrosPerEvent = median(off) / events;
  const onMicrosPerEvent = median(on) / events;
  const added = onMicrosPerEvent - offMicrosPerEvent;
  return {
    eventsPerRequest,
    requests,
    offMicrosPerEvent,
    onMicrosPerEvent,
    addedMicrosPerEvent: added,
    addedShare: offMicrosPerEvent === 0 ? 0 : added / offMicrosPerEvent,
    compileMs: median(compiles),
    rounds,
  };
}
