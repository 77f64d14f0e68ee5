/**
 * The malformed-input tables over HTTP against the local stack: each request gets its row's status
 * and an error body in the original's shape naming the event and field (or the limit); afterwards
 * a valid event per topic is delivered and nothing of the refused requests ever is. The namespace
 * table covers the content modes of namespace topics (binary, structured, batch), with the binary
 * body nested 100,000 levels deep the issue was found with.
 */
import type { InputSchema } from '../../../shared/domain/model';
import type { TestStack } from '../../support/local-stack';
import {
  BINARY_JSON,
  bodyOf,
  defaultContentType,
  MALFORMED_CUSTOM_MAPPING,
  MALFORMED_NAMESPACE_PUBLISHES,
  MALFORMED_PUBLISHES,
  MALFORMED_TOPICS,
  nested,
  VERY_DEEP,
} from '../../support/malformed-publishes';
import { sharedTestStack } from '../../support/shared-stack';
import { eventMarker, eventually, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
const keys = new Map<InputSchema, string>();
let namespaceKey: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  for (const [schema, name] of Object.entries(MALFORMED_TOPICS) as [InputSchema, string][]) {
    const created = await api.call('PUT', `/admin/topics/${name}`, {
      properties: {
        inputSchema: schema,
        ...(schema === 'CustomEventSchema'
          ? { inputSchemaMapping: { inputSchemaMappingType: 'Json', properties: MALFORMED_CUSTOM_MAPPING } }
          : {}),
      },
    });
    expect(created.status).toBe(201);
    keys.set(schema, (await api.call('POST', `/admin/topics/${name}/listKeys`)).body.key1);
    await api.subscribe(name, 'sink', webhook.url(`/${name}`));
  }
  namespaceKey = await api.createNamespaceTopic('rawshop', 'orders', 'sink', webhook.url('/ns'));
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const post = (schema: InputSchema, body: string | Buffer, contentType: string) =>
  fetch(`${api.stack.apiUrl}/topics/${MALFORMED_TOPICS[schema]}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'aeg-sas-key': keys.get(schema) ?? '' },
    body,
  });

it('answers every malformed request with its status and a named field, then delivers only the valid events sent after', async () => {
  const answers: Array<{ row: string; status: number; detail: unknown; message: string }> = [];
  for (const row of MALFORMED_PUBLISHES) {
    const response = await post(row.schema, bodyOf(row), row.contentType ?? defaultContentType(row.schema));
    const body = (await response.json()) as {
      error: { code: string; message: string; details?: Array<{ code: string; message: string }> };
    };
    // The original's error body shape: code, message and one detail repeating the message.
    expect(body.error.details?.[0]?.message).toBe(body.error.message);
    answers.push({
      row: `${row.schema}: ${row.what}`,
      status: response.status,
      detail: body.error.details?.[0]?.code,
      message: body.error.message,
    });
  }
  for (const [index, row] of MALFORMED_PUBLISHES.entries()) {
    expect(answers[index]).toEqual({
      row: `${row.schema}: ${row.what}`,
      status: row.status,
      detail: row.detail,
      message: expect.stringMatching(row.message),
    });
  }

  const sentinels: Record<InputSchema, string> = {
    EventGridSchema:
      '[{"id":"sentinel-grid","subject":"s","eventType":"t","eventTime":"2026-11-23T10:00:00Z"}]',
    CloudEventSchemaV1_0: '[{"specversion":"1.0","id":"sentinel-cloud","source":"/s","type":"t"}]',
    CustomEventSchema: '[{"kind":"t","note":"sentinel-custom"}]',
  };
  for (const [schema, body] of Object.entries(sentinels) as [InputSchema, string][]) {
    expect((await post(schema, body, defaultContentType(schema))).status).toBe(200);
  }
  for (const name of Object.values(MALFORMED_TOPICS)) {
    await eventually(() => webhook.requestsTo(`/${name}`)[0], 10_000, `the valid event at /${name}`);
  }
  // Anything queued by a refused request would have gone out before the valid events, or on a busy
  // machine soon after them.
  await new Promise((done) => setTimeout(done, 1000));
  for (const name of Object.values(MALFORMED_TOPICS)) {
    const received = webhook.requestsTo(`/${name}`);
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toContain('sentinel-');
  }
}, 60_000);

const publishToNamespace = (headers: Record<string, string>, body: string | Buffer) =>
  fetch(`${api.stack.apiUrl}/namespaces/rawshop/topics/orders:publish?api-version=2024-06-01`, {
    method: 'POST',
    headers: { ...headers, authorization: `SharedAccessKey ${namespaceKey}` },
    body,
  });

interface ErrorAnswer {
  error: { code: string; message: string; details?: Array<{ code: string; message: string }> };
}

it('answers every malformed namespace publish (binary, structured, batch) with its status and the limit it breaks', async () => {
  const answers: Array<{ row: string; status: number; detail: unknown; message: string }> = [];
  for (const row of MALFORMED_NAMESPACE_PUBLISHES) {
    const response = await publishToNamespace(row.headers, bodyOf(row));
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error.details?.[0]?.message).toBe(body.error.message);
    answers.push({
      row: row.what,
      status: response.status,
      detail: body.error.details?.[0]?.code,
      message: body.error.message,
    });
  }
  for (const [index, row] of MALFORMED_NAMESPACE_PUBLISHES.entries()) {
    expect(answers[index]).toEqual({
      row: row.what,
      status: row.status,
      detail: row.detail,
      message: expect.stringMatching(row.message),
    });
  }

  // What binary mode still takes: JSON data at the limit, and data that is not JSON, whatever its
  // bytes (brackets and bytes that are not UTF-8 included), delivered byte for byte.
  const atLimit = await publishToNamespace({ ...BINARY_JSON, 'ce-id': 'ns-deep-100' }, nested(100));
  expect(atLimit.status).toBe(200);
  const bytes = Buffer.concat([Buffer.from(nested(VERY_DEEP)), Buffer.from([0xff, 0xfe, 0x80, 0x00])]);
  const octets = await publishToNamespace(
    { ...BINARY_JSON, 'ce-id': 'ns-octets', 'content-type': 'application/octet-stream' },
    bytes,
  );
  expect(octets.status).toBe(200);
  const delivered = await webhook.requestWith('/ns', eventMarker('ns-octets'));
  const [event] = (JSON.parse(delivered.body) as Array<{ id: string; data_base64: string }>).filter(
    (candidate) => candidate.id === 'ns-octets',
  );
  expect(Buffer.from(event?.data_base64 ?? '', 'base64').equals(bytes)).toBe(true);
  const deep = await webhook.requestWith('/ns', eventMarker('ns-deep-100'));
  expect(deep.body).toContain(`"data":${nested(100)}`);

  // Only the two accepted events arrived (a refused request queues nothing).
  const ids = webhook
    .requestsTo('/ns')
    .flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map((sent) => sent.id));
  expect(ids.sort()).toEqual(['ns-deep-100', 'ns-octets']);
}, 60_000);

it('refuses binary-mode headers on a classic CloudEvents topic through the same reader (a deep body is a 400)', async () => {
  const response = await fetch(
    `${api.stack.apiUrl}/topics/${MALFORMED_TOPICS.CloudEventSchemaV1_0}/api/events?api-version=2018-01-01`,
    {
      method: 'POST',
      headers: { ...BINARY_JSON, 'aeg-sas-key': keys.get('CloudEventSchemaV1_0') ?? '' },
      body: nested(VERY_DEEP),
    },
  );
  expect(response.status).toBe(400);
  expect(((await response.json()) as ErrorAnswer).error.message).toMatch(/nests more than 100 levels deep/);
});
