/**
 * Every numeric field of every admin body, given extreme doubles (beyond 2^53, beyond DynamoDB's
 * range, below the smallest normal double, -0), through the real management API on the local
 * stack and its DynamoDB emulator: each answer is a 2xx (and the value reads back as given) or a
 * 400 naming the field and the limit, never a 5xx.
 *
 * The fields are found, not listed: the body schemas are walked (as JSON Schema) for every number,
 * and the filter's numbers come from the advanced filter operators, so a numeric field or a
 * Number operator added later is fuzzed without touching this file. The values are written into
 * the body as JSON text, so `-0` and `9007199254740993` reach the API exactly as a client sends them.
 */
import { z } from 'zod';
import { TOPIC_PROFILE } from '../../../shared/delivery/rules/profiles';
import { ADVANCED_FILTER_OPERATORS } from '../../../shared/domain/model';
import {
  namespaceBodySchema,
  namespaceSubscriptionBodySchema,
  namespaceTopicBodySchema,
} from '../../../shared/management/namespace-schema';
import { subscriptionBodySchema } from '../../../shared/management/subscription-schema';
import { topicBodySchema } from '../../../shared/management/topic-schema';
import { namespacePushBody } from '../../support/fakes';
import type { Json, TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { WebhookServer } from '../../support/webhook-server';

/** As JSON text: 1e16, 2^53 + 1, ±1e300, below the smallest normal double, MAX_VALUE, -0, DynamoDB's edges. */
const EXTREMES = [
  '1e16',
  '9007199254740993',
  '9007199254740991',
  '-9007199254740991',
  '1e300',
  '-1e300',
  '1.5e-300',
  '5e-324',
  '1.7976931348623157e308',
  '-0',
  '1e-130',
  '1e126',
] as const;

/** Of those, the ones a filter takes: within 2^53 - 1 and DynamoDB's smallest magnitude, or zero. */
const WITHIN_FILTER_LIMITS: ReadonlySet<string> = new Set([
  '9007199254740991',
  '-9007199254740991',
  '-0',
  '1e-130',
]);

/** Stands for the fuzzed number in a body until it is written as JSON text. */
const MARK = '\u0000fuzzed-number';

type Path = readonly (string | number)[];
const dotted = (path: Path) => path.join('.');

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/** Every path to a number (or integer) in a JSON Schema, through objects, arrays and alternatives. */
function numericPaths(schema: JsonSchema, at: Path = []): Path[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const here: Path[] = types.some((type) => type === 'number' || type === 'integer') ? [at] : [];
  const nested = [
    ...Object.entries(schema.properties ?? {}).flatMap(([key, child]) => numericPaths(child, [...at, key])),
    ...(schema.items === undefined ? [] : numericPaths(schema.items, [...at, 0])),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((branch) =>
      numericPaths(branch, at),
    ),
  ];
  const unique = new Map([...here, ...nested].map((path) => [dotted(path), path]));
  return [...unique.values()];
}

const fieldsOf = (schema: z.ZodType): Path[] =>
  numericPaths(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);

/** `body` with `value` at `path`, objects and arrays made on the way. */
function withValueAt(body: Json, path: Path, value: unknown): Json {
  const copy = structuredClone(body);
  let node = copy;
  for (const [index, step] of path.entries()) {
    if (index === path.length - 1) {
      node[step] = value;
      break;
    }
    node[step] ??= typeof path[index + 1] === 'number' ? [] : {};
    node = node[step];
  }
  return copy;
}

const valueAt = (document: Json, path: Path): unknown =>
  path.reduce<Json>((node, step) => (node === undefined || node === null ? undefined : node[step]), document);

/** One admin body: where it is PUT, a valid body, its schema and where its filter goes (if any). */
interface AdminBody {
  kind: string;
  route: string;
  base: Json;
  schema: z.ZodType;
  filterField?: Path;
}

const NS = '/admin/namespaces/fuzzed';
const endpoint = () => webhook.url('/fuzzed');

const BODIES: readonly AdminBody[] = [
  {
    kind: 'topic',
    route: '/admin/topics/fuzzed-topic',
    base: { properties: { inputSchema: 'EventGridSchema' } },
    schema: topicBodySchema,
  },
  {
    kind: 'namespace',
    route: '/admin/namespaces/fuzzed-namespace',
    base: { properties: {} },
    schema: namespaceBodySchema,
  },
  {
    kind: 'namespace topic',
    route: `${NS}/topics/fuzzed-retention`,
    base: { properties: {} },
    schema: namespaceTopicBodySchema,
  },
  {
    kind: 'subscription',
    route: '/admin/topics/fuzzed/eventSubscriptions/fuzzed',
    get base() {
      return {
        properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: endpoint() } } },
      };
    },
    schema: subscriptionBodySchema(TOPIC_PROFILE, true),
    filterField: ['properties', 'filter'],
  },
  {
    kind: 'namespace subscription',
    route: `${NS}/topics/fuzzed/eventSubscriptions/fuzzed`,
    get base() {
      return namespacePushBody(endpoint());
    },
    schema: namespaceSubscriptionBodySchema(true),
    filterField: ['properties', 'filtersConfiguration'],
  },
];

/** One numeric field to fuzz: the body, where the number goes and the field a 400 must name. */
interface Target {
  body: AdminBody;
  /** The body with {@link MARK} where the number goes. */
  marked: () => Json;
  field: Path;
  /** A filter's operator: its numbers within the filter limits must be taken. */
  operatorType?: string;
}

