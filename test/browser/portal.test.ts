import { join } from 'node:path';
import type { Browser, Locator, Page, Route } from 'playwright-core';
import { consoleUrl, PORTAL_PATH } from '../../local/console';
import { RESEND_HEADER } from '../../shared/delivery/rules/headers';
import { signatureHeaders } from '../../shared/delivery/signing';
import { namespacePushBody } from '../support/fakes';
import { event, type Json, startTestStack, type TestStack } from '../support/local-stack';
import { deliveredTo, eventually, WebhookServer } from '../support/webhook-server';
import { archivedTopic, HOUR_MS, localFieldValue, replayRow, runningReplay, startReplay } from './archive';
import {
  closeBrowser,
  expectNotBlank,
  mintSession,
  openBrowser,
  SESSION_EXPIRED,
  WAIT_MS,
  type Watched,
  watch,
} from './browser';

const TOPIC = 'orders';
const ACME = 'tenant=acme';
const subscriptionPath = (name: string) => `/admin/topics/${TOPIC}/eventSubscriptions/${name}`;

/**
 * The portal's look as a stack's `portalBranding` gives it (the local stack has no option for it
 * yet, so the test adds it to the session's answer). The logo is a data URL, which the page's
 * policy lets in; a stack's logo is an https URL whose origin the portal's policy names.
 */
const BRANDING = {
  title: 'Acme deliveries',
  accentColor: '#c2185b',
  logoUrl: `data:image/svg+xml,${encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="24"><rect width="64" height="24" fill="#c2185b"/></svg>',
  )}`,
};

let api: TestStack;
let webhook: WebhookServer;
/** A portal session for acme's subscriptions of the topic, with every permission. */
let acmeToken: string;
let browser: Browser;
let page: Page;
let watched: Watched;
let screenshotDir: string;

const row = (name: string, on: Page = page): Locator =>
  on.locator(`[data-testid="subscription-row"][data-name="${name}"]`);
const detail = (on: Page = page): Locator => on.getByTestId('endpoint-detail');
const notice = (text: string): Locator =>
  page.getByTestId('portal-notice').filter({ hasText: new RegExp(`^${text}$`) });
const documentOf = async (name: string): Promise<Json> => {
  const answer = await api.call('GET', subscriptionPath(name));
  expect(answer.status).toBe(200);
  return answer.body;
};

/** Adds the stack's branding to the page's session answer. */
async function withBranding(route: Route): Promise<void> {
  const answer = await route.fetch();
  if (answer.status() !== 200) return route.fulfill({ response: answer });
  return route.fulfill({ response: answer, json: { ...(await answer.json()), branding: BRANDING } });
}

/** Opens `name`'s detail (a click on its name in the list). */
async function open(name: string): Promise<void> {
  await row(name).getByRole('button', { name }).click();
  await detail()
    .getByRole('heading', { name: `Endpoint ${name}` })
    .waitFor({ timeout: WAIT_MS });
}

