import { describeEvent } from '../../../local/demo-webhook';

describe('the demo webhook', () => {
  it.each([
    [{ id: 'order-1', eventType: 'Shop.OrderCreated', data: {} }, 'order-1 (Shop.OrderCreated)'],
    [{ specversion: '1.0', id: 'ship-1', type: 'Shop.Shipped', source: '/s' }, 'ship-1 (Shop.Shipped)'],
    [{ paymentId: 'pay-1', amount: 42.5 }, '{"paymentId":"pay-1","amount":42.5}'],
    [{ note: 'x'.repeat(100) }, `{"note":"${'x'.repeat(70)}…`],
    [7, '7'],
  ])('describes %j as %s', (event, expected) => {
    expect(describeEvent(event)).toBe(expected);
  });
});
