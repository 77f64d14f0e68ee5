/**
 * The client entry point (`gridwire/client`): a webhook built with `validationAnswer` agrees to the
 * validation request Gridwire really sends, as Gridwire judges the answer.
 */
import { validationAnswer } from '../../../shared/client';
import { type HandshakeInput, handshakeRequest, judgeAnswer } from '../../../shared/delivery/rules/handshake';

const input: HandshakeInput = {
  kind: 'eventGrid',
  endpointUrl: 'https://hooks.example.test/orders',
  subscriptionName: 'billing',
  topicId: '/gridwire/topics/orders',
  code: 'C0DE-1234',
  validationUrl: 'https://api.example.test/validate?code=C0DE-1234',
  origin: 'api.example.test',
  eventId: 'e-1',
  nowMs: Date.UTC(2026, 10, 25),
};

describe('validationAnswer', () => {
  it("answers Gridwire's validation request with its code, and Gridwire takes that as consent", () => {
    const request = handshakeRequest(input);
    const answer = validationAnswer(JSON.parse(request.body ?? ''));
    expect(answer).toEqual({ validationResponse: 'C0DE-1234' });
    expect(judgeAnswer(input, { status: 200, headers: {}, body: JSON.stringify(answer) })).toEqual({
      agreed: true,
    });
  });

  it.each([
    ['a notification', [{ eventType: 'Order.Created', data: { validationCode: 'x' } }]],
    ['an object, not an array', { eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent' }],
    ['a validation event without a code', [{ eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent' }]],
    ['null', null],
  ])('is undefined for %s', (_name, body) => {
    expect(validationAnswer(body)).toBeUndefined();
  });
});
