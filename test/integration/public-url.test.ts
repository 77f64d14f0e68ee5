/**
 * URLs handed out (topic `endpoint`s, validation URLs, the handshake's origin and callback) come
 * from the configured public URL, never from the request: requests here name the metadata
 * address in `Host` and forwarding headers, and get the stack's own address (the default) or its
 * `publicUrl` back.
 */
import { request } from 'node:http';
import { startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const SPOOFED = '169.254.169.254';

/** A call to the stack with `Host` (and forwarding headers) naming the metadata address. */
function spoofedCall(api: TestStack, method: string, path: string, body?: unknown) {
  const { port } = new URL(api.stack.apiUrl);
  const text = body === undefined ? '' : JSON.stringify(body);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host: SPOOFED,
          'x-forwarded-host': SPOOFED,
          'x-forwarded-proto': 'http',
          authorization: `Bearer ${api.stack.adminToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('with the default public URL (the stack’s own address)', () => {
  let api: TestStack;
  let webhook: WebhookServer;

  beforeAll(async () => {
    webhook = await new WebhookServer().start();
    api = await startTestStack({ timeScale: 60, validateEndpoints: true });
  }, 30_000);

  afterAll(async () => {
    await api?.close();
    await webhook?.stop();
  });

  it('answers topic endpoints on its own address', async () => {
    const created = await spoofedCall(api, 'PUT', '/admin/topics/hosted', {});
    expect(created.status).toBe(201);
    expect(JSON.parse(created.text).properties.endpoint).toBe(`${api.stack.apiUrl}/topics/hosted/api/events`);
    const listed = await spoofedCall(api, 'GET', '/admin/topics');
    expect(listed.text).toContain(`${api.stack.apiUrl}/topics/hosted/api/events`);
    expect(`${created.text}${listed.text}`).not.toContain(SPOOFED);
  });

  it('sends validation URLs, handshake origins and callbacks on its own address', async () => {
    const eventGrid = await spoofedCall(api, 'PUT', '/admin/topics/hosted/eventSubscriptions/egsub', {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/eg') } },
      },
    });
    expect(eventGrid.status).toBe(201);
    const cloudEvents = await spoofedCall(api, 'PUT', '/admin/topics/hosted/eventSubscriptions/cesub', {
      properties: {
        eventDeliverySchema: 'CloudEventSchemaV1_0',
        destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/ce') } },
      },
    });
    expect(cloudEvents.status).toBe(201);

    const first = (path: string, matches: (request: ReceivedRequest) => boolean) =>
      eventually(() => webhook.requestsTo(path).find(matches), 15_000, `the handshake at ${path}`);
    const validation = await first(
      '/eg',
      (request) => request.headers['aeg-event-type'] === 'SubscriptionValidation',
    );
    const [sent] = JSON.parse(validation.body) as [{ data: { validationUrl: string } }];
    expect(sent.data.validationUrl.startsWith(`${api.stack.apiUrl}/eventSubscriptions/validate?`)).toBe(true);

    const options = await first('/ce', (request) => request.method === 'OPTIONS');
    expect(options.headers['webhook-request-origin']).toBe(new URL(api.stack.apiUrl).host);
    const callback = String(options.headers['webhook-request-callback'] ?? '');
    expect(callback.startsWith(`${api.stack.apiUrl}/eventSubscriptions/validate?`)).toBe(true);
    expect(JSON.stringify([validation, options])).not.toContain(SPOOFED);
  }, 30_000);
});

describe('with a configured public URL', () => {
  let api: TestStack;

  beforeAll(async () => {
    api = await startTestStack({ publicUrl: 'https://events.example.test/' });
  }, 30_000);

  afterAll(async () => {
    await api?.close();
  });

  it('answers topic endpoints on the configured URL, whatever the request names', async () => {
    const created = await spoofedCall(api, 'PUT', '/admin/topics/custom', {});
    expect(created.status).toBe(201);
    expect(JSON.parse(created.text).properties.endpoint).toBe(
      'https://events.example.test/topics/custom/api/events',
    );
    expect(created.text).not.toContain(SPOOFED);
  });
});
