/**
 * The console's API behind session tokens, route by route: an operator session reaches the admin
 * API (but for the session routes); a portal session reaches only the subscriptions of its topic
 * or namespace that carry its labels, everything else answering as if it did not exist, and an
 * action its permissions leave out is a 403. Tokens: made by `POST /admin/sessions`, refused when
 * expired, forged or revoked. The pages carry their security headers.
 */
import { ROUTES } from '../../../shared/config/routes';
import { CONSOLE_BUNDLE_FILES } from '../../../shared/console/files';
import type { HttpEvent, HttpResult } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { handleManagement, type ManagementDeps } from '../../../shared/management/api';
import type { SessionScope } from '../../../shared/sessions/scope';
import { sessionToken } from '../../../shared/sessions/token';
import { callRoute, routeTestDeps } from '../../support/management-routes';
import { memoryStores } from '../../support/memory-stores';

const NOW = Date.parse('2026-12-02T10:00:00Z');

const webhook = (labels: string[], url = 'https://hooks.example.test/in') => ({
  properties: {
    destination: { endpointType: 'WebHook', properties: { endpointUrl: url } },
    labels,
  },
});

const pushWebhook = (labels: string[], url = 'https://hooks.example.test/in') => ({
  properties: {
    deliveryConfiguration: {
      deliveryMode: 'Push',
      push: { destination: { endpointType: 'WebHook', properties: { endpointUrl: url } } },
    },
    labels,
  },
});

