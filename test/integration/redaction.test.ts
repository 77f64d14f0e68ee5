/**
 * Secrets kept out of the message log on the real local stack: an endpoint that echoes the
 * request it got (headers, URL, the bearer token) in several forms, and a token endpoint that
 * refuses with a body quoting the client's credentials; what `GET .../deliveries` shows of each
 * attempt holds none of them (`shared/delivery/rules/redact.ts`).
 */
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60 });
  key = await api.createTopic('redacted');
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
  await api?.close();
});

const route = (name: string) => `/admin/topics/redacted/eventSubscriptions/${name}`;
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Publishes one event of `eventType` (each subscription here takes its own type). */
async function publish(id: string, eventType: string): Promise<void> {
  expect((await api.publish('redacted', key, [event(id, eventType)])).status).toBe(200);
}

/** The first attempt the message log shows of the event, once it shows one. */
const firstAttempt = (name: string, id: string) =>
  eventually(
    async () => {
      const found = await api.call('GET', `${route(name)}/deliveries?eventId=${id}`);
      return found.body?.value?.[0]?.attempts?.[0];
    },
    10_000,
    `an attempt of ${id}`,
  );

it('keeps no secret header value or sealed query value an endpoint echoes in the answer excerpt', async () => {
  const HEADER_SECRET = 'hdr-secret/4b1d+"q"';
  const QUERY_SECRET = 'qs-secret-93e0';
  /** Echoes the request as a debugging endpoint would: its URL, its headers, and the key in other forms. */
  const echo = (request: ReceivedRequest) => {
    const apiKey = String(request.headers['x-api-key']);
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: request.path,
        headers: request.headers,
        encoded: encodeURIComponent(apiKey),
        basic: `Basic ${base64(`user:${apiKey}`)}`,
      }),
    };
  };
  const saved = await api.call('PUT', route('echo'), {
    properties: {
      deliveryLog: 'All',
      filter: { includedEventTypes: ['Echo'] },
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: webhook.url(`/echo?code=${QUERY_SECRET}`, echo),
          deliveryAttributeMappings: [
            { name: 'X-Api-Key', type: 'Static', properties: { value: HEADER_SECRET, isSecret: true } },
            { name: 'X-Plain', type: 'Static', properties: { value: 'plain-value', isSecret: false } },
          ],
        },
      },
    },
  });
  expect(saved.status).toBe(201);

  await publish('echo-1', 'Echo');
  const attempt = await firstAttempt('echo', 'echo-1');
  expect(attempt).toMatchObject({ outcome: 'Delivered', httpStatus: 200 });
  // The endpoint did get the secrets: they are left out of what the log keeps of its answer.
  expect(webhook.requestsTo(`/echo?code=${QUERY_SECRET}`)[0]?.headers['x-api-key']).toBe(HEADER_SECRET);
  const response = String(attempt.response);
  for (const shown of [
    HEADER_SECRET,
    JSON.stringify(HEADER_SECRET).slice(1, -1),
    encodeURIComponent(HEADER_SECRET),
    base64(`user:${HEADER_SECRET}`),
    QUERY_SECRET,
  ]) {
    expect(response).not.toContain(shown);
  }
  expect(response).toContain('"x-api-key":"[redacted]"');
  expect(response).toContain('"url":"/echo?code=[redacted]"');
  expect(response).toContain('"basic":"Basic [redacted]"');
  // What is not secret stays readable.
  expect(response).toContain('"x-plain":"plain-value"');
}, 30_000);

it("keeps the client secret and a token out of the error of a token endpoint's refusal", async () => {
  const CLIENT_SECRET = 'client-s3cret-7e21';
  let tokenRequests = 0;
  const tokenUrl = webhook.url('/oauth/refuses', (request) => {
    tokenRequests += 1;
    return {
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: 'invalid_client',
        got: request.headers.authorization,
        secret: CLIENT_SECRET,
        access_token: 'tok-stray-51c9',
      }),
    };
  });
  const saved = await api.call('PUT', route('oauth'), {
    properties: {
      filter: { includedEventTypes: ['Oauth'] },
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: webhook.url('/oauth/protected'),
          auth: {
            type: 'OAuth2ClientCredentials',
            tokenUrl,
            clientId: 'gridwire',
            clientSecret: CLIENT_SECRET,
          },
        },
      },
    },
  });
  expect(saved.status).toBe(201);

  await publish('oauth-1', 'Oauth');
  const attempt = await firstAttempt('oauth', 'oauth-1');
  expect(tokenRequests).toBeGreaterThanOrEqual(1);
  expect(webhook.requestsTo('/oauth/protected')).toHaveLength(0);
  const error = String(attempt.error);
  expect(error).toMatch(/^the token endpoint answered 401: /);
  expect(error).toContain('"error":"invalid_client"');
  for (const shown of [CLIENT_SECRET, base64(`gridwire:${CLIENT_SECRET}`), 'tok-stray-51c9']) {
    expect(error).not.toContain(shown);
  }
  expect(error).toContain('"got":"Basic [redacted]"');
  expect(error).toContain('"secret":"[redacted]"');
}, 30_000);

it('keeps the access token an endpoint echoes out of the answer excerpt', async () => {
  const TOKEN = 'tok-echoed-2f8a61';
  const tokenUrl = webhook.url('/oauth/issues', () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 }),
  }));
  const endpointUrl = webhook.url('/oauth/echoes', (request) => ({
    status: 500,
    body: `refused: authorization=${String(request.headers.authorization)}`,
  }));
  const saved = await api.call('PUT', route('bearer'), {
    properties: {
      filter: { includedEventTypes: ['Bearer'] },
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl,
          auth: {
            type: 'OAuth2ClientCredentials',
            tokenUrl,
            clientId: 'gridwire',
            clientSecret: 'bearer-s3cret',
          },
        },
      },
    },
  });
  expect(saved.status).toBe(201);

  await publish('bearer-1', 'Bearer');
  const attempt = await firstAttempt('bearer', 'bearer-1');
  expect(webhook.requestsTo('/oauth/echoes')[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(attempt).toMatchObject({ outcome: 'GenericError', httpStatus: 500 });
  expect(attempt.response).toBe('refused: authorization=Bearer [redacted]');
}, 30_000);
