/**
 * The malformed-input table against the publisher: each request is refused with the kind of
 * refusal, code and message of its row, and nothing of it reaches the queue; and through the
 * publish handler, the answer is the row's status with the error body of the original service.
 */

import type { InputSchema, Topic } from '../../../shared/domain/model';
import type { HttpResult } from '../../../shared/http/api-gateway';
import { silentLogger } from '../../../shared/observability/logging';
import { MetricBuffer } from '../../../shared/observability/metrics';
import { Publisher } from '../../../shared/publish/publisher';
import { PublishRejection } from '../../../shared/publish/rejection';
import { namespacePublisher, RecordingQueue, subscription, VirtualClock } from '../../support/fakes';
import {
  bodyOf,
  defaultContentType,
  MALFORMED_CUSTOM_MAPPING,
  MALFORMED_NAMESPACE_PUBLISHES,
  MALFORMED_PUBLISHES,
  MALFORMED_TOPICS,
} from '../../support/malformed-publishes';
import { MemoryAcceptedIds } from '../../support/memory-stores';
import { namespacePublish, publishHandler, topicPublish } from '../../support/publish-handler';

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
    acceptedIds: new MemoryAcceptedIds(),
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
  return { publish, queue, publisher };
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

/** The kind of refusal the table's statuses stand for. */
const KIND_OF_STATUS = { 400: 'invalid', 413: 'tooLarge' } as const;

/** The publish is refused with the row's kind of refusal, code and message, and queues nothing. */
async function expectRefused(
  published: Promise<unknown>,
  row: { status: 400 | 413; detail: string; message: RegExp },
  queue: RecordingQueue,
): Promise<void> {
  const refusal = await published.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(PublishRejection);
  const { kind, code, message } = refusal as PublishRejection;
  expect({ kind, code }).toEqual({ kind: KIND_OF_STATUS[row.status], code: row.detail });
  expect(message).toMatch(row.message);
  expect(queue.sent).toEqual([]);
}

/** The error code of the answer with each of the table's statuses. */
const ERROR_CODE_OF_STATUS = { 400: 'BadRequest', 413: 'PayloadTooLarge' } as const;

/**
 * The answer is the row's status, and its body the original service's error body: the error code
 * of that status, the message, and one detail with the row's code and the same message.
 */
function expectAnswer(
  answer: HttpResult,
  row: { status: 400 | 413; detail: string; message: RegExp },
  queue: RecordingQueue,
): void {
  expect(answer.statusCode).toBe(row.status);
  expect(answer.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  const body = JSON.parse(answer.body ?? '') as { error: { message: string } };
  expect(body).toEqual({
    error: {
      code: ERROR_CODE_OF_STATUS[row.status],
      message: expect.stringMatching(row.message),
      details: [{ code: row.detail, message: body.error.message }],
    },
  });
  expect(queue.sent).toEqual([]);
}

it.each(MALFORMED_PUBLISHES.map((row) => [`${row.schema}: ${row.what}`, row] as const))(
  '%s',
  async (_name, row) => {
    const { publish, queue } = setup(row.schema);
    await expectRefused(publish(bodyOf(row), row.contentType ?? defaultContentType(row.schema)), row, queue);
  },
);

describe('through the publish handler, as a caller gets it', () => {
  it.each(MALFORMED_PUBLISHES.map((row) => [`${row.schema}: ${row.what}`, row] as const))(
    '%s',
    async (_name, row) => {
      const { publisher, queue } = setup(row.schema);
      const topic = MALFORMED_TOPICS[row.schema];
      const contentType = row.contentType ?? defaultContentType(row.schema);
      const answer = await publishHandler(publisher).call(
        topicPublish(topic, 'key-one', contentType, bodyOf(row)),
      );
      expectAnswer(answer, row, queue);
    },
  );
});

/** The namespace publisher, taking a body and headers. */
function namespaceSetup() {
  const { send, queue, publisher } = namespacePublisher();
  const publish = (body: string | Buffer, headers: Record<string, string>) =>
    send({ body: typeof body === 'string' ? Buffer.from(body) : body, headers });
  return { publish, queue, publisher };
}

describe('namespace topics, in every content mode', () => {
  it.each(MALFORMED_NAMESPACE_PUBLISHES.map((row) => [row.what, row] as const))('%s', async (_name, row) => {
    const { publish, queue } = namespaceSetup();
    await expectRefused(publish(bodyOf(row), row.headers), row, queue);
  });

  it.each(MALFORMED_NAMESPACE_PUBLISHES.map((row) => [row.what, row] as const))(
    'through the publish handler: %s',
    async (_name, row) => {
      const { publisher, queue } = namespaceSetup();
      const answer = await publishHandler(publisher).call(
        namespacePublish('shop', 'orders', 'ns-key-one', { ...row.headers }, bodyOf(row)),
      );
      expectAnswer(answer, row, queue);
    },
  );
});