/** A webhook subscription of the topic, as an operator makes it. */
async function subscribe(name: string, status: number, properties: Record<string, unknown>): Promise<void> {
  const created = await api.call('PUT', subscriptionPath(name), {
    properties: {
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: webhook.url(`/${name}`, () => ({
            status,
            headers: { 'content-type': 'application/json' },
            body: status < 300 ? '{"received":true}' : '{"refused":true}',
          })),
          signing: { generate: true },
        },
      },
      ...properties,
    },
  });
  if (created.status !== 201) throw new Error(`${name}: ${created.status} ${JSON.stringify(created.body)}`);
}

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60 });
  const key = await api.createTopic(TOPIC);
  await subscribe('acme-orders', 200, {
    filter: { includedEventTypes: ['Order.Created'] },
    labels: [ACME, 'team=web'],
    // Every delivery logged, not only failures: the log lists the delivered events too.
    deliveryLog: 'All',
    retryPolicy: { maxDeliveryAttempts: 7, eventTimeToLiveInMinutes: 120 },
  });
  await subscribe('acme-refused', 400, {
    filter: { includedEventTypes: ['Order.Refused'] },
    labels: [ACME],
    deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'refused' } },
  });
  await subscribe('other-orders', 200, {
    filter: { includedEventTypes: ['Order.Created'] },
    labels: ['tenant=other'],
  });
  expect((await api.publish(TOPIC, key, [event('ev-1'), event('ev-refused', 'Order.Refused')])).status).toBe(
    200,
  );
  await deliveredTo(webhook, '/acme-orders', 'ev-1', WAIT_MS);
  // A namespace with two topics, each with a push subscription: a namespace portal's topic picker.
  await api.createNamespaceTopic('shop', 'carts', 'carts-hook', webhook.url('/carts-hook'));
  expect((await api.call('PUT', '/admin/namespaces/shop/topics/returns', { properties: {} })).status).toBe(
    201,
  );
  const returns = namespacePushBody(webhook.url('/returns-hook'));
  expect(
    (await api.call('PUT', '/admin/namespaces/shop/topics/returns/eventSubscriptions/returns-hook', returns))
      .status,
  ).toBe(201);
  acmeToken = await mintSession(api, { role: 'portal', topic: TOPIC, labels: [ACME] });

  ({ browser, page, watched, screenshotDir } = await openBrowser('gridwire-portal-'));
  await page.route('**/console/api/session', withBranding);
}, 90_000);

afterAll(async () => {
  await closeBrowser({ browser, screenshotDir });
  await api?.close();
  await webhook?.stop();
});

