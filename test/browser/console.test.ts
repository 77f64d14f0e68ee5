import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { CONSOLE_PATH, consoleUrl } from '../../local/console';
import { parseSourceArgument } from '../../local/source-spec';
import { LOCAL_STATUS_PATH } from '../../local/status';
import { RESEND_HEADER } from '../../shared/delivery/rules/headers';
import { namespacePushBody } from '../support/fakes';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { deliveredTo, eventually, WebhookServer } from '../support/webhook-server';
import {
  archivedTopic,
  DAY_MS,
  HOUR_MS,
  localFieldValue,
  replayRow,
  runningReplay,
  startReplay,
} from './archive';
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
const subscriptionPath = (name: string) => `/admin/topics/${TOPIC}/eventSubscriptions/${name}`;

let api: TestStack;
let webhook: WebhookServer;
let key: string;
/** The operator session the page is opened with, as `gridwire start` prints it. */
let token: string;
let browser: Browser;
let page: Page;
let watched: Watched;
let screenshotDir: string;

const row = (name: string): Locator => page.locator(`[data-testid="subscription-row"][data-name="${name}"]`);
const stateOf = (name: string, state: string) =>
  row(name)
    .getByTestId('health-state')
    .filter({ hasText: new RegExp(`^${state}$`) });
const healthState = async (name: string): Promise<string> =>
  (await api.call('GET', `${subscriptionPath(name)}/health`)).body.state;

async function publishedTotal(): Promise<number> {
  const status = (await api.call('GET', LOCAL_STATUS_PATH)).body as {
    metrics: { name: string; dimensions: Record<string, string>; sum: number }[];
  };
  return status.metrics
    .filter((metric) => metric.name === 'PublishSuccessCount' && Object.keys(metric.dimensions).length === 0)
    .reduce((sum, metric) => sum + metric.sum, 0);
}

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60, sources: [parseSourceArgument(`sqs:console-in=${TOPIC}`)] });
  // A topic without subscriptions, listed first: the page opens on the first one that has some.
  await api.createTopic('audit');
  key = await api.createTopic(TOPIC);
  await api.subscribe(
    TOPIC,
    'billing',
    webhook.url('/billing', () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"received":true}',
    })),
    // Every delivery logged, not only failures: the log lists the delivered events too.
    {
      filter: { includedEventTypes: ['Order.Created'] },
      deliveryLog: 'All',
      labels: ['team=billing', 'tier=gold'],
    },
  );
  await api.subscribe(
    TOPIC,
    'strict',
    webhook.url('/strict', () => ({ status: 400, body: 'this event is refused' })),
    {
      filter: { includedEventTypes: ['Order.Refused'] },
      deadLetterDestination: { endpointType: 'StorageBlob', properties: { blobContainerName: 'refused' } },
    },
  );
  expect((await api.publish(TOPIC, key, [event('ev-1'), event('ev-refused', 'Order.Refused')])).status).toBe(
    200,
  );
  await deliveredTo(webhook, '/billing', 'ev-1', WAIT_MS);
  // A namespace's topic, listed in the sidebar under its namespace.
  expect((await api.call('PUT', '/admin/namespaces/shop', {})).status).toBe(201);
  expect((await api.call('PUT', '/admin/namespaces/shop/topics/carts', { properties: {} })).status).toBe(201);
  token = await mintSession(api, { role: 'operator' });

  ({ browser, page, watched, screenshotDir } = await openBrowser('gridwire-console-'));
}, 90_000);

afterAll(async () => {
  await closeBrowser({ browser, screenshotDir });
  await api?.close();
  await webhook?.stop();
});

