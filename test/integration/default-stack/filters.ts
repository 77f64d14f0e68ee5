/**
 * Subscription filters end to end on the local stack: subject and advanced filters given to the
 * management API, shown by GET, and applied at publish; invalid filters refused naming the field.
 */
import { event, type TestStack } from '../../support/local-stack';
import { sharedTestStack } from '../../support/shared-stack';
import { eventMarker, WebhookServer } from '../../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let key: string;

const filter = {
  subjectBeginsWith: 'ORDERS/',
  advancedFilters: [
    { operatorType: 'NumberGreaterThanOrEquals', key: 'data.total', value: 100 },
    { operatorType: 'StringIn', key: 'data.region', values: ['eu', 'uk'] },
  ],
};

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await sharedTestStack();
  key = await api.createTopic('filtered');
  await api.subscribe('filtered', 'big-eu', webhook.url('/big-eu'), { filter });
}, 30_000);

afterAll(async () => {
  await webhook?.stop();
});

it('shows the filter as given', async () => {
  const doc = await api.call('GET', '/admin/topics/filtered/eventSubscriptions/big-eu');
  expect(doc.body.properties.filter).toEqual({ includedEventTypes: null, ...filter });
});

it('delivers only the events every filter matches', async () => {
  const events = [
    { ...event('match', 'Order.Created', { total: 150, region: 'EU' }), subject: 'orders/1' },
    { ...event('small', 'Order.Created', { total: 50, region: 'eu' }), subject: 'orders/2' },
    { ...event('elsewhere', 'Order.Created', { total: 500, region: 'us' }), subject: 'orders/3' },
    { ...event('other-subject', 'Order.Created', { total: 500, region: 'uk' }), subject: 'invoices/4' },
    { ...event('no-total', 'Order.Created', { region: 'uk' }), subject: 'orders/5' },
    { ...event('last', 'Order.Created', { total: 100, region: 'uk' }), subject: 'orders/6' },
  ];
  expect((await api.publish('filtered', key, events)).status).toBe(200);
  await webhook.requestWith('/big-eu', eventMarker('last'));
  await webhook.requestWith('/big-eu', eventMarker('match'));
  const delivered = webhook
    .requestsTo('/big-eu')
    .flatMap((request) => (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id));
  expect(delivered.sort()).toEqual(['last', 'match']);
});

it('refuses an invalid filter with a 400 naming the field and the limit', async () => {
  const refused = await api.call('PUT', '/admin/topics/filtered/eventSubscriptions/bad', {
    properties: {
      destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url('/bad') } },
      filter: { advancedFilters: [{ operatorType: 'StringIn', key: 'data.x', values: ['x'.repeat(513)] }] },
    },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toMatch(/^properties\.filter\.advancedFilters\.0\.values: .*512/);
});
