/**
 * The endpoint validation handshake on the local stack started with `validateEndpoints` (as on
 * AWS), at time scale 60 so the 5-minute validation window lasts 5 s: the Event Grid validation
 * event and the CloudEvents `OPTIONS` handshake, manual validation through the validation URL,
 * failure after the window, re-triggering, a changed endpoint, and no events before consent.
 */

import { namespacePushBody } from '../support/fakes';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import {
  eventMarker,
  eventually,
  allowingOrigin as options,
  type ReceivedRequest,
  WebhookServer,
} from '../support/webhook-server';

const TIME_SCALE = 60;
let api: TestStack;
let webhook: WebhookServer;
let key: string;

/** Echoes the validation code, as a receiver built for Event Grid does. */
const echoCode = (request: ReceivedRequest) => {
  if (request.headers['aeg-event-type'] !== 'SubscriptionValidation') return { status: 200 };
  const [validation] = JSON.parse(request.body) as [{ data: { validationCode: string } }];
  return { status: 200, body: JSON.stringify({ validationResponse: validation.data.validationCode }) };
};

const validationRequest = (path: string) =>
  eventually(
    () =>
      webhook
        .requestsTo(path)
        .find((request) => request.headers['aeg-event-type'] === 'SubscriptionValidation'),
    10_000,
    `a validation event at ${path}`,
  );

const stateOf = async (path: string): Promise<string> =>
  (await api.call('GET', path)).body.properties.provisioningState;

const waitForState = (path: string, state: string) =>
  eventually(async () => ((await stateOf(path)) === state ? state : undefined), 10_000, `${path} ${state}`);

const deliveredIds = (path: string) =>
  webhook
    .requestsTo(path)
    .filter((request) => request.method === 'POST' && request.headers['aeg-event-type'] === 'Notification')
    .flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id));

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: TIME_SCALE, validateEndpoints: true });
  key = await api.createTopic('guarded');
}, 30_000);

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const SUBS = '/admin/topics/guarded/eventSubscriptions';

it('validates an endpoint that echoes the code, and only then delivers to it', async () => {
  await api.subscribe('guarded', 'echo', webhook.url('/echo', echoCode));
  const validation = await validationRequest('/echo');
  const [sent] = JSON.parse(validation.body);
  expect(validation.headers['aeg-subscription-name']).toBe('ECHO');
  expect(sent).toMatchObject({
    eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
    topic: '/gridwire/topics/guarded',
    dataVersion: '2',
    metadataVersion: '1',
    data: {
      validationCode: expect.any(String),
      validationUrl: expect.stringContaining('/eventSubscriptions/validate?'),
    },
  });
  await waitForState(`${SUBS}/echo`, 'Succeeded');
  const doc = (await api.call('GET', `${SUBS}/echo`)).body;
  expect(doc.properties.endpointValidation.validatedAt).toEqual(expect.any(String));
  expect(JSON.stringify(doc)).not.toContain(sent.data.validationCode);

  expect((await api.publish('guarded', key, [event('after-consent')])).status).toBe(200);
  await webhook.requestWith('/echo', eventMarker('after-consent'));
});

it('asks an endpoint behind OAuth 2.0 with a token, as its deliveries will be sent', async () => {
  const tokenUrl = webhook.url('/guarded-token', () => ({
    status: 200,
    body: JSON.stringify({ access_token: 'tok-guarded', token_type: 'Bearer', expires_in: 600 }),
  }));
  // Without the token it refuses, as an endpoint behind auth does.
  const endpointUrl = webhook.url('/behind-auth', (request) =>
    request.headers.authorization === 'Bearer tok-guarded' ? echoCode(request) : { status: 401 },
  );
  const created = await api.call('PUT', `${SUBS}/behind-auth`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl,
          auth: { type: 'OAuth2ClientCredentials', tokenUrl, clientId: 'gridwire', clientSecret: 's3cret' },
        },
      },
    },
  });
  expect(created.status).toBe(201);
  const validation = await validationRequest('/behind-auth');
  expect(validation.headers.authorization).toBe('Bearer tok-guarded');
  await waitForState(`${SUBS}/behind-auth`, 'Succeeded');
});

