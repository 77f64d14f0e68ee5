/**
 * Webhook-native delivery on the real local stack, beyond the original: signed deliveries (a
 * generated secret read back through the API, every request verified by the `standardwebhooks`
 * library unchanged, the same `webhook-id` on a retry, a rotation during which both secrets sign)
 * and W3C trace context (the publish request's `traceparent` continued on every delivery request,
 * or a trace of its own), the per-endpoint rate limit (never more requests in a second than the
 * limit; the rest held, then delivered) and token auth to the endpoint (OAuth 2.0 client
 * credentials against a token endpoint here; SigV4 checked by a verifier written from the
 * specification).
 */
import { createPublicKey, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { sigV4Problem } from '../support/sigv4';
import { eventually, type ReceivedRequest, requestsCarrying, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60 });
  key = await api.createTopic('native');
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
  await api?.close();
});

const route = (name: string) => `/admin/topics/native/eventSubscriptions/${name}`;
const requestsWith = (path: string, id: string, count: number) => requestsCarrying(webhook, path, id, count);

/** Creates (or saves again) a subscription of `native` on `endpointUrl`, with `signing` when given. */
async function subscribe(name: string, endpointUrl: string, signing?: unknown): Promise<void> {
  const saved = await putDestination(name, { endpointUrl, ...(signing === undefined ? {} : { signing }) });
  if (saved.status !== 200 && saved.status !== 201) throw new Error(`${name}: ${JSON.stringify(saved.body)}`);
}

/** Puts a subscription of `native` whose destination has these properties; the API's answer. */
const putDestination = (name: string, properties: Record<string, unknown>) =>
  api.call('PUT', route(name), {
    properties: { destination: { endpointType: 'WebHook', properties } },
  });

/** Publishes one event, with the request headers given. */
const publish = (id: string, headers: Record<string, string> = {}) =>
  api.call('POST', '/topics/native/api/events', [{ ...event(id), dataVersion: '1' }], {
    auth: false,
    headers: { 'aeg-sas-key': key, ...headers },
  });

const headersOf = (request: ReceivedRequest) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});