const nameOf = (target: Target) =>
  `${target.body.kind}: ${dotted(target.field)}${target.operatorType === undefined ? '' : ` (${target.operatorType})`}`;

/**
 * Advanced filters holding {@link MARK}, one for each place a Number operator takes a number:
 * `value`, an element of `values`, either end of a range (beside a valid other end, so the
 * refusal names that very number).
 */
function filterTargets(body: AdminBody, filterField: Path): Target[] {
  const at = (advanced: { operatorType: string } & Json, field: Path): Target => ({
    body,
    operatorType: advanced.operatorType,
    marked: () => withValueAt(body.base, filterField, { advancedFilters: [{ key: 'data.n', ...advanced }] }),
    field: [...filterField, 'advancedFilters', 0, ...field],
  });
  return Object.entries(ADVANCED_FILTER_OPERATORS).flatMap(([group, operators]): Target[] => {
    if (!group.startsWith('number')) return [];
    return operators.flatMap((operatorType) => {
      switch (group) {
        case 'numberCompare':
          return [at({ operatorType, value: MARK }, ['value'])];
        case 'numberSet':
          return [at({ operatorType, values: [1, 2, MARK] }, ['values', 2])];
        case 'numberRange':
          return [
            at(
              {
                operatorType,
                values: [
                  [0, 1],
                  [MARK, Number.MAX_SAFE_INTEGER],
                ],
              },
              ['values', 1, 0],
            ),
            at(
              {
                operatorType,
                values: [
                  [0, 1],
                  [-Number.MAX_SAFE_INTEGER, MARK],
                ],
              },
              ['values', 1, 1],
            ),
          ];
        default:
          throw new Error(
            `the Number operators of group '${group}' take numbers this test does not place yet`,
          );
      }
    });
  });
}

const TARGETS: readonly Target[] = BODIES.flatMap((body) => [
  ...fieldsOf(body.schema).map((field) => ({
    body,
    field,
    marked: () => withValueAt(body.base, field, MARK),
  })),
  ...(body.filterField === undefined ? [] : filterTargets(body, body.filterField)),
]);

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  await api.createTopic('fuzzed');
  for (const path of [NS, `${NS}/topics/fuzzed`]) {
    const created = await api.call('PUT', path, { properties: {} });
    if (created.status !== 201) throw new Error(`${path}: ${created.status} ${JSON.stringify(created.body)}`);
  }
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

it('finds the numeric fields of the admin bodies in their schemas', () => {
  const found = TARGETS.map((target) => `${target.body.kind}: ${dotted(target.field)}`);
  expect(found).toEqual(
    expect.arrayContaining([
      'namespace topic: properties.eventRetentionInDays',
      'subscription: properties.retryPolicy.maxDeliveryAttempts',
      'subscription: properties.retryPolicy.eventTimeToLiveInMinutes',
      'subscription: properties.destination.properties.maxEventsPerBatch',
      'subscription: properties.destination.properties.preferredBatchSizeInKilobytes',
      'subscription: properties.destination.properties.maxDeliveriesPerSecond',
      'subscription: properties.filter.advancedFilters.0.value',
      'subscription: properties.filter.advancedFilters.0.values.2',
      'subscription: properties.filter.advancedFilters.0.values.1.0',
      'namespace subscription: properties.deliveryConfiguration.push.maxDeliveryCount',
      'namespace subscription: properties.filtersConfiguration.advancedFilters.0.values.1.1',
    ]),
  );
  // Each place of each Number operator, on both kinds of subscription.
  const filterOperators = ADVANCED_FILTER_OPERATORS;
  const numberPlaces =
    filterOperators.numberCompare.length +
    filterOperators.numberSet.length +
    2 * filterOperators.numberRange.length;
  expect(TARGETS.filter((target) => target.field.includes('advancedFilters'))).toHaveLength(2 * numberPlaces);
});

it.each(TARGETS.map((target) => [nameOf(target), target] as const))(
  '%s takes extreme numbers with a 2xx or a 400 naming it, never a 5xx',
  async (_name, { body, field, marked, operatorType }) => {
    const problems: string[] = [];
    for (const literal of EXTREMES) {
      const text = JSON.stringify(marked()).replace(JSON.stringify(MARK), literal);
      const answer = await api.call('PUT', body.route, text);
      const message: string = answer.body?.error?.message ?? '';
      if (answer.status === 200 || answer.status === 201) {
        const shown = await api.call('GET', body.route);
        const expected = Number(literal) === 0 ? 0 : Number(literal);
        if (shown.status !== 200 || !Object.is(valueAt(shown.body, field), expected)) {
          problems.push(
            `${literal}: accepted, but reads back ${shown.status} ${JSON.stringify(valueAt(shown.body, field))}`,
          );
        }
      } else if (operatorType !== undefined && WITHIN_FILTER_LIMITS.has(literal)) {
        problems.push(`${literal}: within the filter limits, but refused: ${answer.status} ${message}`);
      } else if (answer.status !== 400) {
        problems.push(`${literal}: ${answer.status} ${JSON.stringify(answer.body)}`);
      } else if (
        !message.startsWith(`${dotted(field)}: `) ||
        !/\d/.test(message.slice(dotted(field).length))
      ) {
        problems.push(`${literal}: a 400 that names neither the field nor its limit: ${message}`);
      }
    }
    expect(problems).toEqual([]);
  },
);