/** The stack: topics `orders` and `billing`, namespace `shop` with topic `carts`, labelled subscriptions. */
async function setup(overrides: Partial<ManagementDeps> = {}) {
  // A clock the test sets; nothing here waits on it.
  let time = NOW;
  const clock = { now: () => time, sleep: async () => {}, set: (ms: number) => (time = ms) };
  let id = 0;
  const deps = routeTestDeps(memoryStores(), { clock, newId: () => `id-${++id}`, ...overrides });
  const admin = async (routeKey: string, params: Record<string, string>, body?: unknown) => {
    const answer = await callRoute(deps, routeKey, params, body);
    if (answer.status >= 300) throw new Error(`${routeKey}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  // Both keep an archive, so a replay can start.
  const archived = { properties: { archive: { retentionInDays: 7 } } };
  for (const topic of ['orders', 'billing']) await admin('PUT /admin/topics/{topic}', { topic }, archived);
  const classic = 'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}';
  await admin(classic, { topic: 'orders', subscription: 'acme-a' }, webhook(['tenant=acme']));
  await admin(classic, { topic: 'orders', subscription: 'acme-b' }, webhook(['env=prod', 'tenant=acme']));
  await admin(classic, { topic: 'orders', subscription: 'other-a' }, webhook(['tenant=other']));
  await admin(classic, { topic: 'billing', subscription: 'acme-x' }, webhook(['tenant=acme']));
  await admin('PUT /admin/namespaces/{namespace}', { namespace: 'shop' }, {});
  await admin(
    'PUT /admin/namespaces/{namespace}/topics/{topic}',
    { namespace: 'shop', topic: 'carts' },
    archived,
  );
  const pushed = 'PUT /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
  await admin(
    pushed,
    { namespace: 'shop', topic: 'carts', subscription: 'acme-n' },
    pushWebhook(['tenant=acme']),
  );
  await admin(
    pushed,
    { namespace: 'shop', topic: 'carts', subscription: 'other-n' },
    pushWebhook(['tenant=other']),
  );
  // A replay running on each subscription: `rp-1`.
  for (const [topic, subscription] of [
    ['orders', 'acme-a'],
    ['orders', 'acme-b'],
    ['orders', 'other-a'],
    ['billing', 'acme-x'],
    ['shop/carts', 'acme-n'],
    ['shop/carts', 'other-n'],
  ] as const) {
    await deps.replays.put({
      id: 'rp-1',
      topic,
      topicCreatedAt: new Date(NOW).toISOString(),
      subscription,
      since: NOW - 3_600_000,
      until: NOW,
      state: 'Running',
      found: 0,
      queued: 0,
      delivered: 0,
      createdAt: new Date(NOW).toISOString(),
      updatedAt: new Date(NOW).toISOString(),
    });
  }

  const mint = async (scope: unknown, expiresInMinutes?: number) =>
    (await admin('POST /admin/sessions', {}, { scope, ...(expiresInMinutes ? { expiresInMinutes } : {}) }))
      .token as string;

  /** A call of the console's API: its status and JSON body (a refusal's error body). */
  const call = async (token: string | undefined, method: string, path: string, body?: unknown) => {
    const event = {
      routeKey: 'ANY /console/api/{proxy+}',
      rawPath: `/console/api${path}`,
      pathParameters: { proxy: path.slice(1) },
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      requestContext: { http: { method } },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    } as unknown as HttpEvent;
    try {
      const answer = await handleManagement(event, deps);
      return {
        status: answer.statusCode as number,
        body: answer.body ? JSON.parse(answer.body as string) : undefined,
      };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.statusCode, body: error.toBody() };
    }
  };
  return { deps, clock, admin, mint, call };
}

const ACME_ORDERS: SessionScope = {
  role: 'portal',
  topic: 'orders',
  labels: ['tenant=acme'],
} as SessionScope;

/** Every portal route on a subscription, as method and path after the subscription's, with a body that passes. */
// Three members each: a row shorter than the test's parameters would make jest pass `done`.
const SUBSCRIPTION_CALLS: readonly [string, string, unknown][] = [
  ['GET', '', undefined],
  ['PUT', '', webhook([], 'https://hooks.example.test/edited')],
  ['POST', '/getFullUrl', undefined],
  ['GET', '/deliveries', undefined],
  ['POST', '/resend', { eventId: 'e-1' }],
  ['POST', '/rotateSigningSecret', undefined],
  ['GET', '/health', undefined],
  ['POST', '/enable', undefined],
  ['POST', '/pause', undefined],
  ['POST', '/resume', undefined],
  ['GET', '/deadLetters', undefined],
  ['POST', '/deadLetters/replay', { keys: ['none'] }],
  ['POST', '/sendTestEvent', undefined],
  ['GET', '/replays', undefined],
  ['GET', '/replays/{replayId}', undefined],
  ['POST', '/replays', { since: '2026-12-02T09:00:00Z' }],
  ['DELETE', '/replays/{replayId}', undefined],
  ['DELETE', '', undefined],
];

/** A row's path after the subscription's, its `{replayId}` the replay each subscription has. */
const suffixPath = (suffix: string) => suffix.replace('{replayId}', 'rp-1');

/** A refusal that the subscription or topic is not there (what a portal gets outside its scope). */
const isScopeRefusal = (answer: { status: number; body: { error?: { message?: string } } }) =>
  answer.status === 404 && /does not exist/.test(answer.body?.error?.message ?? '');

describe('POST /admin/sessions', () => {
  it('makes a token that lasts the minutes asked, 60 by default', async () => {
    const { admin } = await setup();
    const made = await admin('POST /admin/sessions', {}, { scope: { role: 'operator' } });
    expect(made).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^gws1\./),
      expiresAt: new Date(NOW + 60 * 60_000).toISOString(),
      scope: { role: 'operator' },
    });
    const longest = await admin(
      'POST /admin/sessions',
      {},
      { scope: { role: 'operator' }, expiresInMinutes: 720 },
    );
    expect(longest.expiresAt).toBe(new Date(NOW + 720 * 60_000).toISOString());
  });

  it.each([
    [{ scope: { role: 'operator' }, expiresInMinutes: 721 }, /expiresInMinutes: is at most 720/],
    [
      { scope: { role: 'operator' }, expiresInMinutes: 0 },
      /expiresInMinutes: must be a whole number of minutes from 1 to 720/,
    ],
    [{}, /scope: is required/],
    [
      { scope: { role: 'portal', topic: 'a', namespace: 'b' } },
      /scope: a portal scope names exactly one of topic and namespace/,
    ],
    [{ scope: { role: 'portal', topic: 'a', permissions: ['everything'] } }, /scope\.permissions\.0/],
    [{ scope: { role: 'root' } }, /scope\.role: role must be 'operator' or 'portal'/],
    [{ scope: { role: 'operator' }, extra: 1 }, /extra: unknown field/],
  ])('refuses %j naming the field', async (body, message) => {
    const { deps } = await setup();
    const answer = await callRoute(deps, 'POST /admin/sessions', {}, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(message);
  });

  it('is a 503 on a stack without a session key', async () => {
    const { deps } = await setup({ sessionKeys: undefined });
    const answer = await callRoute(deps, 'POST /admin/sessions', {}, { scope: { role: 'operator' } });
    expect(answer.status).toBe(503);
  });
});

describe('session tokens at the console API', () => {
  it('are required, and refused when expired, forged, revoked or signed elsewhere', async () => {
    const { mint, call, clock, admin, deps } = await setup();
    expect((await call(undefined, 'GET', '/topics')).body.error.code).toBe('SessionRequired');
    const token = await mint({ role: 'operator' }, 5);
    expect((await call(token, 'GET', '/session')).status).toBe(200);

    const forged = sessionToken(
      { id: 'x', issuedAt: NOW, expiresAt: NOW + 60_000, scope: { role: 'operator' } },
      'a key of another stack',
    );
    expect((await call(forged, 'GET', '/topics')).body.error.code).toBe('SessionInvalid');

    clock.set(NOW + 5 * 60_000);
    expect((await call(token, 'GET', '/topics')).body.error.code).toBe('SessionExpired');
    clock.set(NOW);

    const kept = await mint({ role: 'operator' });
    await admin('POST /admin/sessions/revokeAll', {}, {});
    expect((await call(kept, 'GET', '/topics')).body.error.code).toBe('SessionInvalid');
    const after = await mint({ role: 'operator' });
    expect((await call(after, 'GET', '/topics')).status).toBe(200);
    expect(deps.sessionKeys).toBeDefined();
  });

  it('tell the page its role, scope and end', async () => {
    const { mint, call } = await setup();
    const token = await mint(ACME_ORDERS, 30);
    expect((await call(token, 'GET', '/session')).body).toEqual({
      id: expect.any(String),
      role: 'portal',
      scope: {
        ...ACME_ORDERS,
        permissions: ['write', 'pause', 'rotateSecret', 'resend', 'replay', 'sendTest'],
      },
      expiresAt: new Date(NOW + 30 * 60_000).toISOString(),
      branding: {},
    });
  });
});

describe('an operator session', () => {
  it('runs every admin operation but the session routes', async () => {
    const { mint, call } = await setup();
    const token = await mint({ role: 'operator' });
    const topics = await call(token, 'GET', '/topics');
    expect(topics.status).toBe(200);
    expect(topics.body.value.map((topic: { name: string }) => topic.name).sort()).toEqual([
      'billing',
      'orders',
    ]);
    expect((await call(token, 'PUT', '/topics/new-one', {})).status).toBe(201);
    expect((await call(token, 'POST', '/topics/orders/listKeys')).status).toBe(200);
    expect((await call(token, 'GET', '/topics/orders/eventSubscriptions')).body.value).toHaveLength(3);
    for (const path of ['/sessions', '/sessions/revokeAll']) {
      expect([path, (await call(token, 'POST', path, { scope: { role: 'operator' } })).status]).toEqual([
        path,
        404,
      ]);
    }
    expect((await call(token, 'GET', '/no/such/route')).status).toBe(404);
  });
});

describe('a portal session', () => {
  it('lists only the subscriptions of its topic that carry its labels', async () => {
    const { mint, call } = await setup();
    const token = await mint({ ...ACME_ORDERS, labels: ['tenant=acme', 'env=prod'] });
    const list = await call(token, 'GET', '/topics/orders/eventSubscriptions');
    expect(list.body.value.map((s: { name: string }) => s.name)).toEqual(['acme-b']);
    const wide = await mint(ACME_ORDERS);
    const both = await call(wide, 'GET', '/topics/orders/eventSubscriptions');
    expect(both.body.value.map((s: { name: string }) => s.name).sort()).toEqual(['acme-a', 'acme-b']);
  });

  it.each(SUBSCRIPTION_CALLS)(
    '%s <subscription>%s: in scope it runs; another topic, or labels not in scope, are a 404',
    async (method, suffix, body) => {
      const { mint, call } = await setup();
      const token = await mint(ACME_ORDERS);
      const inScope = await call(
        token,
        method,
        `/topics/orders/eventSubscriptions/acme-a${suffixPath(suffix)}`,
        body,
      );
      expect([inScope.status, isScopeRefusal(inScope)]).not.toEqual([404, true]);
      expect(inScope.status).not.toBe(403);
      const otherTenant = await call(
        token,
        method,
        `/topics/orders/eventSubscriptions/other-a${suffixPath(suffix)}`,
        body,
      );
      expect([otherTenant.status, isScopeRefusal(otherTenant)]).toEqual([404, true]);
      const otherTopic = await call(
        token,
        method,
        `/topics/billing/eventSubscriptions/acme-x${suffixPath(suffix)}`,
        body,
      );
      expect([otherTopic.status, isScopeRefusal(otherTopic)]).toEqual([404, true]);
    },
  );

  it.each(SUBSCRIPTION_CALLS)(
    '%s <namespace subscription>%s: in its namespace and labels it runs, else a 404',
    async (method, suffix, body) => {
      const { mint, call } = await setup();
      const token = await mint({ role: 'portal', namespace: 'shop', labels: ['tenant=acme'] });
      const base = '/namespaces/shop/topics/carts/eventSubscriptions';
      const inScope = await call(token, method, `${base}/acme-n${suffixPath(suffix)}`, body);
      expect([inScope.status, isScopeRefusal(inScope)]).not.toEqual([404, true]);
      const otherTenant = await call(token, method, `${base}/other-n${suffixPath(suffix)}`, body);
      expect([otherTenant.status, isScopeRefusal(otherTenant)]).toEqual([404, true]);
      const classic = await call(
        token,
        method,
        `/topics/orders/eventSubscriptions/acme-a${suffixPath(suffix)}`,
        body,
      );
      expect([classic.status, isScopeRefusal(classic)]).toEqual([404, true]);
    },
  );

  it('reaches nothing else of the admin API', async () => {
    const { mint, call } = await setup();
    const token = await mint(ACME_ORDERS);
    const refused: [string, string, unknown?][] = [
      ['GET', '/topics'],
      ['PUT', '/topics/orders', {}],
      ['DELETE', '/topics/orders'],
      ['POST', '/topics/orders/listKeys'],
      ['POST', '/topics/orders/regenerateKey', { keyName: 'key1' }],
      ['POST', '/topics/orders/eventSubscriptions/acme-a/getSigningSecret'],
      ['GET', '/namespaces'],
      ['GET', '/namespaces/shop/topics'],
      ['GET', '/topics/billing/eventSubscriptions'],
      ['GET', '/topics/billing'],
      ['POST', '/sessions', { scope: { role: 'operator' } }],
    ];
    for (const [method, path, body] of refused) {
      expect([method, path, (await call(token, method, path, body)).status]).toEqual([method, path, 404]);
    }
    expect((await call(token, 'GET', '/topics/orders')).status).toBe(200);
  });

  it("reads its topic's event catalog, and its namespace topics', but never changes it", async () => {
    const { mint, call, admin } = await setup();
    for (const params of [
      { topic: 'orders', eventType: 'Order.Created' },
      { topic: 'billing', eventType: 'Invoice.Sent' },
    ]) {
      await admin('PUT /admin/topics/{topic}/eventTypes/{eventType}', params, { schema: { type: 'object' } });
    }
    await admin(
      'PUT /admin/namespaces/{namespace}/topics/{topic}/eventTypes/{eventType}',
      { namespace: 'shop', topic: 'carts', eventType: 'Cart.Updated' },
      { example: { cart: 1 } },
    );
    const token = await mint(ACME_ORDERS);
    const list = await call(token, 'GET', '/topics/orders/eventTypes');
    expect(list.body.value.map((entry: { name: string }) => entry.name)).toEqual(['Order.Created']);
    const shown = await call(token, 'GET', '/topics/orders/eventTypes/Order.Created');
    expect(shown.body.properties.schema).toEqual({ type: 'object' });
    for (const [method, path, body] of [
      ['GET', '/topics/billing/eventTypes'],
      ['GET', '/topics/billing/eventTypes/Invoice.Sent'],
      ['PUT', '/topics/orders/eventTypes/Order.Created', {}],
      ['DELETE', '/topics/orders/eventTypes/Order.Created'],
      ['GET', '/namespaces/shop/topics/carts/eventTypes'],
    ] as const) {
      const refused = await call(token, method, path, body);
      expect([method, path, refused.status]).toEqual([method, path, 404]);
    }
    const namespaceToken = await mint({ role: 'portal', namespace: 'shop', labels: ['tenant=acme'] });
    const carts = await call(namespaceToken, 'GET', '/namespaces/shop/topics/carts/eventTypes/Cart.Updated');
    expect(carts.body.properties.example).toEqual({ cart: 1 });
    expect(
      (await call(namespaceToken, 'DELETE', '/namespaces/shop/topics/carts/eventTypes/Cart.Updated')).status,
    ).toBe(404);
    // The operator's console changes it.
    const operator = await mint({ role: 'operator' });
    expect((await call(operator, 'PUT', '/topics/orders/eventTypes/Order.Paid', {})).status).toBe(201);
  });

  it('makes new subscriptions with its labels, webhooks only, and cannot take over another tenant’s by name', async () => {
    const { mint, call, admin } = await setup();
    const token = await mint(ACME_ORDERS);
    const made = await call(
      token,
      'PUT',
      '/topics/orders/eventSubscriptions/acme-new',
      webhook(['team=web']),
    );
    expect(made.status).toBe(201);
    expect(made.body.properties.labels).toEqual(['team=web', 'tenant=acme']);
    const stored = await admin('GET /admin/topics/{topic}/eventSubscriptions/{subscription}', {
      topic: 'orders',
      subscription: 'acme-new',
    });
    expect(stored.properties.labels).toEqual(['team=web', 'tenant=acme']);
    // An edit that drops the label keeps it.
    const edited = await call(token, 'PUT', '/topics/orders/eventSubscriptions/acme-new', webhook([]));
    expect(edited.body.properties.labels).toEqual(['tenant=acme']);
    const queue = await call(token, 'PUT', '/topics/orders/eventSubscriptions/acme-q', {
      properties: { destination: { endpointType: 'StorageQueue', properties: {} } },
    });
    expect(queue.status).toBe(400);
    expect(queue.body.error.message).toMatch(
      /properties\.destination\.endpointType: a portal session makes WebHook endpoints only/,
    );
    const takeover = await call(
      token,
      'PUT',
      '/topics/orders/eventSubscriptions/other-a',
      webhook(['tenant=acme']),
    );
    expect(isScopeRefusal(takeover)).toBe(true);
  });

  it("starts, lists and cancels its own subscriptions' replays, and nothing of another tenant's", async () => {
    const { mint, call, deps } = await setup();
    const token = await mint(ACME_ORDERS);
    const own = '/topics/orders/eventSubscriptions/acme-a/replays';
    const started = await call(token, 'POST', own, { since: '2026-12-02T09:00:00Z' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ state: 'Running', since: '2026-12-02T09:00:00.000Z' });
    expect(
      (await call(token, 'GET', own)).body.value.map((replay: { id: string }) => replay.id).sort(),
    ).toEqual([started.body.id, 'rp-1'].sort());
    expect((await call(token, 'DELETE', `${own}/rp-1`)).status).toBe(200);
    expect((await call(token, 'GET', `${own}/rp-1`)).body.state).toBe('Cancelled');

    const theirs = '/topics/orders/eventSubscriptions/other-a/replays';
    for (const [method, path, body] of [
      ['GET', theirs],
      ['GET', `${theirs}/rp-1`],
      ['POST', theirs, { since: '2026-12-02T09:00:00Z' }],
      ['DELETE', `${theirs}/rp-1`],
    ] as const) {
      const refused = await call(token, method, path, body);
      expect([method, path, refused.status, isScopeRefusal(refused)]).toEqual([method, path, 404, true]);
    }
    expect((await deps.replays.list('orders', 'other-a')).map(({ id, state }) => `${id}:${state}`)).toEqual([
      'rp-1:Running',
    ]);
  });

  it('is refused what its permissions leave out, with the permission named', async () => {
    const { mint, call } = await setup();
    const token = await mint({ ...ACME_ORDERS, permissions: ['pause'] });
    const base = '/topics/orders/eventSubscriptions/acme-a';
    expect((await call(token, 'POST', `${base}/pause`)).status).toBe(200);
    // Replays are read without a permission; starting and cancelling one takes `replay`.
    expect((await call(token, 'GET', `${base}/replays`)).body.value).toHaveLength(1);
    expect((await call(token, 'GET', `${base}/replays/rp-1`)).body.state).toBe('Running');
    const cases: [string, string, string, unknown?][] = [
      ['PUT', '', 'write', webhook([])],
      ['DELETE', '', 'write'],
      ['PUT', '/../acme-brand-new', 'write', webhook([])],
      ['POST', '/rotateSigningSecret', 'rotateSecret'],
      ['POST', '/resend', 'resend', { eventId: 'e-1' }],
      ['POST', '/deadLetters/replay', 'replay', { keys: ['k'] }],
      ['POST', '/sendTestEvent', 'sendTest'],
      ['POST', '/replays', 'replay', { since: '2026-12-02T09:00:00Z' }],
      ['DELETE', '/replays/rp-1', 'replay'],
    ];
    for (const [method, suffix, permission, body] of cases) {
      const path = suffix.startsWith('/..')
        ? `/topics/orders/eventSubscriptions/acme-brand-new`
        : `${base}${suffix}`;
      const answer = await call(token, method, path, body);
      expect([method, suffix, answer.status, answer.body.error.message]).toEqual([
        method,
        suffix,
        403,
        `This portal session may not do this: it needs the '${permission}' permission.`,
      ]);
    }
  });

  it('covers every subscription route but the signing secret read back', () => {
    const classic = ROUTES.filter(
      (route) =>
        route.auth === 'admin' &&
        route.path.startsWith('/admin/topics/{topic}/eventSubscriptions/{subscription}'),
    ).map(
      (route) =>
        `${route.method} ${route.path.slice('/admin/topics/{topic}/eventSubscriptions/{subscription}'.length)}`,
    );
    const covered = SUBSCRIPTION_CALLS.map(([method, suffix]) => `${method} ${suffix}`);
    // Bulk recovery is the admin API's alone for now: a session's scope names no permission for it.
    expect(classic.filter((key) => !covered.includes(key)).sort()).toEqual([
      'GET /deadLetters/blob',
      'POST /getSigningSecret',
      'POST /recover',
      'POST /validate',
    ]);
  });
});

describe('the pages', () => {
  const page = async (deps: ManagementDeps, routeKey: string, rawPath: string): Promise<HttpResult> =>
    handleManagement(
      { routeKey, rawPath, requestContext: { http: { method: 'GET' } } } as unknown as HttpEvent,
      deps,
    );

  it('serve the console never framed, and the portal framed only by the origins given, with its logo', async () => {
    const { deps } = await setup({
      portalFrameAncestors: ['https://app.example.com'],
      portalBranding: { title: 'Acme hooks', logoUrl: 'https://cdn.example.com/logo.svg' },
    });
    const console = await page(deps, 'GET /console', '/console');
    expect(console.headers?.['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(console.body).toContain('<script type="importmap">');
    const portal = await page(deps, 'GET /portal', '/portal');
    expect(portal.body).toBe(console.body);
    expect(portal.headers?.['content-security-policy']).toContain('frame-ancestors https://app.example.com');
    expect(portal.headers?.['content-security-policy']).toContain(
      "img-src 'self' data: https://cdn.example.com;",
    );
  });

  it('serve each file of the page with its type and the security headers; any other is a 404', async () => {
    const { deps } = await setup();
    for (const name of CONSOLE_BUNDLE_FILES.filter((file) => file !== 'index.html')) {
      const answer = await page(deps, 'GET /console/{file+}', `/console/${name}`);
      expect([name, answer.statusCode, answer.headers?.['x-content-type-options']]).toEqual([
        name,
        200,
        'nosniff',
      ]);
      expect(String(answer.headers?.['content-type'])).toMatch(
        name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
    }
    for (const name of ['nope.js', '../package.json', 'vendor/other.js']) {
      await expect(page(deps, 'GET /console/{file+}', `/console/${name}`)).rejects.toMatchObject({
        statusCode: 404,
      });
    }
  });
});