describe('the portal', () => {
  it('is served at /portal with the console’s policy, framed by nobody unless the stack names who may', async () => {
    const response = await fetch(`${api.stack.apiUrl}${PORTAL_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).toMatch(/style-src 'self';/);
    expect(policy).toMatch(/frame-ancestors 'none'/);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(await response.text()).toContain('/console/app.js');
  });

  it('opens with the stack’s branding: title, logo and accent colour', async () => {
    await page.goto(consoleUrl(api.stack.apiUrl, acmeToken, PORTAL_PATH));
    await page.getByTestId('portal-title').filter({ hasText: BRANDING.title }).waitFor({ timeout: WAIT_MS });
    expect(await page.title()).toBe(BRANDING.title);
    const accent = await page.evaluate(() => {
      const scope = globalThis as unknown as {
        document: { documentElement: unknown };
        getComputedStyle(element: unknown): { getPropertyValue(name: string): string };
      };
      return scope.getComputedStyle(scope.document.documentElement).getPropertyValue('--accent').trim();
    });
    expect(accent).toBe(BRANDING.accentColor);
    const logo = page.getByTestId('portal-logo');
    await logo.waitFor({ timeout: WAIT_MS });
    expect(await logo.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(
      64,
    );
    // The token left the address bar; the page ran with no error and nothing its policy refused.
    expect(page.url()).toBe(`${api.stack.apiUrl}${PORTAL_PATH}`);
    expect(watched.problems).toEqual([]);
  });

  it('shows only the endpoints of its scope, with their health, and nothing of the operator’s console', async () => {
    await row('acme-orders')
      .getByTestId('health-state')
      .filter({ hasText: /^Healthy$/ })
      .waitFor({ timeout: WAIT_MS });
    await row('acme-refused').waitFor({ timeout: WAIT_MS });
    const names = await page
      .getByTestId('subscription-row')
      .evaluateAll((rows) =>
        rows.map((element) => (element as unknown as { dataset: { name: string } }).dataset.name),
      );
    expect(names.sort()).toEqual(['acme-orders', 'acme-refused']);
    expect(await page.getByTestId('portal-scope').innerText()).toBe(`Topic ${TOPIC} · ${ACME}`);
    expect(await page.getByTestId('session-end').innerText()).toMatch(
      /^Access until .+\(in (59|60) minutes\)$/,
    );
    // Every permission: nothing is said to be left out.
    expect(await page.getByTestId('permissions-note').count()).toBe(0);
    // No counters, no topics, and no call for them.
    expect(await page.getByRole('region', { name: 'Live counters' }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Topics' }).count()).toBe(0);
    const paths = watched.requests.map((request) => new URL(request.url).pathname);
    expect(paths.filter((path) => /^\/local\/|^\/console\/api\/(topics|namespaces)$/.test(path))).toEqual([]);
    expect(paths.some((path) => path.includes('other-orders'))).toBe(false);
    expect(watched.requests.every((request) => !request.url.includes(acmeToken))).toBe(true);
  });

  it('edits an endpoint: the API shows the change, and what the form does not show stays', async () => {
    const before = await documentOf('acme-orders');
    await open('acme-orders');
    await detail().getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit acme-orders' });
    // The field opens once the whole URL, read with getFullUrl, fills it.
    const url = form.locator('input[type="url"]:enabled');
    await url.waitFor({ timeout: WAIT_MS });
    expect(await url.inputValue()).toBe(webhook.url('/acme-orders'));
    await url.fill(webhook.url('/acme-orders-v2'));
    await form.getByLabel('Event types').fill('Order.Created, Order.Updated');
    await form.getByLabel('Subject begins with').fill('orders/');
    await form.getByRole('button', { name: 'Save' }).click();
    await notice('Saved acme-orders.').waitFor({ timeout: WAIT_MS });
    await detail()
      .getByTestId('event-types')
      .filter({ hasText: 'Order.Created, Order.Updated' })
      .waitFor({ timeout: WAIT_MS });

    const after = (await documentOf('acme-orders')).properties;
    expect(after.destination.properties.endpointBaseUrl).toBe(webhook.url('/acme-orders-v2'));
    expect(after.filter).toEqual({
      includedEventTypes: ['Order.Created', 'Order.Updated'],
      subjectBeginsWith: 'orders/',
    });
    // Kept: the labels, the message log's mode, the retry policy, the signing secret.
    expect(after.labels).toEqual([ACME, 'team=web']);
    expect(after.deliveryLog).toBe('All');
    expect(after.retryPolicy).toEqual(before.properties.retryPolicy);
    expect(after.destination.properties.signing.secretCreatedTime).toBe(
      before.properties.destination.properties.signing.secretCreatedTime,
    );
  });

  it('shows an endpoint’s delivery order, and an edit keeps it', async () => {
    const orderText = (text: string) =>
      detail()
        .getByTestId('ordered-delivery')
        .filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
    // acme-orders keeps no order.
    await open('acme-orders');
    await orderText('not ordered').waitFor({ timeout: WAIT_MS });
    // An endpoint of the scope whose events are delivered in order by data.orderId (none published to it).
    await subscribe('acme-ordered', 200, {
      filter: { includedEventTypes: ['Order.Shipped'] },
      labels: [ACME],
      orderedDelivery: { key: 'data.orderId' },
    });
    try {
      await row('acme-ordered').waitFor({ timeout: WAIT_MS });
      await open('acme-ordered');
      await orderText('Ordered by: data.orderId').waitFor({ timeout: WAIT_MS });

      await detail().getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit acme-ordered' });
      const url = form.locator('input[type="url"]:enabled');
      await url.waitFor({ timeout: WAIT_MS });
      await url.fill(webhook.url('/acme-ordered-v2'));
      await form.getByRole('button', { name: 'Save' }).click();
      await notice('Saved acme-ordered.').waitFor({ timeout: WAIT_MS });
      const after = (await documentOf('acme-ordered')).properties;
      expect(after.destination.properties.endpointBaseUrl).toBe(webhook.url('/acme-ordered-v2'));
      expect(after.orderedDelivery).toEqual({ key: 'data.orderId' });
      await orderText('Ordered by: data.orderId').waitFor({ timeout: WAIT_MS });
    } finally {
      await api.call('DELETE', subscriptionPath('acme-ordered'));
    }
    await row('acme-ordered').waitFor({ state: 'detached', timeout: WAIT_MS });
  });

  let created: string;

  it('creates an endpoint, which gets the scope’s label and a signing secret shown once', async () => {
    await page.getByRole('button', { name: 'New endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    await form.getByLabel('Name').fill('acme-new');
    await form.getByLabel('Endpoint URL').fill(webhook.url('/acme-new'));
    await form.getByLabel('Event types').fill('Order.Created');
    await form.getByRole('button', { name: 'Create' }).click();
    await notice('Created acme-new.').waitFor({ timeout: WAIT_MS });
    const secret = page.getByTestId('new-secret');
    await secret.waitFor({ timeout: WAIT_MS });
    created = await secret.getByTestId('secret-value').innerText();
    expect(created).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await row('acme-new').waitFor({ timeout: WAIT_MS });

    const properties = (await documentOf('acme-new')).properties;
    expect(properties.labels).toEqual([ACME]);
    expect(properties.destination.properties.signing.scheme).toBe('v1');
    expect(properties.filter.includedEventTypes).toEqual(['Order.Created']);
    // The secret the page showed is the one the endpoint signs with.
    expect((await api.call('POST', `${subscriptionPath('acme-new')}/getSigningSecret`)).body.secret).toBe(
      created,
    );

    await secret.getByRole('button', { name: 'Done, I have copied it' }).click();
    await secret.waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(await page.locator('body').innerText()).not.toContain(created);
  });

  it('sends a test event, which the endpoint receives signed with that secret', async () => {
    await detail().getByRole('heading', { name: 'Endpoint acme-new' }).waitFor({ timeout: WAIT_MS });
    await detail().getByRole('button', { name: 'Send test event' }).click();
    await detail()
      .getByTestId('test-event-result')
      .filter({ hasText: /^Test event test-\S+ sent \(Gridwire\.TestEvent\)$/ })
      .waitFor({ timeout: WAIT_MS });
    const received = await eventually(
      () =>
        webhook
          .requestsTo('/acme-new')
          .find((request) => request.body.includes('"eventType":"Gridwire.TestEvent"')),
      WAIT_MS,
      'the test event at the webhook',
    );
    const id = String(received.headers['webhook-id']);
    const timestamp = Number(received.headers['webhook-timestamp']);
    const expected = signatureHeaders([created], id, timestamp * 1000, received.body)['webhook-signature'];
    expect(String(received.headers['webhook-signature']).split(' ')).toContain(expected);
  });

  it('rotates a signing secret and shows the new one once, never reading a secret back', async () => {
    await open('acme-orders');
    await detail().getByRole('button', { name: 'Rotate secret' }).click();
    const secret = page.getByTestId('new-secret');
    await secret.waitFor({ timeout: WAIT_MS });
    const rotated = await secret.getByTestId('secret-value').innerText();
    expect(rotated).toMatch(/^whsec_/);
    expect(await secret.innerText()).toMatch(/Earlier secrets are still honoured until/);
    const secrets = (await api.call('POST', `${subscriptionPath('acme-orders')}/getSigningSecret`)).body;
    expect(secrets.secret).toBe(rotated);
    expect(secrets.previousSecrets).toHaveLength(1);

    await secret.getByRole('button', { name: 'Done, I have copied it' }).click();
    await secret.waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(await page.locator('body').innerText()).not.toContain(rotated);
    expect(watched.requests.filter((request) => request.url.endsWith('/getSigningSecret'))).toEqual([]);
  });

  it('resends an event from the message log', async () => {
    const log = detail().getByTestId('message-log');
    const delivery = log.locator('[data-testid="delivery-row"][data-event-id="ev-1"]').first();
    await delivery.waitFor({ timeout: WAIT_MS });
    expect(await delivery.innerText()).toContain('Delivered');
    await delivery.getByRole('button', { name: 'Show the attempts of ev-1' }).click();
    await log
      .getByTestId('attempt-row')
      .first()
      .filter({ hasText: '{"received":true}' })
      .waitFor({ timeout: WAIT_MS });

    await delivery.getByRole('button', { name: 'Resend' }).click();
    await log
      .getByRole('status')
      .filter({ hasText: /^Resent as / })
      .waitFor({ timeout: WAIT_MS });
    // Sent again to the endpoint as it is now, after the edit.
    const resent = await eventually(
      () => webhook.requestsTo('/acme-orders-v2').find((request) => request.body.includes('"id":"ev-1"')),
      WAIT_MS,
      'the resent event at the webhook',
    );
    expect(resent.headers[RESEND_HEADER]).toEqual(expect.any(String));
  });

  it('pauses and resumes an endpoint', async () => {
    const state = (name: string) =>
      row('acme-orders')
        .getByTestId('health-state')
        .filter({ hasText: new RegExp(`^${name}$`) });
    await detail().getByRole('button', { name: 'Pause' }).click();
    await state('Paused').waitFor({ timeout: WAIT_MS });
    expect((await api.call('GET', `${subscriptionPath('acme-orders')}/health`)).body.state).toBe('Paused');
    await detail().getByRole('button', { name: 'Resume' }).click();
    await state('Healthy').waitFor({ timeout: WAIT_MS });
  });

  it('lists a dead letter and replays it', async () => {
    await open('acme-refused');
    await detail().getByRole('tab', { name: 'Dead letters' }).click();
    const blob = detail().getByTestId('dead-letter-row').first();
    // Written after the (scaled) 5-minute wait, then read at the next refresh.
    await blob.waitFor({ timeout: 60_000 });
    const refusedBefore = webhook.requestsTo('/acme-refused').length;
    await blob.getByRole('button', { name: 'Replay' }).click();
    await detail()
      .getByTestId('dead-letters')
      .getByRole('status')
      .filter({ hasText: 'Queued 1 event again' })
      .waitFor({ timeout: WAIT_MS });
    await eventually(
      () => webhook.requestsTo('/acme-refused').length > refusedBefore,
      WAIT_MS,
      'the replayed event at the webhook',
    );
  }, 90_000);

  it("starts a replay from the topic's archive and cancels one, on its own endpoints only", async () => {
    await archivedTopic(api, 'history', [event('h-1'), event('h-2', 'Order.Shipped')]);
    await api.subscribe('history', 'acme-late', webhook.url('/acme-late'), { labels: [ACME] });
    await api.subscribe('history', 'other-late', webhook.url('/other-late'), { labels: ['tenant=other'] });
    const waiting = await runningReplay(api, 'history', 'acme-late');
    const theirs = await runningReplay(api, 'history', 'other-late');
    const token = await mintSession(api, { role: 'portal', topic: 'history', labels: [ACME] });

    // Another tenant's endpoint: its replays are not there for this portal link, and stay as they were.
    const base = '/console/api/topics/history/eventSubscriptions/other-late/replays';
    for (const [method, path, body] of [
      ['GET', base],
      ['POST', base, { since: new Date(Date.now() - HOUR_MS).toISOString() }],
      ['GET', `${base}/${theirs}`],
      ['DELETE', `${base}/${theirs}`],
    ] as const) {
      const refused = await api.call(method, path, body, {
        auth: false,
        headers: { authorization: `Bearer ${token}` },
      });
      expect([method, path, refused.status]).toEqual([method, path, 404]);
      expect(refused.body.error.message).toMatch(/does not exist/);
    }
    const other = await api.call('GET', `/admin/topics/history/eventSubscriptions/other-late/replays`);
    expect(other.body.value.map(({ id, state }: Json) => `${id}:${state}`)).toEqual([`${theirs}:Running`]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const own = await context.newPage();
      const problems = watch(own).problems;
      await own.goto(consoleUrl(api.stack.apiUrl, token, PORTAL_PATH));
      await detail(own).getByRole('heading', { name: 'Endpoint acme-late' }).waitFor({ timeout: WAIT_MS });
      expect(await row('other-late', own).count()).toBe(0);
      await detail(own).getByRole('tab', { name: 'Replays' }).click();
      const replays = detail(own).getByTestId('replays');
      const replay = (id: string, state: string) => replayRow(replays, id, state);
      await replay(waiting, 'Running').waitFor({ timeout: WAIT_MS });

      await replays
        .getByLabel('Since', { exact: true })
        .fill(await localFieldValue(own, Date.now() - HOUR_MS));
      const { id, done } = await startReplay(replays);
      // Both events, through the endpoint's filter (none): every type.
      expect(await done.getByTestId('replay-found').innerText()).toBe('2');
      expect(await done.getByTestId('replay-queued').innerText()).toBe('2');
      await eventually(
        () => webhook.requestsTo('/acme-late').length > 0,
        WAIT_MS,
        'the replayed events at the webhook',
      );
      expect(webhook.requestsTo('/acme-late')[0]?.headers['gridwire-replay-of']).toBe('archive');

      await replay(waiting, 'Running').getByRole('button', { name: 'Cancel' }).click();
      await replay(waiting, 'Cancelled').waitFor({ timeout: WAIT_MS });
      expect(
        (await api.call('GET', `/admin/topics/history/eventSubscriptions/acme-late/replays/${waiting}`)).body
          .state,
      ).toBe('Cancelled');

      // Without the replay permission: the replays are listed, with nothing to start or cancel.
      const readOnly = await mintSession(api, {
        role: 'portal',
        topic: 'history',
        labels: [ACME],
        permissions: [],
      });
      const reader = await context.newPage();
      await reader.goto(consoleUrl(api.stack.apiUrl, readOnly, PORTAL_PATH));
      await detail(reader).getByRole('tab', { name: 'Replays' }).click();
      await detail(reader)
        .locator(`[data-testid="replay-row"][data-id="${id}"]`)
        .waitFor({ timeout: WAIT_MS });
      expect(await detail(reader).getByRole('form', { name: 'Start a replay' }).count()).toBe(0);
      expect(await detail(reader).getByRole('button', { name: 'Cancel' }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('deletes an endpoint once confirmed', async () => {
    await open('acme-new');
    await detail().getByRole('button', { name: 'Delete' }).click();
    await detail().getByRole('button', { name: 'Yes, delete' }).click();
    await notice('Deleted acme-new.').waitFor({ timeout: WAIT_MS });
    await row('acme-new').waitFor({ state: 'detached', timeout: WAIT_MS });
    expect((await api.call('GET', subscriptionPath('acme-new'))).status).toBe(404);
  });

  it('renders a picture that is not blank', async () => {
    await open('acme-orders');
    await detail().getByTestId('message-log').waitFor({ timeout: WAIT_MS });
    await expectNotBlank(page, join(screenshotDir, 'portal.png'));
    expect(watched.problems).toEqual([]);
  });

  it('offers no create, edit or delete to a session without write, and says so', async () => {
    const token = await mintSession(api, {
      role: 'portal',
      topic: TOPIC,
      labels: [ACME],
      permissions: ['pause', 'rotateSecret', 'resend', 'replay', 'sendTest'],
    });
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const limited = await other.newPage();
      await limited.goto(consoleUrl(api.stack.apiUrl, token, PORTAL_PATH));
      await row('acme-orders', limited).getByTestId('health-state').waitFor({ timeout: WAIT_MS });
      await detail(limited)
        .getByRole('heading', { name: /^Endpoint / })
        .waitFor({ timeout: WAIT_MS });
      expect(await limited.getByTestId('permissions-note').innerText()).toContain(
        'create, edit or delete endpoints',
      );
      expect(await limited.getByRole('button', { name: 'New endpoint' }).count()).toBe(0);
      expect(await detail(limited).getByRole('button', { name: 'Edit' }).count()).toBe(0);
      expect(await detail(limited).getByRole('button', { name: 'Delete' }).count()).toBe(0);
      // What it may do is there.
      await detail(limited).getByRole('button', { name: 'Send test event' }).waitFor({ timeout: WAIT_MS });
      await detail(limited)
        .getByRole('button', { name: /^(Pause|Resume)$/ })
        .waitFor({ timeout: WAIT_MS });
    } finally {
      await other.close();
    }
  });

  it('picks among a namespace’s topics for a namespace session, read only when it has no permission', async () => {
    const token = await mintSession(api, { role: 'portal', namespace: 'shop', permissions: [] });
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const shop = await other.newPage();
      await shop.goto(consoleUrl(api.stack.apiUrl, token, PORTAL_PATH));
      const heading = (topic: string) =>
        shop.getByRole('heading', { name: `Endpoints of topic ${topic}` }).waitFor({ timeout: WAIT_MS });
      await heading('carts');
      expect(await shop.getByTestId('portal-scope').innerText()).toBe('Namespace shop');
      const picker = shop.getByLabel('Topic');
      expect(await picker.locator('option').allInnerTexts()).toEqual(['carts', 'returns']);
      // Each topic's endpoints are listed (a namespace scope without labels takes them all).
      const namespaceRow = (name: string) =>
        shop.locator(`[data-testid="subscription-row"][data-name="${name}"]`).waitFor({ timeout: WAIT_MS });
      await namespaceRow('carts-hook');
      await picker.selectOption('returns');
      await heading('returns');
      await namespaceRow('returns-hook');
      const note = await shop.getByTestId('permissions-note').innerText();
      for (const words of [
        'create, edit or delete',
        'pause or resume',
        'rotate',
        'test events',
        'resend',
        'replay',
      ]) {
        expect(note).toContain(words);
      }
      expect(await shop.getByRole('button', { name: 'New endpoint' }).count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('says in full that the session has expired, and whom to ask for a new link', async () => {
    const other = await browser.newContext();
    try {
      const expired = await other.newPage();
      await expired.route('**/console/api/session', (route) => route.fulfill(SESSION_EXPIRED));
      await expired.goto(consoleUrl(api.stack.apiUrl, acmeToken, PORTAL_PATH));
      const message = expired.getByTestId('session-refused');
      await message.getByRole('heading', { name: 'Session expired' }).waitFor({ timeout: WAIT_MS });
      const text = await message.innerText();
      expect(text).toContain('Ask whoever gave you this link for a new one');
      expect(text).toContain('gridwire portal-link');
      expect(await expired.getByTestId('portal').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  // Last: revoking ends every session, this file's too.
  it('says a revoked session is not valid, on a page opened after and on the page already open', async () => {
    const token = await mintSession(api, { role: 'portal', topic: TOPIC, labels: [ACME] });
    expect((await api.call('POST', '/admin/sessions/revokeAll')).status).toBe(200);
    const other = await browser.newContext();
    try {
      const revoked = await other.newPage();
      await revoked.goto(consoleUrl(api.stack.apiUrl, token, PORTAL_PATH));
      const message = revoked.getByTestId('session-refused');
      await message.getByRole('heading', { name: 'Session not valid' }).waitFor({ timeout: WAIT_MS });
      expect(await message.innerText()).toContain('revoked');
    } finally {
      await other.close();
    }
    // The page open since the start, at its next read.
    await page
      .getByTestId('session-refused')
      .getByRole('heading', { name: 'Session not valid' })
      .waitFor({ timeout: WAIT_MS });
    expect(await page.getByTestId('portal').count()).toBe(0);
  });
});