it('holds events back while awaiting manual action; a GET of the validation URL validates', async () => {
  await api.subscribe(
    'guarded',
    'manual',
    webhook.url('/manual', () => ({ status: 200 })),
  );
  const validation = await validationRequest('/manual');
  const { validationUrl } = JSON.parse(validation.body)[0].data;
  await eventually(
    async () =>
      (await api.call('GET', `${SUBS}/manual`)).body.properties.endpointValidation.handshakeError
        ? true
        : undefined,
    10_000,
    'the handshake error',
  );
  const waiting = (await api.call('GET', `${SUBS}/manual`)).body.properties;
  expect(waiting.provisioningState).toBe('AwaitingManualAction');
  expect(waiting.endpointValidation.handshakeError).toMatch(/no validationResponse/);

  expect((await api.publish('guarded', key, [event('before-consent')])).status).toBe(200);

  // Wrong code: not found, nothing changes.
  const wrong = await fetch(validationUrl.replace(/code=[^&]+/, 'code=not-the-code'));
  expect(wrong.status).toBe(404);
  const visited = await fetch(validationUrl);
  expect(visited.status).toBe(200);
  expect(await stateOf(`${SUBS}/manual`)).toBe('Succeeded');
  // Used once: a second visit finds nothing waiting.
  expect((await fetch(validationUrl)).status).toBe(404);

  expect((await api.publish('guarded', key, [event('after-manual')])).status).toBe(200);
  await webhook.requestWith('/manual', eventMarker('after-manual'));
  expect(deliveredIds('/manual')).toEqual(['after-manual']);
});

it('fails after the window; the old URL no longer validates; validate starts again', async () => {
  let agree = false;
  await api.subscribe(
    'guarded',
    'late',
    webhook.url('/late', (request) => (agree ? echoCode(request) : { status: 404 })),
  );
  const first = await validationRequest('/late');
  const { validationUrl } = JSON.parse(first.body)[0].data;
  expect(await stateOf(`${SUBS}/late`)).toBe('AwaitingManualAction');
  await waitForState(`${SUBS}/late`, 'Failed');
  const expired = await fetch(validationUrl);
  expect(expired.status).toBe(400);
  expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('ValidationExpired');

  agree = true;
  const retriggered = await api.call('POST', `${SUBS}/late/validate`);
  expect(retriggered.status).toBe(200);
  expect(retriggered.body.properties.provisioningState).toBe('AwaitingManualAction');
  await waitForState(`${SUBS}/late`, 'Succeeded');
  const validations = webhook
    .requestsTo('/late')
    .filter((r) => r.headers['aeg-event-type'] === 'SubscriptionValidation');
  expect(validations).toHaveLength(2);
  expect(JSON.parse(validations[1]?.body ?? '[]')[0].data.validationCode).not.toBe(
    JSON.parse(first.body)[0].data.validationCode,
  );
  // Validating a validated subscription again changes nothing and sends nothing.
  expect((await api.call('POST', `${SUBS}/late/validate`)).body.properties.provisioningState).toBe(
    'Succeeded',
  );
});

it('validates a changed endpoint again before delivering to it', async () => {
  await api.subscribe('guarded', 'moving', webhook.url('/moving-a', echoCode));
  await waitForState(`${SUBS}/moving`, 'Succeeded');
  const moved = await api.call('PUT', `${SUBS}/moving`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url('/moving-b', () => ({ status: 200 })) },
      },
    },
  });
  expect(moved.status).toBe(200);
  expect(moved.body.properties.provisioningState).toBe('AwaitingManualAction');
  await validationRequest('/moving-b');
  // Same endpoint again: no new handshake. The handshake records its attempt in the subscription
  // once the endpoint answered, which may land between this PUT's read and its write; the PUT is
  // then made again over the handshake's write, so it is answered 200 at once, never 409.
  const kept = await api.call('PUT', `${SUBS}/moving`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url('/moving-b', () => ({ status: 200 })) },
      },
      labels: ['x'],
    },
  });
  expect(kept.status).toBe(200);
  expect(kept.body.properties.labels).toEqual(['x']);
  expect(kept.body.properties.provisioningState).toBe('AwaitingManualAction');
  expect(
    webhook.requestsTo('/moving-b').filter((r) => r.headers['aeg-event-type'] === 'SubscriptionValidation'),
  ).toHaveLength(1);
});

