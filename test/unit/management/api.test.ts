import { ENV } from '../../../shared/config/resources';
import type { AttemptRecord } from '../../../shared/domain/attempts';
import { isWebhook, type Subscription } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement, type ManagementDeps } from '../../../shared/management/api';
import { deliveriesDocument, parseHistoryWindow } from '../../../shared/management/message-log-routes';
import type { SecretSealer } from '../../../shared/platform/sealing';
import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';
import type { HistoryWindow } from '../../../shared/storage/attempt-history';
import { subscription } from '../../support/fakes';
import { emptyHistory, routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

/** A stored subscription's sealed query string (a webhook's). */
const sealedQueryOf = (subscription: Subscription | undefined) =>
  subscription !== undefined && isWebhook(subscription.destination)
    ? subscription.destination.sealedQuery
    : undefined;

/** In-memory stores holding the Event Grid topic `orders`; the promise settles once it is there. */
function storesWithTopic() {
  const stores = memoryStores();
  const ready = stores.topics.create('orders', { inputSchema: 'EventGridSchema', tags: {} }, new Date(0));
  return { stores, ready };
}

describe('delivery history document', () => {
  it('groups attempts by delivery and states where each stands', () => {
    const base = { topic: 't', subscription: 's', eventId: 'e', publishedAt: 0 };
    const doc = deliveriesDocument([
      {
        ...base,
        deliveryId: 'd1',
        attempt: 1,
        at: 1000,
        outcome: 'Busy',
        httpStatus: 503,
        next: { action: 'retry', dueAt: 31_000 },
      },
      { ...base, deliveryId: 'd1', attempt: 2, at: 31_000, outcome: 'Delivered', next: { action: 'none' } },
      {
        ...base,
        deliveryId: 'd2',
        attempt: 1,
        at: 0,
        outcome: 'BadRequest',
        next: { action: 'dropped', reason: 'NonRetriableOutcome' },
      },
    ]);
    expect(doc.value.map((d) => [d.deliveryId, d.status, d.attempts.length])).toEqual([
      ['d1', 'Delivered', 2],
      ['d2', 'Dropped', 1],
    ]);
    expect(doc.value[1]).toMatchObject({ reason: 'NonRetriableOutcome' });
  });
});

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

/** The 400 a call throws, as its message. */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('delivery history window', () => {
  it('defaults to the 24 hours before now, or before `until`', () => {
    expect(parseHistoryWindow({}, NOW, 7)).toEqual({ since: NOW - 24 * HOUR, until: NOW });
    expect(parseHistoryWindow({ until: '2026-11-20T00:00:00Z' }, NOW, 7)).toEqual({
      since: Date.parse('2026-11-19T00:00:00Z'),
      until: Date.parse('2026-11-20T00:00:00Z'),
    });
    expect(parseHistoryWindow({ since: '2026-11-20' }, NOW, 7)).toEqual({
      since: Date.parse('2026-11-20T00:00:00Z'),
      until: NOW,
    });
  });

  it('is at most the retention long', () => {
    expect(parseHistoryWindow({ since: '2026-11-16T12:00:00Z' }, NOW, 7)).toEqual({
      since: NOW - 7 * 24 * HOUR,
      until: NOW,
    });
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-16T11:59:59Z' }, NOW, 7))).toMatch(
      /^since: the window may span at most 7 days/,
    );
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-20', until: '2026-11-23' }, NOW, 2))).toMatch(
      /^since: the window may span at most 2 days/,
    );
  });

  it('refuses malformed times and an empty window, naming the field', () => {
    expect(refusal(() => parseHistoryWindow({ since: 'yesterday' }, NOW, 7))).toMatch(
      /^since: must be an ISO 8601/,
    );
    expect(refusal(() => parseHistoryWindow({ until: '2026-13-01' }, NOW, 7))).toMatch(/^until: /);
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-24T00:00:00Z' }, NOW, 7))).toMatch(
      /^since: must be before until/,
    );
  });
});