describe('signed deliveries', () => {
  it('signs every request so the Standard Webhooks verifier accepts it, with the same webhook-id on a retry', async () => {
    let answered = 0;
    await subscribe(
      'hooks',
      webhook.url('/hooks', () => ({ status: answered++ === 0 ? 500 : 200 })),
      {
        generate: true,
      },
    );
    const shown = await api.call('GET', route('hooks'));
    expect(shown.body.properties.destination.properties.signing).toMatchObject({
      enabled: true,
      previousSecretsValidUntil: [],
    });
    expect(JSON.stringify(shown.body)).not.toContain('whsec_');
    const { secret } = (await api.call('POST', `${route('hooks')}/getSigningSecret`)).body;
    expect(secret).toMatch(/^whsec_/);

    expect((await publish('signed-1')).status).toBe(200);
    const [first, retry] = (await requestsWith('/hooks', 'signed-1', 2)) as [
      ReceivedRequest,
      ReceivedRequest,
    ];
    for (const request of [first, retry]) {
      expect(new Webhook(secret).verify(request.body, headersOf(request))).toEqual([
        expect.objectContaining({ id: 'signed-1' }),
      ]);
    }
    // Receivers deduplicate on webhook-id: a retry of the event keeps it.
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(() => new Webhook(secret).verify(`${first.body} `, headersOf(first))).toThrow();

    // Saving the subscription again with `generate` keeps its secret.
    await subscribe('hooks', webhook.url('/hooks'), { generate: true });
    expect((await api.call('POST', `${route('hooks')}/getSigningSecret`)).body.secret).toBe(secret);
  });

  it('signs with both secrets while a rotation keeps the old one, and with the new one alone after', async () => {
    await subscribe('rotating', webhook.url('/rotating'), { generate: true });
    const old = (await api.call('POST', `${route('rotating')}/getSigningSecret`)).body.secret as string;
    const rotated = await api.call('POST', `${route('rotating')}/rotateSigningSecret`, {
      keepPreviousForMinutes: 60,
    });
    expect(rotated.status).toBe(200);
    const { secret, previousSecrets } = rotated.body;
    expect(secret).not.toBe(old);
    expect(previousSecrets).toEqual([{ scheme: 'v1', secret: old, validUntil: expect.any(String) }]);

    await publish('signed-2');
    const [during] = (await requestsWith('/rotating', 'signed-2', 1)) as [ReceivedRequest];
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(secret).verify(during.body, headersOf(during))).not.toThrow();
    expect(() => new Webhook(old).verify(during.body, headersOf(during))).not.toThrow();

    const refused = await api.call('POST', `${route('rotating')}/rotateSigningSecret`, {
      keepPreviousForMinutes: -1,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^keepPreviousForMinutes: must be a whole number from 0 to 10080\./,
    );
    const now = await api.call('POST', `${route('rotating')}/rotateSigningSecret`, {
      keepPreviousForMinutes: 0,
    });
    await publish('signed-3');
    const [after] = (await requestsWith('/rotating', 'signed-3', 1)) as [ReceivedRequest];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(now.body.secret).verify(after.body, headersOf(after))).not.toThrow();
    expect(() => new Webhook(secret).verify(after.body, headersOf(after))).toThrow();
  });

  it('refuses a secret that is not one, naming the field, and sends nothing signed without signing', async () => {
    const refused = await putDestination('bad', {
      endpointUrl: webhook.url('/bad'),
      signing: { secret: 'hunter2' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /properties\.destination\.properties\.signing\.secret: must start with whsec_/,
    );

    await subscribe('plain', webhook.url('/plain'));
    await publish('signed-4');
    const [plain] = (await requestsWith('/plain', 'signed-4', 1)) as [ReceivedRequest];
    expect(plain.headers['webhook-signature']).toBeUndefined();
    expect((await api.call('POST', `${route('plain')}/getSigningSecret`)).status).toBe(409);
  });
});

describe('asymmetric signatures (v1a)', () => {
  /** Verifies a request's v1a signature with the `whpk_` public key, as a receiver does (Node's crypto). */
  const verifiesV1a = (publicKey: string, request: ReceivedRequest) => {
    const key = createPublicKey({
      key: Buffer.concat([
        Buffer.from('302a300506032b6570032100', 'hex'),
        Buffer.from(publicKey.slice('whpk_'.length), 'base64'),
      ]),
      format: 'der',
      type: 'spki',
    });
    const headers = headersOf(request);
    const signed = Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${request.body}`);
    return headers['webhook-signature']
      .split(' ')
      .some(
        (one) => one.startsWith('v1a,') && verify(null, signed, key, Buffer.from(one.slice(4), 'base64')),
      );
  };

  it('signs with an Ed25519 key whose public key alone is shown, and rotates to v1 with both signing meanwhile', async () => {
    await subscribe('ed25519', webhook.url('/ed25519'), { generate: true, scheme: 'v1a' });
    const shown = (await api.call('GET', route('ed25519'))).body.properties.destination.properties.signing;
    expect(shown).toMatchObject({ enabled: true, scheme: 'v1a', publicKey: expect.stringMatching(/^whpk_/) });
    const keys = (await api.call('POST', `${route('ed25519')}/getSigningSecret`)).body;
    expect(keys).toEqual({
      scheme: 'v1a',
      publicKey: shown.publicKey,
      createdTime: expect.any(String),
      previousSecrets: [],
    });
    expect(JSON.stringify(keys)).not.toContain('whsk_');

    await publish('ed-1');
    const [first] = (await requestsWith('/ed25519', 'ed-1', 1)) as [ReceivedRequest];
    expect(verifiesV1a(shown.publicKey, first)).toBe(true);
    expect(verifiesV1a(shown.publicKey, { ...first, body: `${first.body} ` })).toBe(false);

    const rotated = (
      await api.call('POST', `${route('ed25519')}/rotateSigningSecret`, {
        scheme: 'v1',
        keepPreviousForMinutes: 60,
      })
    ).body;
    expect(rotated).toMatchObject({
      scheme: 'v1',
      secret: expect.stringMatching(/^whsec_/),
      previousSecrets: [{ scheme: 'v1a', publicKey: shown.publicKey }],
    });
    await publish('ed-2');
    const [during] = (await requestsWith('/ed25519', 'ed-2', 1)) as [ReceivedRequest];
    expect(verifiesV1a(shown.publicKey, during)).toBe(true);
    expect(new Webhook(rotated.secret).verify(during.body, headersOf(during))).toBeDefined();
  });

  it('refuses a rotation whose secret is not of the scheme asked for', async () => {
    await subscribe('ed-refused', webhook.url('/ed-refused'), { generate: true, scheme: 'v1a' });
    const refused = await api.call('POST', `${route('ed-refused')}/rotateSigningSecret`, {
      scheme: 'v1a',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('scheme: the secret given is a v1 secret, not v1a');
  });
});

describe('trace context', () => {
  const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it("continues the publish request's trace on every delivery request, retries included", async () => {
    let answered = 0;
    await subscribe(
      'traced',
      webhook.url('/traced', () => ({ status: answered++ === 0 ? 503 : 200 })),
    );
    const published = await publish('traced-1', { traceparent: PARENT });
    expect(published.status).toBe(200);
    const [first, retry] = (await requestsWith('/traced', 'traced-1', 2)) as [
      ReceivedRequest,
      ReceivedRequest,
    ];
    for (const request of [first, retry]) {
      const value = String(request.headers.traceparent);
      expect(value).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
      expect(value).not.toBe(PARENT);
    }
    expect(first.headers.traceparent).not.toBe(retry.headers.traceparent);
  });

  it('starts a trace of its own for an event published without one (or with an invalid one)', async () => {
    await subscribe('fresh', webhook.url('/fresh'));
    await publish('traced-2', { traceparent: 'not-a-trace' });
    const [request] = (await requestsWith('/fresh', 'traced-2', 1)) as [ReceivedRequest];
    expect(String(request.headers.traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });
});

describe('rate limit', () => {
  it('never sends more requests in a second than the limit, holding the rest until there is budget', async () => {
    const saved = await putDestination('paced', {
      endpointUrl: webhook.url('/paced'),
      maxDeliveriesPerSecond: 3,
    });
    expect(saved.status).toBe(201);
    expect(saved.body.properties.destination.properties.maxDeliveriesPerSecond).toBe(3);
    // Published early in a second, so the first requests are not sent at the end of one.
    await eventually(() => Date.now() % 1000 < 100, 2_000, 'the start of a second');
    const ids = Array.from({ length: 15 }, (_, i) => `paced-${i}`);
    const published = await api.call(
      'POST',
      '/topics/native/api/events',
      ids.map((id) => ({ ...event(id), dataVersion: '1' })),
      {
        auth: false,
        headers: { 'aeg-sas-key': key },
      },
    );
    expect(published.status).toBe(200);

    const arrived = await eventually(
      () => {
        const found = webhook.requestsTo('/paced');
        return found.length >= ids.length && found;
      },
      30_000,
      'all 15 paced events',
    );
    const delivered = arrived.map((request) => (JSON.parse(request.body) as Array<{ id: string }>)[0]?.id);
    expect(new Set(delivered)).toEqual(new Set(ids));
    const perSecond = new Map<number, number>();
    for (const request of arrived) {
      const second = Math.floor(request.arrivedAt / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    // The limit counts requests by the second they start; the webhook sees when they arrive, a
    // moment later, so one started at the end of a second may arrive in the next. Two seconds in
    // a row never hold more than twice the limit, whatever that moment is.
    const seconds = [...perSecond.keys()].sort((a, b) => a - b);
    for (const second of seconds) {
      const pair = (perSecond.get(second) ?? 0) + (perSecond.get(second + 1) ?? 0);
      expect({ second, pair }).toEqual({ second, pair: Math.min(pair, 6) });
    }
    // At least five seconds, since no more than three started in any.
    expect(perSecond.size).toBeGreaterThanOrEqual(5);
    // Held, not failed: every request is each event's first attempt.
    expect(arrived.every((request) => request.headers['aeg-delivery-count'] === '0')).toBe(true);
  }, 45_000);

  it('refuses a limit out of range, naming the field and the range', async () => {
    const refused = await putDestination('too-fast', {
      endpointUrl: webhook.url('/too-fast'),
      maxDeliveriesPerSecond: 10_001,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('maxDeliveriesPerSecond');
    expect(JSON.stringify(refused.body)).toContain('between 1 and 10000');
  });
});

describe('token auth to the endpoint', () => {
  /** A token endpoint handing out tok-1, tok-2, ... to the client `gridwire` with secret `s3cret`. */
  const issued: string[] = [];
  const tokenUrl = () =>
    webhook.url('/oauth/token', (request) => {
      const basic = Buffer.from(
        String(request.headers.authorization).replace(/^Basic /, ''),
        'base64',
      ).toString();
      const form = new URLSearchParams(request.body);
      if (basic !== 'gridwire:s3cret' || form.get('grant_type') !== 'client_credentials') {
        return { status: 401, body: '{"error":"invalid_client"}' };
      }
      issued.push(`tok-${issued.length + 1}`);
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          access_token: issued.at(-1),
          token_type: 'Bearer',
          expires_in: 3600,
          scope: form.get('scope'),
        }),
      };
    });

  it('gets a token by the client credentials grant, keeps it, and on a 401 sends once more with a fresh one', async () => {
    // The endpoint takes only the newest token handed out.
    const protectedUrl = webhook.url('/oauth-protected', (request) => ({
      status: request.headers.authorization === `Bearer ${issued.at(-1)}` ? 200 : 401,
    }));
    const saved = await putDestination('oauth', {
      endpointUrl: protectedUrl,
      auth: {
        type: 'OAuth2ClientCredentials',
        tokenUrl: tokenUrl(),
        clientId: 'gridwire',
        clientSecret: 's3cret',
        scope: 'hooks.write',
      },
    });
    expect(saved.status).toBe(201);
    expect(saved.body.properties.destination.properties.auth).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: expect.stringContaining('/oauth/token'),
      clientId: 'gridwire',
      scope: 'hooks.write',
      clientSecret: null,
    });
    expect(JSON.stringify(saved.body)).not.toContain('s3cret');

    await publish('oauth-1');
    await publish('oauth-2');
    const [first] = (await requestsWith('/oauth-protected', 'oauth-1', 1)) as [ReceivedRequest];
    await requestsWith('/oauth-protected', 'oauth-2', 1);
    expect(first.headers.authorization).toBe('Bearer tok-1');
    // Two deliveries, one token request.
    expect(webhook.requestsTo('/oauth/token')).toHaveLength(1);
    expect(new URLSearchParams(webhook.requestsTo('/oauth/token')[0]?.body).get('scope')).toBe('hooks.write');

    // The token is revoked: the next delivery is refused with it, and made again with a new one.
    issued.push('tok-revoked-elsewhere');
    await publish('oauth-3');
    const [refused, accepted] = (await requestsWith('/oauth-protected', 'oauth-3', 2)) as [
      ReceivedRequest,
      ReceivedRequest,
    ];
    expect(refused.headers.authorization).toBe('Bearer tok-1');
    expect(accepted.headers.authorization).toBe(`Bearer ${issued.at(-1)}`);
    // Both requests are the same attempt: not a retry.
    expect(accepted.headers['aeg-delivery-count']).toBe('0');
  });

  it('keeps the client secret when a document is sent back without it, and refuses a new client without one', async () => {
    const endpointUrl = webhook.url('/oauth-kept');
    const auth = { type: 'OAuth2ClientCredentials', tokenUrl: tokenUrl(), clientId: 'gridwire' };
    const body = (properties: Record<string, unknown>) => ({
      properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl, ...properties } } },
    });
    expect(
      (await api.call('PUT', route('kept'), body({ auth: { ...auth, clientSecret: 's3cret' } }))).status,
    ).toBe(201);
    expect(
      (await api.call('PUT', route('kept'), body({ auth: { ...auth, clientSecret: null } }))).status,
    ).toBe(200);
    await publish('kept-1');
    const [request] = (await requestsWith('/oauth-kept', 'kept-1', 1)) as [ReceivedRequest];
    expect(String(request.headers.authorization)).toMatch(/^Bearer tok-/);

    const refused = await api.call(
      'PUT',
      route('kept'),
      body({ auth: { ...auth, clientId: 'someone-else' } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(
      'properties.destination.properties.auth.clientSecret: is required',
    );
    const clash = await api.call(
      'PUT',
      route('kept'),
      body({
        auth: { ...auth, clientSecret: 's3cret' },
        deliveryAttributeMappings: [{ name: 'Authorization', type: 'Static', properties: { value: 'x' } }],
      }),
    );
    expect(clash.status).toBe(400);
    expect(clash.body.error.message).toContain(
      "properties.destination.properties.deliveryAttributeMappings.0.name: 'Authorization' can't be set by a mapping: a subscription with auth sends its own Authorization header",
    );
  });

  it('signs deliveries with SigV4 and the stack’s own credentials, as an endpoint behind IAM checks them', async () => {
    const problems: Array<string | undefined> = [];
    const endpointUrl = webhook.url('/iam?stage=prod', (request) => {
      const problem = sigV4Problem(
        { method: request.method, target: request.path, headers: request.headers, body: request.body },
        api.stack.endpoints.credentials,
        { region: 'eu-west-1', service: 'execute-api' },
      );
      problems.push(problem);
      return { status: problem === undefined ? 200 : 403 };
    });
    const saved = await putDestination('iam', {
      endpointUrl,
      auth: { type: 'AwsSigV4', service: 'execute-api', region: 'eu-west-1' },
    });
    expect(saved.status).toBe(201);
    expect(saved.body.properties.destination.properties.auth).toEqual({
      type: 'AwsSigV4',
      service: 'execute-api',
      region: 'eu-west-1',
    });
    await publish('iam-1');
    await requestsWith('/iam?stage=prod', 'iam-1', 1);
    expect(problems).toEqual([undefined]);
  });
});
