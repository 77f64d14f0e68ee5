/**
 * The malformed-input table over HTTP against the local stack: each request gets its row's status
 * and an error body in the original's shape naming the event and field (or the limit); afterwards
 * a valid event per topic is delivered and nothing of the refused requests ever is.
 */
import type { InputSchema } from '../../shared/domain/model';
import { startTestStack, type TestStack } from '../support/local-stack';
import {
  bodyOf,
  defaultContentType,
  MALFORMED_CUSTOM_MAPPING,
  MALFORMED_PUBLISHES,
  MALFORMED_TOPICS,
} from '../support/malformed-publishes';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
const keys = new Map<InputSchema, string>();

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack();
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
}, 30_000);

afterAll(async () => {
  await api?.close();
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
  // Anything queued by a refused request would have gone out before the valid events.
  await new Promise((done) => setTimeout(done, 300));
  for (const name of Object.values(MALFORMED_TOPICS)) {
    const received = webhook.requestsTo(`/${name}`);
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toContain('sentinel-');
  }
}, 60_000);
