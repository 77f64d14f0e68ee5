import { describeEvent, handshakeConsent, verboseLines } from '../../../local/demo-webhook';

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

describe('handshakeConsent', () => {
  const validation = JSON.stringify([
    {
      eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
      data: { validationCode: 'c-1', validationUrl: 'u' },
    },
  ]);

  it('echoes the validation code of a validation event', () => {
    expect(handshakeConsent('POST', { 'aeg-event-type': 'SubscriptionValidation' }, validation)).toEqual({
      headers: { 'content-type': 'application/json' },
      body: '{"validationResponse":"c-1"}',
    });
  });

  it('allows the origin of a CloudEvents OPTIONS handshake', () => {
    expect(handshakeConsent('OPTIONS', { 'webhook-request-origin': 'api.example' }, '')).toEqual({
      headers: { 'webhook-allowed-origin': 'api.example', 'webhook-allowed-rate': '*' },
      body: '',
    });
  });

  it.each([
    ['a notification', 'POST', { 'aeg-event-type': 'Notification' }, validation],
    [
      'a validation event without a code',
      'POST',
      { 'aeg-event-type': 'SubscriptionValidation' },
      '[{"data":{}}]',
    ],
    ['a validation event that is not JSON', 'POST', { 'aeg-event-type': 'SubscriptionValidation' }, 'nope'],
    ['OPTIONS without an origin', 'OPTIONS', {}, ''],
  ])('leaves %s alone', (_what, method, headers, body) => {
    expect(handshakeConsent(method, headers, body)).toBeUndefined();
  });
});

describe('--verbose', () => {
  it('prints every header, then the body as indented JSON', () => {
    expect(
      verboseLines({ 'aeg-delivery-count': '0', 'content-type': 'application/json' }, '[{"id":"o-1"}]'),
    ).toEqual([
      '    aeg-delivery-count: 0',
      '    content-type: application/json',
      '',
      '    [',
      '      {',
      '        "id": "o-1"',
      '      }',
      '    ]',
      '',
    ]);
  });

  it('prints a body that is not JSON as it came', () => {
    expect(verboseLines({}, 'plain text')).toEqual(['', '    plain text', '']);
  });
});
