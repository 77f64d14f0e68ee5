import { buildDeliveryRequest, MAX_ECHOED_HEADER_CHARS } from '../../../shared/delivery/request';
import { item, subscription } from '../../support/fakes';

describe('delivery request headers', () => {
  const one = (id: string, dataVersion: string) =>
    buildDeliveryRequest(subscription(), [item(id, 0, { event: { dataVersion } })]).headers;

  it('echo the event id and data version when they can travel in a header', () => {
    expect(one('order-1', '2.0')).toMatchObject({
      'aeg-output-event-id': 'order-1',
      'aeg-data-version': '2.0',
    });
  });

  it.each([
    ['a line break', 'id\r\nx-injected: 1'],
    ['characters beyond Latin-1', 'заказ-1'],
    ['more than 1 KiB', 'x'.repeat(MAX_ECHOED_HEADER_CHARS + 1)],
  ])('leave out a value with %s (the body still carries it)', (_what, value) => {
    const headers = one(value, value);
    expect(headers['aeg-output-event-id']).toBeUndefined();
    expect(headers['aeg-data-version']).toBeUndefined();
    expect(headers['x-injected']).toBeUndefined();
  });
});
