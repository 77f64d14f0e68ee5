/**
 * A subscription disabled for failing too long, on the real local stack at time scale 3,600 (an
 * hour lasts a second): its endpoint fails every attempt for its `disableAfterFailingFor`, the
 * subscription is disabled, a `Gridwire.SubscriptionDisabled` notice reaches a subscriber of the
 * stack's system topic, and `enable` brings it back.
 */
import { DEAD_LETTER_NOTICES } from '../../shared/delivery/rules/dead-letter-notice';
import { event, startTestStack, type TestStack } from '../support/local-stack';
import { eventually, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 3600 });
  key = await api.createTopic('flaky');
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
  await api?.close();
});

it('disables a subscription whose endpoint failed every attempt for its disableAfterFailingFor, with a notice', async () => {
  await api.subscribe(DEAD_LETTER_NOTICES.topic, 'pager', webhook.url('/pager'));
  await api.subscribe(
    'flaky',
    'down',
    webhook.url('/down', () => ({ status: 500 })),
    {
      disableAfterFailingFor: 'PT1H',
    },
  );
  const shown = await api.call('GET', '/admin/topics/flaky/eventSubscriptions/down');
  expect(shown.body.properties.disableAfterFailingFor).toBe('PT1H');

  const published = await api.publish(
    'flaky',
    key,
    Array.from({ length: 5 }, (_, index) => event(`flaky-${index}`)),
  );
  expect(published.status).toBe(200);

  const health = await eventually(
    async () => {
      const found = (await api.call('GET', '/admin/topics/flaky/eventSubscriptions/down/health')).body;
      return found.state === 'Disabled' && found;
    },
    30_000,
    'the subscription disabled',
  );
  expect(health).toMatchObject({ disabledReason: 'FailingTooLong', lastOutcome: 'GenericError' });
  // An hour of the stack's time (a second here) between the first failure and the disabling one.
  expect(Date.parse(health.disabledAt) - Date.parse(health.failingSince)).toBeGreaterThanOrEqual(1000);

  const notice = await eventually(
    () =>
      webhook.requestsTo('/pager').find((request) => request.body.includes('Gridwire.SubscriptionDisabled')),
    15_000,
    'the notice at the pager',
  );
  const [sent] = JSON.parse(notice.body);
  expect(sent).toMatchObject({
    eventType: 'Gridwire.SubscriptionDisabled',
    subject: '/topics/flaky/eventSubscriptions/down',
    data: {
      topic: 'flaky',
      subscription: 'down',
      reason: 'FailingTooLong',
      endpointUrl: webhook.url('/down', () => ({ status: 500 })),
      disabledAt: health.disabledAt,
      failingSince: health.failingSince,
    },
  });

  const enabled = await api.call('POST', '/admin/topics/flaky/eventSubscriptions/down/enable');
  expect(enabled.status).toBe(200);
  expect(enabled.body.state).not.toBe('Disabled');
  expect(enabled.body.disabledReason).toBeNull();
}, 60_000);

it('keeps disableAfterFailingFor null (never), and refuses one out of range naming the field', async () => {
  const refused = await api.call('PUT', '/admin/topics/flaky/eventSubscriptions/short', {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/short') } },
      disableAfterFailingFor: 'PT5M',
    },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(
    /properties\.disableAfterFailingFor: must be an ISO 8601 duration from PT1H to P30D, or null for never \(got 'PT5M'\)/,
  );
  await api.subscribe(
    'flaky',
    'patient',
    webhook.url('/patient', () => ({ status: 500 })),
    {
      disableAfterFailingFor: null,
    },
  );
  expect(
    (await api.call('GET', '/admin/topics/flaky/eventSubscriptions/patient')).body.properties,
  ).toMatchObject({
    disableAfterFailingFor: null,
  });
});