describe('GET .../deliveries', () => {
  const record: AttemptRecord = {
    topic: 'orders',
    subscription: 'audit',
    eventId: 'order-1',
    deliveryId: 'd1',
    publishedAt: NOW - HOUR,
    attempt: 1,
    at: NOW - HOUR,
    outcome: 'Busy',
    httpStatus: 503,
    next: { action: 'retry', dueAt: NOW - HOUR + 30_000 },
  };

  function call(query: Record<string, string>) {
    const lookups: Array<[string, string, string, HistoryWindow]> = [];
    const stores = memoryStores();
    const ready = stores.subscriptions.put(subscription({ topic: 'orders', name: 'audit' }), undefined);
    const deps = routeTestDeps(stores, {
      clock: { now: () => NOW, sleep: async () => {} },
      history: {
        ...emptyHistory(7),
        find: async (owner: { topic: string; name: string }, eventId: string, window: HistoryWindow) => {
          lookups.push([owner.topic, owner.name, eventId, window]);
          return {
            records: [record],
            searched: { since: window.since + HOUR, until: window.until },
            truncated: true,
          };
        },
      },
    });
    const event = {
      routeKey: 'GET /admin/topics/{topic}/eventSubscriptions/{subscription}/deliveries',
      pathParameters: { topic: 'orders', subscription: 'audit' },
      queryStringParameters: query,
    } as unknown as HttpEvent;
    return { result: ready.then(() => handleManagement(event, deps)), lookups };
  }

  it('looks in the window asked for and says what it searched', async () => {
    const { result, lookups } = call({ eventId: 'order-1', since: '2026-11-22T00:00:00Z' });
    const answer = await result;

    expect(lookups).toEqual([
      ['orders', 'audit', 'order-1', { since: Date.parse('2026-11-22T00:00:00Z'), until: NOW }],
    ]);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body as string)).toEqual({
      ...deliveriesDocument([record]),
      searched: { since: '2026-11-22T01:00:00.000Z', until: '2026-11-23T12:00:00.000Z' },
      truncated: true,
    });
  });

  it('refuses a window longer than the retention before looking', async () => {
    const { result, lookups } = call({ eventId: 'order-1', since: '2026-11-01T00:00:00Z' });
    await expect(result).rejects.toMatchObject({ statusCode: 400 });
    expect(lookups).toEqual([]);
  });
});

/** The sealing of a stack with `sealer` as its key, or with none. */
const sealingWith = (sealer?: SecretSealer): ManagementDeps['sealing'] =>
  sealer === undefined ? { kind: 'noKey' } : { kind: 'sealed', sealer };

/** Management over `stores` at `NOW`, answering at once, with a sealing key when given. */
const subscriptionDeps = (stores: ReturnType<typeof memoryStores>, sealer?: SecretSealer) =>
  routeTestDeps(stores, {
    clock: { now: () => NOW, sleep: async () => {} },
    sealing: sealingWith(sealer),
  });