describe('the console page', () => {
  it('is served without a token, with a strict content security policy; an unknown file is a 404', async () => {
    for (const path of [
      '',
      '/app.js',
      '/common.js',
      '/activity.js',
      '/log.js',
      '/dead-letters.js',
      '/replays.js',
      '/event-types.js',
      '/counters.js',
      '/portal.js',
      '/style.css',
      '/vendor/preact.js',
      '/vendor/hooks.js',
      '/vendor/htm.js',
      '/vendor/openapi-fetch.js',
    ]) {
      const response = await fetch(`${api.stack.apiUrl}${CONSOLE_PATH}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers.get('content-type')).toMatch(
        path === '' ? /^text\/html/ : path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toMatch(/default-src 'none'/);
      expect(policy).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/);
      expect(policy).toMatch(/style-src 'self';/);
      expect(policy).toMatch(/connect-src 'self';/);
      expect(policy).toMatch(/frame-ancestors 'none'/);
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
      await response.text();
    }
    for (const path of ['/nope.js', '/vendor/react.js', '/../package.json', '/index.html']) {
      const response = await fetch(`${api.stack.apiUrl}${CONSOLE_PATH}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      await response.text();
    }
    // The data it shows needs a session: the admin token is no session, and no token is none.
    for (const authorization of [undefined, `Bearer ${api.stack.adminToken}`]) {
      const refused = await api.call('GET', '/console/api/topics', undefined, {
        auth: false,
        ...(authorization === undefined ? {} : { headers: { authorization } }),
      });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toMatch(/^Session(Required|Invalid)$/);
    }
    expect((await api.call('GET', LOCAL_STATUS_PATH, undefined, { auth: false })).status).toBe(401);
    expect((await api.call('GET', '/admin/topics', undefined, { auth: false })).status).toBe(401);
  });

  it('without a token, says how to open it', async () => {
    const other = await browser.newContext();
    try {
      const bare = await other.newPage();
      await bare.goto(`${api.stack.apiUrl}${CONSOLE_PATH}`);
      const message = bare.getByTestId('needs-token');
      await message.waitFor({ timeout: WAIT_MS });
      const text = await message.innerText();
      expect(text).toContain('gridwire console');
      expect(text).toContain('npm start');
      expect(text).toContain('/console#token=');
    } finally {
      await other.close();
    }
  });

  it('takes a token put in the address of a tab already open, without a reload', async () => {
    const other = await browser.newContext();
    try {
      const open = await other.newPage();
      await open.goto(`${api.stack.apiUrl}${CONSOLE_PATH}`);
      await open.getByTestId('needs-token').waitFor({ timeout: WAIT_MS });
      const loads: string[] = [];
      open.on('load', () => loads.push(open.url()));
      await open.evaluate((value) => {
        (globalThis as unknown as { location: { hash: string } }).location.hash =
          `token=${encodeURIComponent(value)}`;
      }, token);
      await open.getByTestId('topic').filter({ hasText: TOPIC }).waitFor({ timeout: WAIT_MS });
      expect(loads).toEqual([]);
      expect(open.url()).toBe(`${api.stack.apiUrl}${CONSOLE_PATH}`);
    } finally {
      await other.close();
    }
  });

  it('takes the token from the fragment, out of the address bar, and opens on the first topic with subscriptions, with their labels and health', async () => {
    await page.goto(consoleUrl(api.stack.apiUrl, token));
    await page.getByTestId('topic').filter({ hasText: TOPIC }).waitFor({ timeout: WAIT_MS });
    const sidebar = page.getByRole('navigation', { name: 'Topics' });
    await sidebar.getByRole('heading', { name: 'Namespace shop' }).waitFor({ timeout: WAIT_MS });
    expect(await sidebar.getByTestId('topic').allInnerTexts()).toEqual(['audit', TOPIC, 'carts']);
    // Not the first topic listed (it has no subscriptions): the first with some.
    await stateOf('billing', 'Healthy').waitFor({ timeout: WAIT_MS });
    expect(await sidebar.locator('[aria-current="true"]').innerText()).toBe(TOPIC);
    await row('strict').getByTestId('health-state').waitFor({ timeout: WAIT_MS });
    expect(await row('billing').innerText()).toContain('http://127.0.0.1:');
    expect(await row('billing').getByTestId('labels').innerText()).toMatch(/team=billing\s+tier=gold/);
    // When the session ends, in the header.
    expect(await page.getByTestId('session-end').innerText()).toMatch(
      /^Session ends .+\(in (59|60) minutes\)$/,
    );

    expect(page.url()).toBe(`${api.stack.apiUrl}${CONSOLE_PATH}`);
    // The token went to the API as a header only, never in a URL, and only to the console's API
    // and the local stack's status.
    expect(watched.requests.some((request) => request.url.includes(token))).toBe(false);
    const calls = watched.requests.filter((request) => request.authorization !== undefined);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((request) => request.authorization === `Bearer ${token}`)).toBe(true);
    expect(
      calls.every((request) => /^\/console\/api\/|^\/local\/status$/.test(new URL(request.url).pathname)),
    ).toBe(true);
    expect(watched.requests.some((request) => new URL(request.url).pathname.startsWith('/admin/'))).toBe(
      false,
    );
    expect(watched.problems).toEqual([]);
  });

  it('pauses and resumes a subscription', async () => {
    await row('billing').getByRole('button', { name: 'Pause' }).click();
    await stateOf('billing', 'Paused').waitFor({ timeout: WAIT_MS });
    expect(await healthState('billing')).toBe('Paused');

    await row('billing').getByRole('button', { name: 'Resume' }).click();
    await stateOf('billing', 'Healthy').waitFor({ timeout: WAIT_MS });
    expect(await healthState('billing')).toBe('Healthy');
  });

  it('updates its live counters without a reload', async () => {
    const counter = page.getByTestId('counter-published');
    const exactly = (value: number) => counter.filter({ hasText: new RegExp(`^${value}$`) });
    const before = await eventually(async () => {
      const total = await publishedTotal();
      return total > 0 && total;
    });
    await exactly(before).waitFor({ timeout: WAIT_MS });
    // A reload would lose this.
    await page.evaluate(() => {
      (globalThis as unknown as { stayed: boolean }).stayed = true;
    });

    expect((await api.publish(TOPIC, key, [event('ev-2')])).status).toBe(200);
    await exactly(before + 1).waitFor({ timeout: WAIT_MS });
    await page
      .getByTestId('counter-delivered')
      .filter({ hasText: /^[1-9]\d*$/ })
      .waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
  });

  it('hides the counters where the stack has no status route (a deployed stack)', async () => {
    const other = await browser.newContext();
    try {
      const deployed = await other.newPage();
      const problems = watch(deployed).problems;
      await deployed.route('**/local/status', (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: '{"message":"Not Found"}' }),
      );
      await deployed.goto(consoleUrl(api.stack.apiUrl, token));
      await deployed
        .locator('[data-testid="subscription-row"][data-name="billing"]')
        .getByTestId('health-state')
        .waitFor({ timeout: WAIT_MS });
      expect(await deployed.getByRole('region', { name: 'Live counters' }).count()).toBe(0);
      expect(await deployed.getByRole('alert').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await other.close();
    }
  });
  it("shows a topic's de-duplication window, off or in minutes, and a change to it without a reload", async () => {
    const other = await browser.newContext();
    try {
      const own = await other.newPage();
      const problems = watch(own).problems;
      const windowText = (text: string) =>
        own.getByTestId('topic-deduplication').filter({ hasText: new RegExp(`^${text}$`) });
      await own.goto(consoleUrl(api.stack.apiUrl, token));
      // The topic it opens on has none.
      await own
        .locator('[data-testid="subscription-row"][data-name="billing"]')
        .waitFor({ timeout: WAIT_MS });
      await windowText('off').waitFor({ timeout: WAIT_MS });
      // Its settings, the queue it takes events from (its source) last.
      expect(await own.locator('dl[aria-label="Topic settings"]').innerText()).toMatch(
        /^De-duplication window\s+off\s+Archive\s+off\s+Sources\s+SQS queue console-in$/,
      );

      const setWindow = async (minutes: number) =>
        expect(
          (
            await api.call('PUT', '/admin/namespaces/shop/topics/carts', {
              properties: { deduplicationWindowInMinutes: minutes },
            })
          ).status,
        ).toBe(200);
      await setWindow(15);
      await own.getByTestId('topic').filter({ hasText: 'carts' }).click();
      await own.getByRole('heading', { name: 'Namespace shop, topic carts' }).waitFor({ timeout: WAIT_MS });
      await windowText('15 min').waitFor({ timeout: WAIT_MS });
      // Read again with the listing: the page shows the new window as it is.
      await setWindow(1440);
      await windowText('1440 min').waitFor({ timeout: WAIT_MS });
      await setWindow(0);
      await windowText('off').waitFor({ timeout: WAIT_MS });
      expect(problems).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("shows a topic's archive, off or in days, and a change to it without a reload", async () => {
    const other = await browser.newContext();
    try {
      const own = await other.newPage();
      const problems = watch(own).problems;
      const archiveText = (text: string) =>
        own.getByTestId('topic-archive').filter({ hasText: new RegExp(`^${text}$`) });
      await own.goto(consoleUrl(api.stack.apiUrl, token));
      // The topic it opens on has none.
      await own
        .locator('[data-testid="subscription-row"][data-name="billing"]')
        .waitFor({ timeout: WAIT_MS });
      await archiveText('off').waitFor({ timeout: WAIT_MS });

      const setArchive = async (archive: { retentionInDays?: number } | null) =>
        expect(
          (
            await api.call('PUT', '/admin/namespaces/shop/topics/carts', {
              properties: { deduplicationWindowInMinutes: 15, archive },
            })
          ).status,
        ).toBe(200);
      await setArchive({ retentionInDays: 7 });
      await own.getByTestId('topic').filter({ hasText: 'carts' }).click();
      await own.getByRole('heading', { name: 'Namespace shop, topic carts' }).waitFor({ timeout: WAIT_MS });
      await archiveText('7 days').waitFor({ timeout: WAIT_MS });
      // Beside the de-duplication window, which a PUT with the archive keeps.
      expect(await own.locator('dl[aria-label="Topic settings"]').innerText()).toMatch(
        /^De-duplication window\s+15 min\s+Archive\s+7 days$/,
      );
      // Read again with the listing: without its retention, as long as the topic keeps events (1 day).
      await setArchive({});
      await archiveText('1 day').waitFor({ timeout: WAIT_MS });
      await setArchive(null);
      await archiveText('off').waitFor({ timeout: WAIT_MS });
      expect(problems).toEqual([]);
    } finally {
      // As the other tests found it: no window, no archive.
      await api.call('PUT', '/admin/namespaces/shop/topics/carts', { properties: {} });
      await other.close();
    }
  });

  it('shows the queues a topic takes events from', async () => {
    const other = await browser.newContext();
    try {
      const own = await other.newPage();
      const problems = watch(own).problems;
      await own.goto(consoleUrl(api.stack.apiUrl, token));
      await own
        .getByTestId('topic-sources')
        .filter({ hasText: /^SQS queue console-in$/ })
        .waitFor({ timeout: WAIT_MS });
      expect(problems).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("shows a topic's event catalog, read only: its types, and one type's schema and example pretty-printed", async () => {
    const schema = { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } };
    const put = await api.call('PUT', `/admin/topics/${TOPIC}/eventTypes/Order.Created`, {
      description: 'An order was placed.',
      schema,
      example: { orderId: 'o-1' },
    });
    expect(put.status).toBe(201);
    await api.call('PUT', `/admin/topics/${TOPIC}`, { properties: { validateEvents: true } });
    const other = await browser.newContext();
    try {
      const own = await other.newPage();
      const problems = watch(own).problems;
      await own.goto(consoleUrl(api.stack.apiUrl, token));
      await own
        .locator('[data-testid="subscription-row"][data-name="billing"]')
        .waitFor({ timeout: WAIT_MS });
      await own.locator('details.event-types > summary').click();
      const typeRow = own.locator('[data-testid="event-type-row"][data-name="Order.Created"]');
      await typeRow.waitFor({ timeout: WAIT_MS });
      expect(await typeRow.innerText()).toMatch(/^Order\.Created\s+An order was placed\.\s+yes\s+yes$/);
      expect(await own.getByTestId('event-validation').innerText()).toBe(
        "Published events are checked against their type's schema.",
      );
      await typeRow.getByRole('button', { name: 'Order.Created' }).click();
      const shown = own.getByTestId('event-type-schema');
      await shown.waitFor({ timeout: WAIT_MS });
      expect(await shown.innerText()).toBe(JSON.stringify(schema, null, 2));
      expect(await own.getByTestId('event-type-example').innerText()).toBe(
        JSON.stringify({ orderId: 'o-1' }, null, 2),
      );
      // Read only: nothing on the view changes the catalog.
      expect(await own.locator('details.event-types form').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await other.close();
      await api.call('PUT', `/admin/topics/${TOPIC}`, { properties: {} });
      await api.call('DELETE', `/admin/topics/${TOPIC}/eventTypes/Order.Created`);
    }
  });

  it("shows a subscription's delivery order, its key or not ordered, and a change to it without a reload", async () => {
    const other = await browser.newContext();
    try {
      const own = await other.newPage();
      const problems = watch(own).problems;
      const detail = (name: string) => own.getByRole('region', { name: `Subscription ${name}` });
      const orderText = (name: string, text: string) =>
        detail(name)
          .getByTestId('ordered-delivery')
          .filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
      await own.goto(consoleUrl(api.stack.apiUrl, token));
      // The page opens on orders, its first subscription chosen: no order kept.
      await orderText('billing', 'not ordered').waitFor({ timeout: WAIT_MS });
      expect(await detail('billing').locator('dl[aria-label="Subscription settings"]').innerText()).toMatch(
        /^Delivery order\s+not ordered$/,
      );

      const cartsHook = '/admin/namespaces/shop/topics/carts/eventSubscriptions/carts-ordered';
      const putOrdered = async (orderedDelivery: { key: string } | null, status: number) =>
        expect(
          (
            await api.call(
              'PUT',
              cartsHook,
              namespacePushBody(webhook.url('/carts-ordered'), {}, { orderedDelivery }),
            )
          ).status,
        ).toBe(status);
      await putOrdered({ key: 'data.cartId' }, 201);
      await own.getByTestId('topic').filter({ hasText: 'carts' }).click();
      await own
        .locator('[data-testid="subscription-row"][data-name="carts-ordered"]')
        .waitFor({ timeout: WAIT_MS });
      await orderText('carts-ordered', 'Ordered by: data.cartId').waitFor({ timeout: WAIT_MS });
      // Read again with the subscriptions: the page shows the key as it is now.
      await putOrdered({ key: 'subject' }, 200);
      await orderText('carts-ordered', 'Ordered by: subject').waitFor({ timeout: WAIT_MS });
      await putOrdered(null, 200);
      await orderText('carts-ordered', 'not ordered').waitFor({ timeout: WAIT_MS });
      expect(problems).toEqual([]);
    } finally {
      await other.close();
      await api.call('DELETE', '/admin/namespaces/shop/topics/carts/eventSubscriptions/carts-ordered');
    }
  });

  it("shows the subscription's message log with every attempt, and resends an event", async () => {
    await deliveredTo(webhook, '/billing', 'ev-2', WAIT_MS);
    await row('billing').getByRole('button', { name: 'billing' }).click();
    await page.getByRole('tab', { name: 'Message log' }).click();
    const log = page.getByTestId('message-log');
    const delivery = log.locator('[data-testid="delivery-row"][data-event-id="ev-1"]');
    await delivery.waitFor({ timeout: WAIT_MS });
    expect(await delivery.innerText()).toContain('Delivered');

    await delivery.getByRole('button', { name: 'Show the attempts of ev-1' }).click();
    const attempt = log.getByTestId('attempt-row').first();
    await attempt.waitFor({ timeout: WAIT_MS });
    const text = await attempt.innerText();
    expect(text).toContain('Delivered');
    expect(text).toContain('200');
    expect(text).toMatch(/\d+ ms/);
    expect(text).toContain('{"received":true}');

    const before = webhook.requestsTo('/billing').length;
    // The API's answer is held until the log shows the resend as a delivery of its own, above
    // this one: the answer must still show on this row after the list has changed under it.
    const deliveriesOfEv1 = log.locator('[data-testid="delivery-row"][data-event-id="ev-1"]');
    await page.route('**/resend', async (route) => {
      const answer = await route.fetch();
      // Read the log again now rather than at its next turn.
      await log.getByRole('button', { name: 'Refresh' }).click();
      await deliveriesOfEv1.nth(1).waitFor({ timeout: WAIT_MS });
      await route.fulfill({ response: answer });
    });
    await delivery.getByRole('button', { name: 'Resend' }).click();
    await delivery
      .getByRole('status')
      .filter({ hasText: /^Resent as / })
      .waitFor({ timeout: WAIT_MS });
    const resent = await eventually(
      () =>
        webhook
          .requestsTo('/billing')
          .slice(before)
          .find((request) => request.body.includes('"id":"ev-1"')),
      WAIT_MS,
      'the resent event at the webhook',
    );
    expect(resent.headers['aeg-delivery-count']).toBe('0');
    expect(resent.headers[RESEND_HEADER]).toEqual(expect.any(String));
    await page.unroute('**/resend');
    // Newest first: the resend above the delivery it came from.
    expect(await deliveriesOfEv1.first().innerText()).toContain(`resend of ${resent.headers[RESEND_HEADER]}`);
  }, 90_000);

  it("shows the API's error in place of the log when the log cannot be read", async () => {
    const refusal = 'since: the window may span at most 7 days (a refusal made up by this test).';
    await page.route('**/deliveries?**', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'BadRequest', message: refusal } }),
      }),
    );
    try {
      await page.getByTestId('message-log').getByRole('button', { name: 'Refresh' }).click();
      await page
        .getByTestId('message-log')
        .getByRole('alert')
        .filter({ hasText: `HTTP 400: ${refusal}` })
        .waitFor({ timeout: WAIT_MS });
      // The rest of the page goes on.
      await stateOf('billing', 'Healthy').waitFor({ timeout: WAIT_MS });
    } finally {
      await page.unroute('**/deliveries?**');
    }
    await page.getByTestId('message-log').getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('message-log').getByRole('alert').waitFor({ state: 'detached', timeout: WAIT_MS });
  }, 90_000);

  it('lists a dead letter and replays it', async () => {
    await row('strict').getByRole('button', { name: 'strict' }).click();
    await page.getByRole('tab', { name: 'Dead letters' }).click();
    const blob = page.getByTestId('dead-letter-row').first();
    // Written after the (scaled) 5-minute wait, then read at the next refresh.
    await blob.waitFor({ timeout: 60_000 });
    expect(await blob.getByTestId('replayed-at').innerText()).toBe('no');
    const refusedBefore = webhook.requestsTo('/strict').length;

    await blob.getByRole('button', { name: 'Replay' }).click();
    await page
      .getByTestId('dead-letters')
      .getByRole('status')
      .filter({ hasText: 'Queued 1 event again' })
      .waitFor({ timeout: WAIT_MS });
    await blob.getByRole('button', { name: 'Replay again' }).waitFor({ timeout: WAIT_MS });
    const listed = await api.call('GET', `${subscriptionPath('strict')}/deadLetters`);
    expect(listed.body.value[0].replayedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Nothing is left to replay: "Replay all not yet replayed" is not offered.
    expect(listed.body.value).toHaveLength(1);
    expect(listed.body.nextPage).toBeUndefined();
    expect(await page.getByRole('button', { name: 'Replay all not yet replayed' }).isDisabled()).toBe(true);
    await eventually(
      () => webhook.requestsTo('/strict').length > refusedBefore,
      WAIT_MS,
      'the replayed event at the webhook',
    );
    expect(watched.problems).toEqual([]);
  }, 90_000);

  it("starts a replay from the topic's archive, lists it with its counts, and cancels a running one", async () => {
    // A topic without an archive: nothing to replay, and no form to start one.
    await row('billing').getByRole('button', { name: 'billing' }).click();
    await page.getByRole('tab', { name: 'Replays' }).click();
    await page.getByTestId('no-archive').waitFor({ timeout: WAIT_MS });
    expect(await page.getByRole('form', { name: 'Start a replay' }).count()).toBe(0);

    // A topic that keeps its events, published to before the subscription was made.
    await archivedTopic(api, 'history', [event('h-1'), event('h-2', 'Order.Shipped')]);
    await api.subscribe('history', 'late', webhook.url('/late'));
    const waiting = await runningReplay(api, 'history', 'late');
    await page.getByTestId('topic').filter({ hasText: 'history' }).click();
    await row('late').getByRole('button', { name: 'late' }).click();
    await page.getByRole('tab', { name: 'Replays' }).click();
    const replays = page.getByTestId('replays');
    const replay = (id: string, state: string) => replayRow(replays, id, state);
    await replay(waiting, 'Running').waitFor({ timeout: WAIT_MS });

    // Refused as the API words it: older than the archive keeps.
    const since = replays.getByLabel('Since', { exact: true });
    await since.fill(await localFieldValue(page, Date.now() - 8 * DAY_MS));
    await replays.getByRole('button', { name: 'Start replay' }).click();
    await replays
      .getByRole('alert')
      .filter({
        hasText: "HTTP 400: since is older than the topic's archive keeps events (retentionInDays 7)",
      })
      .waitFor({ timeout: WAIT_MS });

    await since.fill(await localFieldValue(page, Date.now() - HOUR_MS));
    await replays.getByLabel('Event types', { exact: true }).fill('Order.Created');
    const { done } = await startReplay(replays);
    expect(await done.getByTestId('replay-found').innerText()).toBe('2');
    expect(await done.getByTestId('replay-queued').innerText()).toBe('1');
    expect(await done.innerText()).toContain('Order.Created');
    const replayed = await eventually(() => webhook.requestsTo('/late')[0], WAIT_MS, 'the replayed event');
    expect(replayed.body).toContain('"id":"h-1"');
    expect(replayed.headers['gridwire-replay-of']).toBe('archive');

    await replay(waiting, 'Running').getByRole('button', { name: 'Cancel' }).click();
    await replays
      .getByRole('status')
      .filter({ hasText: `Replay ${waiting} cancelled.` })
      .waitFor({ timeout: WAIT_MS });
    await replay(waiting, 'Cancelled').waitFor({ timeout: WAIT_MS });
    expect(await replay(waiting, 'Cancelled').getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    expect(
      (await api.call('GET', `/admin/topics/history/eventSubscriptions/late/replays/${waiting}`)).body.state,
    ).toBe('Cancelled');
    expect(watched.problems).toEqual([]);
    // Back on the topic the other tests use.
    await page.getByTestId('topic').filter({ hasText: TOPIC }).click();
  }, 90_000);

  it('renders a picture that is not blank', async () => {
    await row('billing').getByRole('button', { name: 'billing' }).click();
    await page.getByRole('tab', { name: 'Message log' }).click();
    await page.getByTestId('message-log').waitFor({ timeout: WAIT_MS });
    await expectNotBlank(page, join(screenshotDir, 'console.png'));
  });

  it('says in full that the session has expired when the API says so, and how to get a new link', async () => {
    // The page open at once on an expired session, and the page open when its session ends.
    const other = await browser.newContext();
    try {
      const opened = await other.newPage();
      await opened.route('**/console/api/session', (route) => route.fulfill(SESSION_EXPIRED));
      await opened.goto(consoleUrl(api.stack.apiUrl, token));
      const expired = opened.getByTestId('session-refused');
      await expired.getByRole('heading', { name: 'Session expired' }).waitFor({ timeout: WAIT_MS });
      const text = await expired.innerText();
      expect(text).toContain('gridwire console');
      expect(text).toContain('npm start');

      const open = await other.newPage();
      await open.goto(consoleUrl(api.stack.apiUrl, token));
      await open.getByTestId('topic').filter({ hasText: TOPIC }).waitFor({ timeout: WAIT_MS });
      await open.route('**/console/api/**', (route) => route.fulfill(SESSION_EXPIRED));
      await open
        .getByTestId('session-refused')
        .getByRole('heading', { name: 'Session expired' })
        .waitFor({ timeout: WAIT_MS });
      expect(await open.getByRole('navigation', { name: 'Topics' }).count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('says a token that is not valid is not, with the same advice', async () => {
    const other = await browser.newContext();
    try {
      const forged = await other.newPage();
      // The operator's token with another signature: not one this stack made.
      await forged.goto(consoleUrl(api.stack.apiUrl, `${token.slice(0, token.lastIndexOf('.'))}.AAAA`));
      const refused = forged.getByTestId('session-refused');
      await refused.getByRole('heading', { name: 'Session not valid' }).waitFor({ timeout: WAIT_MS });
      const text = await refused.innerText();
      expect(text).toContain('revoked');
      expect(text).toContain('gridwire console');
      expect(text).toContain('npm start');
    } finally {
      await other.close();
    }
  });
});
