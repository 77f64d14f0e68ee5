/**
 * The malformed-input table against the publisher: each request is refused with the status,
 * detail code and message of its row, and nothing of it reaches the queue.
 */
import type { InputSchema, Topic } from '../../../shared/domain/model';
import { ApiError } from '../../../shared/http/errors';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import { namespacePublisher, RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import {
  bodyOf,
  defaultContentType,
  MALFORMED_CUSTOM_MAPPING,
  MALFORMED_NAMESPACE_PUBLISHES,
  MALFORMED_PUBLISHES,
  MALFORMED_TOPICS,
} from '../../support/malformed-publishes';

const topicOf = (schema: InputSchema): Topic => ({
  name: MALFORMED_TOPICS[schema],
  inputSchema: schema,
  ...(schema === 'CustomEventSchema' ? { inputSchemaMapping: MALFORMED_CUSTOM_MAPPING } : {}),
  keys: { key1: 'key-one', key2: 'key-two' },
  tags: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  subscriptionsVersion: 1,
});

function setup(schema: InputSchema) {
  const clock = new VirtualClock();
  const queue = new RecordingQueue(clock);
  const topic = topicOf(schema);
  const publisher = new Publisher({
    store: {
      getTopic: async () => topic,
      getNamespace: async () => undefined,
      getNamespaceTopic: async () => undefined,
      listSubscriptions: async () => [subscription({ topic: topic.name })],
    },
    queue,
    fanOuts: queue.fanOuts,
    clock,
    metrics: new MetricBuffer(),
    logger: silentLogger,
    newId: () => 'pub-1',
    topicCacheMs: 1000,
  });
  const publish = (body: string | Buffer, contentType: string) =>
    publisher.publish({
      topic: topic.name,
      credential: { kind: 'key', key: 'key-one' },
      path: `/topics/${topic.name}/api/events`,
      body: typeof body === 'string' ? Buffer.from(body) : body,
      contentType,
    });
  return { publish, queue };
}

it('has at least 40 rows, covering every input schema', () => {
  expect(MALFORMED_PUBLISHES.length).toBeGreaterThanOrEqual(40);
  for (const schema of Object.keys(MALFORMED_TOPICS)) {
    expect(MALFORMED_PUBLISHES.filter((row) => row.schema === schema).length).toBeGreaterThanOrEqual(8);
  }
});

it.each([
  ['EventGridSchema', '[{"id":"1","subject":"s","eventType":"t","eventTime":"2026-11-23T10:00:00Z"}]'],
  ['CloudEventSchemaV1_0', '[{"specversion":"1.0","id":"1","source":"/s","type":"t"}]'],
  ['CustomEventSchema', '[{"kind":"t"}]'],
] as const)(
  'queues a valid request to the %s topic (the table below checks what this does not)',
  async (schema, body) => {
    const { publish, queue } = setup(schema);
    await expect(publish(body, defaultContentType(schema))).resolves.toMatchObject({
      accepted: 1,
      messages: 1,
    });
    expect(queue.sent).toHaveLength(1);
  },
);

/** The publish is refused with the row's status, detail code and message, and queues nothing. */
async function expectRefused(
  published: Promise<unknown>,
  row: { status: number; detail: string; message: RegExp | string },
  queue: RecordingQueue,
): Promise<void> {
  const refusal = await published.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(ApiError);
  const { error } = (refusal as ApiError).toBody();
  expect({ status: (refusal as ApiError).statusCode, detail: error.details?.[0]?.code }).toEqual({
    status: row.status,
    detail: row.detail,
  });
  expect(error.message).toMatch(row.message);
  expect(queue.sent).toEqual([]);
}

it.each(MALFORMED_PUBLISHES.map((row) => [`${row.schema}: ${row.what}`, row] as const))(
  '%s',
  async (_name, row) => {
    const { publish, queue } = setup(row.schema);
    await expectRefused(publish(bodyOf(row), row.contentType ?? defaultContentType(row.schema)), row, queue);
  },
);

/** The namespace publisher, taking a body and headers. */
function namespaceSetup() {
  const { send, queue } = namespacePublisher();
  const publish = (body: string | Buffer, headers: Record<string, string>) =>
    send({ body: typeof body === 'string' ? Buffer.from(body) : body, headers });
  return { publish, queue };
}

describe('namespace topics, in every content mode', () => {
  it.each(MALFORMED_NAMESPACE_PUBLISHES.map((row) => [row.what, row] as const))('%s', async (_name, row) => {
    const { publish, queue } = namespaceSetup();
    await expectRefused(publish(bodyOf(row), row.headers), row, queue);
  });
});