describe('PUT an event subscription with delivery headers', () => {
  function put(body: unknown, sealer?: SecretSealer) {
    const { stores, ready } = storesWithTopic();
    const deps = subscriptionDeps(stores, sealer);
    const event = {
      routeKey: 'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
      pathParameters: { topic: 'orders', subscription: 'audit' },
      requestContext: { domainName: 'api.example.test' },
      body: JSON.stringify(body),
    } as unknown as HttpEvent;
    return {
      result: ready.then(() => handleManagement(event, deps)),
      stored: () => stores.subscriptions.list('orders'),
    };
  }

  const body = (mappings: unknown[], extra: Record<string, unknown> = {}) => ({
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: 'https://hooks.example.test/in',
          deliveryAttributeMappings: mappings,
          ...extra,
        },
      },
    },
  });
  const secret = {
    name: 'Authorization',
    type: 'Static',
    properties: { value: 'Bearer t0ps3cret', isSecret: true },
  };
  const plain = { name: 'X-Plain', type: 'Static', properties: { value: 'hello' } };
  const dynamic = { name: 'X-Tenant', type: 'Dynamic', properties: { sourceField: 'data.tenant' } };

  it('stores secret values sealed, the batch settings given, and never shows or stores the plain text', async () => {
    const sealer = new AesGcmSealer(keyText('test key'));
    const { result, stored } = put(body([plain, secret, dynamic], { maxEventsPerBatch: 10 }), sealer);
    const answer = await result;

    expect(answer.statusCode).toBe(201);
    const destination = (await stored())[0]?.destination;
    expect(destination).toMatchObject({ maxEventsPerBatch: 10 });
    expect(destination).not.toHaveProperty('preferredBatchSizeInKilobytes');
    const [first, second, third] = destination?.deliveryAttributeMappings ?? [];
    expect(first).toEqual({ name: 'X-Plain', type: 'Static', isSecret: false, value: 'hello' });
    expect(third).toEqual({ name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' });
    expect(second).toEqual({
      name: 'Authorization',
      type: 'Static',
      isSecret: true,
      sealedValue: expect.stringMatching(/^v1\./),
    });
    await expect(sealer.open((second as { sealedValue: string }).sealedValue)).resolves.toBe(
      'Bearer t0ps3cret',
    );
    expect(JSON.stringify(await stored())).not.toContain('t0ps3cret');
    expect(answer.body).not.toContain('t0ps3cret');
    expect(answer.body).not.toContain((second as { sealedValue: string }).sealedValue);
    expect(JSON.parse(answer.body as string).properties.destination.properties).toMatchObject({
      maxEventsPerBatch: 10,
      preferredBatchSizeInKilobytes: 64,
      deliveryAttributeMappings: [
        { name: 'X-Plain', properties: { value: 'hello', isSecret: false } },
        { name: 'Authorization', properties: { value: null, isSecret: true } },
        { name: 'X-Tenant', properties: { sourceField: 'data.tenant' } },
      ],
    });
  });

  it('without a sealing key, refuses a secret value with a 503 naming the setting, and stores nothing', async () => {
    const { result, stored } = put(body([plain, secret]));
    const error = await result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ statusCode: 503 });
    expect((error as ApiError).message).toMatch(
      /^properties\.destination\.properties\.deliveryAttributeMappings\.1\.properties\.isSecret: /,
    );
    expect((error as ApiError).message).toContain(ENV.headerKeySecretArn);
    expect(await stored()).toEqual([]);
  });

  it('without a sealing key, takes non-secret mappings', async () => {
    const { result, stored } = put(body([plain, dynamic]));
    expect((await result).statusCode).toBe(201);
    expect((await stored())[0]?.destination.deliveryAttributeMappings).toHaveLength(2);
  });
});