it('holds events matched before the endpoint changed until the new endpoint agrees', async () => {
  await api.subscribe(
    'guarded',
    'retrying',
    webhook.url('/retrying-a', (request) =>
      request.headers['aeg-event-type'] === 'SubscriptionValidation' ? echoCode(request) : { status: 500 },
    ),
  );
  await waitForState(`${SUBS}/retrying`, 'Succeeded');
  expect((await api.publish('guarded', key, [event('pending')])).status).toBe(200);
  await webhook.requestWith('/retrying-a', eventMarker('pending'));
  const moved = await api.call('PUT', `${SUBS}/retrying`, {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: { endpointUrl: webhook.url('/retrying-b', () => ({ status: 200 })) },
      },
    },
  });
  expect(moved.body.properties.provisioningState).toBe('AwaitingManualAction');
  const validation = await validationRequest('/retrying-b');
  // Retries at time scale 60 come every few hundred ms; none reaches the new endpoint meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(deliveredIds('/retrying-b')).toEqual([]);
  expect((await fetch(JSON.parse(validation.body)[0].data.validationUrl)).status).toBe(200);
  await webhook.requestWith('/retrying-b', eventMarker('pending'));
});

describe('CloudEvents handshake', () => {
  const subscribeCloudEvents = (name: string, url: string) =>
    api.subscribe('guarded', name, url, { eventDeliverySchema: 'CloudEventSchemaV1_0' });

  it('sends OPTIONS with the origin; allowing it validates', async () => {
    await subscribeCloudEvents(
      'ce-ok',
      webhook.url(
        '/ce-ok',
        options((origin) => origin),
      ),
    );
    await waitForState(`${SUBS}/ce-ok`, 'Succeeded');
    const [handshake] = webhook.requestsTo('/ce-ok');
    expect(handshake?.method).toBe('OPTIONS');
    expect(handshake?.headers['webhook-request-origin']).toBe(new URL(api.stack.apiUrl).host);
    expect(handshake?.headers['webhook-request-rate']).toBe('*');
    expect(handshake?.headers['webhook-request-callback']).toContain('/eventSubscriptions/validate?');
  });

  it('accepts * as the allowed origin', async () => {
    await subscribeCloudEvents(
      'ce-star',
      webhook.url(
        '/ce-star',
        options(() => '*'),
      ),
    );
    await waitForState(`${SUBS}/ce-star`, 'Succeeded');
  });

  it('waits on another origin; the callback URL validates by hand', async () => {
    await subscribeCloudEvents(
      'ce-other',
      webhook.url(
        '/ce-other',
        options(() => 'elsewhere.example'),
      ),
    );
    const handshake = await eventually(() => webhook.requestsTo('/ce-other')[0], 10_000, 'OPTIONS');
    await eventually(
      async () =>
        (await api.call('GET', `${SUBS}/ce-other`)).body.properties.endpointValidation.handshakeError
          ? true
          : undefined,
      10_000,
      'the handshake error',
    );
    expect(
      (await api.call('GET', `${SUBS}/ce-other`)).body.properties.endpointValidation.handshakeError,
    ).toMatch(/elsewhere\.example/);
    expect((await fetch(String(handshake.headers['webhook-request-callback']))).status).toBe(200);
    expect(await stateOf(`${SUBS}/ce-other`)).toBe('Succeeded');
  });

  it('runs for namespace push subscriptions too', async () => {
    await api.call('PUT', '/admin/namespaces/shop', { properties: {} });
    await api.call('PUT', '/admin/namespaces/shop/topics/orders', { properties: {} });
    const path = '/admin/namespaces/shop/topics/orders/eventSubscriptions/push';
    const created = await api.call(
      'PUT',
      path,
      namespacePushBody(
        webhook.url(
          '/ns-push',
          options((origin) => origin),
        ),
      ),
    );
    expect(created.status).toBe(201);
    expect(created.body.properties.provisioningState).toBe('AwaitingManualAction');
    await waitForState(path, 'Succeeded');
    expect(webhook.requestsTo('/ns-push')[0]?.method).toBe('OPTIONS');
  });
});
