/**
 * The message log belongs to the subscription that wrote it: one deleted and created again under
 * the same name (another endpoint) lists none of its predecessor's deliveries and cannot resend
 * its events, and a resend goes only where the subscription's filter, as it is now, lets it.
 */
import { event, type TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { deliveredTo, eventMarker, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

const route = (topic: string, subscription: string) =>
  `/admin/topics/${topic}/eventSubscriptions/${subscription}`;

it("leaves a deleted subscription's log, and its events, to no successor of the same name", async () => {
  const key = await api.createTopic('cards');
  await api.subscribe('cards', 'shared1', webhook.url('/first'), { deliveryLog: 'All' });
  const charged = event('card-1', 'Card.Charged', { cardNumber: '4111111111111111' });
  expect((await api.publish('cards', key, [charged])).status).toBe(200);
  await deliveredTo(webhook, '/first', 'card-1');
  await api.historyWhen('cards', 'shared1', 'card-1', 'Delivered');

  expect((await api.call('DELETE', route('cards', 'shared1'))).status).toBe(200);
  await api.subscribe('cards', 'shared1', webhook.url('/second'), {
    deliveryLog: 'All',
    filter: { includedEventTypes: ['Card.Updated'] },
  });

  // The log starts empty: neither the page nor the lookup shows the predecessor's delivery.
  const page = await api.call('GET', `${route('cards', 'shared1')}/deliveries?since=${hourAgo()}`);
  expect(page.status).toBe(200);
  expect(page.body.value).toEqual([]);
  expect(JSON.stringify(page.body)).not.toContain('card-1');
  const lookup = await api.call('GET', `${route('cards', 'shared1')}/deliveries?eventId=card-1`);
  expect(lookup.status).toBe(200);
  expect(lookup.body.value).toEqual([]);
  expect(lookup.body.note).toMatch(/^No record of event 'card-1' for this subscription/);

  // Nothing to resend.
  const resend = await api.call('POST', `${route('cards', 'shared1')}/resend`, { eventId: 'card-1' });
  expect(resend.status).toBe(404);
  expect(resend.body.error.message).toMatch(/^No record of event 'card-1' for this subscription/);

  // The new endpoint gets what its filter lets through, and never the old event.
  expect((await api.publish('cards', key, [event('card-2', 'Card.Updated')])).status).toBe(200);
  await deliveredTo(webhook, '/second', 'card-2');
  expect(
    webhook.requestsTo('/second').filter((request) => request.body.includes(eventMarker('card-1'))),
  ).toEqual([]);
  // The successor's own deliveries are its log.
  const own = await api.historyWhen('cards', 'shared1', 'card-2', 'Delivered');
  expect(own.eventLogged).toBe(true);
}, 60_000);

it('resends an event only while the subscription filter lets it through', async () => {
  const key = await api.createTopic('refunds');
  await api.subscribe('refunds', 'narrowed', webhook.url('/narrowed'), { deliveryLog: 'All' });
  expect((await api.publish('refunds', key, [event('refund-1', 'Refund.Issued')])).status).toBe(200);
  await deliveredTo(webhook, '/narrowed', 'refund-1');
  await api.historyWhen('refunds', 'narrowed', 'refund-1', 'Delivered');

  const updated = await api.call('PUT', route('refunds', 'narrowed'), {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/narrowed') } },
      deliveryLog: 'All',
      filter: { includedEventTypes: ['Refund.Reversed'] },
    },
  });
  expect(updated.status).toBeLessThan(300);

  const refused = await api.call('POST', `${route('refunds', 'narrowed')}/resend`, { eventId: 'refund-1' });
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toMatch(
    /^Event 'refund-1' does not match the subscription's filter as it is now/,
  );

  // Nothing was queued: once the next event through the filter is there, refund-1 came once only.
  expect((await api.publish('refunds', key, [event('refund-2', 'Refund.Reversed')])).status).toBe(200);
  await deliveredTo(webhook, '/narrowed', 'refund-2');
  expect(
    webhook.requestsTo('/narrowed').filter((request) => request.body.includes(eventMarker('refund-1'))),
  ).toHaveLength(1);
}, 60_000);

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