describe('URLs handed out', () => {
  /** A request whose Host and forwarding headers name the metadata address. */
  const spoofed = (routeKey: string, pathParameters: Record<string, string>, body?: unknown) =>
    ({
      routeKey,
      pathParameters,
      headers: {
        host: '169.254.169.254',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': '169.254.169.254',
      },
      requestContext: { domainName: '169.254.169.254', stage: 'latest' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }) as unknown as HttpEvent;

  async function deps() {
    const queued: string[] = [];
    const { stores, ready } = storesWithTopic();
    await ready;
    const publicUrl = () => 'https://events.example.test/';
    const management = routeTestDeps(stores, {
      queue: {
        send: async (_queue: string, messages: ReadonlyArray<{ body: string }>) => {
          queued.push(...messages.map((message) => message.body));
        },
      },
      clock: { now: () => NOW, sleep: async () => {} },
      validateEndpoints: true,
      validationWindowMs: 300_000,
      publicUrl,
      publishUrl: publicUrl,
    });
    return { management, queued };
  }

  it('builds the topic endpoint from the configured public URL, never from Host', async () => {
    const { management } = await deps();
    for (const answer of [
      await handleManagement(spoofed('GET /admin/topics/{topic}', { topic: 'orders' }), management),
      await handleManagement(spoofed('GET /admin/topics', {}), management),
    ]) {
      expect(answer.body).toContain('"endpoint":"https://events.example.test/topics/orders/api/events"');
      expect(answer.body).not.toContain('169.254.169.254');
    }
  });

  it('builds the validation URL (and so the handshake origin) from the configured public URL', async () => {
    const { management, queued } = await deps();
    const answer = await handleManagement(
      spoofed(
        'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
        { topic: 'orders', subscription: 'audit' },
        {
          properties: {
            destination: {
              endpointType: 'WebHook',
              properties: { endpointUrl: 'https://hooks.example.test/in' },
            },
          },
        },
      ),
      management,
    );
    expect(answer.statusCode).toBe(201);
    expect(queued).toHaveLength(1);
    const job = JSON.parse(queued[0] as string);
    expect(job.validationUrl).toMatch(/^https:\/\/events\.example\.test\/eventSubscriptions\/validate\?/);
    expect(queued[0]).not.toContain('169.254.169.254');
  });
});

describe('an endpoint URL with a query string', () => {
  async function deps(sealer?: SecretSealer) {
    const { stores, ready } = storesWithTopic();
    await ready;
    let ids = 0;
    const management = routeTestDeps(stores, {
      queue: { send: async () => {} },
      clock: { now: () => NOW, sleep: async () => {} },
      newId: () => `id-${++ids}`,
      validateEndpoints: true,
      validationWindowMs: 300_000,
      sealing: sealingWith(sealer),
    });
    return { management, stored: () => stores.subscriptions.get('orders', 'audit') };
  }
  const call = (management: ManagementDeps, routeKey: string, body?: unknown) =>
    handleManagement(
      {
        routeKey,
        pathParameters: { topic: 'orders', subscription: 'audit' },
        requestContext: {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      } as unknown as HttpEvent,
      management,
    );
  const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
  const put = (endpointUrl: string) => ({
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
  });

  it('stores it parsed and its query string sealed; GET and list show it without; getFullUrl shows it whole', async () => {
    const sealer = new AesGcmSealer(keyText('test key'));
    const { management, stored } = await deps(sealer);
    const created = await call(management, `PUT ${SUB}`, put('HTTPS://Hooks.Example.test/in?token=s3cret'));
    expect(created.statusCode).toBe(201);
    expect((await stored())?.destination).toEqual({
      endpointType: 'WebHook',
      endpointUrl: 'https://hooks.example.test/in',
      sealedQuery: expect.stringMatching(/^v1\./),
    });
    expect((await stored())?.validation?.endpointUrl).toBe('https://hooks.example.test/in');
    expect(JSON.stringify(await stored())).not.toContain('s3cret');

    for (const answer of [
      created,
      await call(management, `GET ${SUB}`),
      await call(management, 'GET /admin/topics/{topic}/eventSubscriptions'),
    ]) {
      expect(answer.body).toContain('"endpointBaseUrl":"https://hooks.example.test/in"');
      expect(answer.body).not.toContain('s3cret');
      expect(answer.body).not.toContain('token');
    }
    const full = await call(management, `POST ${SUB}/getFullUrl`);
    expect(JSON.parse(full.body as string)).toEqual({
      endpointUrl: 'https://hooks.example.test/in?token=s3cret',
    });

    // The same URL again keeps its seal, and so its validation; another query string is another endpoint.
    const before = await stored();
    await call(management, `PUT ${SUB}`, put('https://hooks.example.test/in?token=s3cret'));
    expect(sealedQueryOf(await stored())).toBe(sealedQueryOf(before));
    expect((await stored())?.validation).toEqual(before?.validation);
    await call(management, `PUT ${SUB}`, put('https://hooks.example.test/in?token=other'));
    expect((await stored())?.validation).not.toEqual(before?.validation);
    expect(sealedQueryOf(await stored())).not.toBe(sealedQueryOf(before));
  });

  it('reads a subscription stored before sealing (the whole URL in the clear)', async () => {
    const { management } = await deps();
    await management.subscriptions.put(
      subscription({
        topic: 'orders',
        name: 'audit',
        destination: { endpointType: 'WebHook', endpointUrl: 'https://h.example.test/in?token=old' },
      }),
      undefined,
    );
    const shown = await call(management, `GET ${SUB}`);
    expect(shown.body).not.toContain('token=old');
    const full = await call(management, `POST ${SUB}/getFullUrl`);
    expect(JSON.parse(full.body as string)).toEqual({ endpointUrl: 'https://h.example.test/in?token=old' });
  });

  it('without a sealing key, refuses a query string with a 503 naming the field, and stores nothing', async () => {
    const { management, stored } = await deps();
    const error = await call(
      management,
      `PUT ${SUB}`,
      put('https://hooks.example.test/in?token=s3cret'),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ statusCode: 503 });
    expect((error as ApiError).message).toMatch(/^properties\.destination\.properties\.endpointUrl: /);
    expect(await stored()).toBeUndefined();
    expect((await call(management, `PUT ${SUB}`, put('https://hooks.example.test/in'))).statusCode).toBe(201);
  });

  it('refuses CR/LF in the URL with a 400 naming the field, and stores nothing', async () => {
    const { management, stored } = await deps(new AesGcmSealer(keyText('test key')));
    const error = await call(management, `PUT ${SUB}`, put('https://hooks.example.test/in\r\nX: 1')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ statusCode: 400 });
    expect((error as ApiError).message).toMatch(
      /^properties\.destination\.properties\.endpointUrl: must not contain control characters/,
    );
    expect(await stored()).toBeUndefined();
  });
});

describe('the dead-letter notices topic', () => {
  function api() {
    const stores = memoryStores();
    const deps = subscriptionDeps(stores);
    const call = (routeKey: string, pathParameters: Record<string, string>, body: unknown) =>
      handleManagement(
        {
          routeKey,
          pathParameters,
          requestContext: { domainName: 'api.example.test' },
          body: JSON.stringify(body),
        } as unknown as HttpEvent,
        deps,
      );
    return { stores, call };
  }
  const hook = {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: 'https://hooks.example.test/dl' } },
    },
  };

  it('is made, as an Event Grid schema topic, with its first subscription', async () => {
    const { stores, call } = api();
    expect(await stores.topics.get('gridwire-deadletters')).toBeUndefined();
    const created = await call(
      'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
      { topic: 'gridwire-deadletters', subscription: 'ops' },
      hook,
    );
    expect(created.statusCode).toBe(201);
    expect(await stores.topics.get('gridwire-deadletters')).toMatchObject({ inputSchema: 'EventGridSchema' });
    expect((await stores.subscriptions.list('gridwire-deadletters')).map((s) => s.name)).toEqual(['ops']);
  });

  it('is not made by a subscription body that is refused', async () => {
    const { stores, call } = api();
    const refused = await call(
      'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}',
      { topic: 'gridwire-deadletters', subscription: 'ops' },
      { properties: {} },
    ).catch((error: ApiError) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(await stores.topics.get('gridwire-deadletters')).toBeUndefined();
  });

  it('takes only the Event Grid schema when created by name', () => {
    const { call } = api();
    return expect(
      call(
        'PUT /admin/topics/{topic}',
        { topic: 'gridwire-deadletters' },
        { properties: { inputSchema: 'CloudEventSchemaV1_0' } },
      ),
    ).rejects.toMatchObject({
      statusCode: 400,
      message:
        "properties.inputSchema: topic 'gridwire-deadletters' carries Gridwire's dead-letter notices, which are Event Grid events; it takes EventGridSchema only.",
    });
  });
});
