import {
  endpointAgreed,
  handshakeKindOf,
  handshakeRequest,
  judgeAnswer,
  newValidation,
  provisioningStateOf,
  VALIDATION_EVENT_TYPE,
  validationForWrite,
} from '../../../../shared/delivery/rules/handshake';
import type { EndpointValidation } from '../../../../shared/domain/model';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const waiting: EndpointValidation = newValidation('https://a.example/hook', 'code-1', T0, 300_000);

describe('provisioningStateOf', () => {
  it.each([
    ['no validation', undefined, T0, 'Succeeded'],
    ['agreed', { ...waiting, validatedAt: T0 + 1 }, T0 + 10 * 300_000, 'Succeeded'],
    ['waiting, inside the window', waiting, T0 + 299_999, 'AwaitingManualAction'],
    ['waiting, at the window end', waiting, T0 + 300_000, 'AwaitingManualAction'],
    ['waiting, after the window', waiting, T0 + 300_001, 'Failed'],
    ['refused with an error, after the window', { ...waiting, handshakeError: 'x' }, T0 + 400_000, 'Failed'],
  ] as const)('%s: %s', (_what, validation, now, state) => {
    const subscription = validation === undefined ? {} : { validation };
    expect(provisioningStateOf(subscription, now)).toBe(state);
    expect(endpointAgreed(subscription)).toBe(state === 'Succeeded');
  });
});

describe('validationForWrite', () => {
  const fresh = () => newValidation('https://b.example/hook', 'code-2', T0, 300_000);
  const existing = (validation?: EndpointValidation) => ({
    destination: { endpointType: 'WebHook' as const, endpointUrl: 'https://a.example/hook' },
    ...(validation === undefined ? {} : { validation }),
  });
  it.each([
    ['a new subscription, validation on', undefined, 'https://b.example/hook', true, 'fresh'],
    ['a new subscription, validation off', undefined, 'https://b.example/hook', false, 'none'],
    ['same endpoint keeps a waiting validation', existing(waiting), 'https://a.example/hook', true, 'kept'],
    [
      'same endpoint keeps it even with validation off',
      existing(waiting),
      'https://a.example/hook',
      false,
      'kept',
    ],
    ['same endpoint without validation stays without', existing(), 'https://a.example/hook', true, 'none'],
    ['another endpoint, validation on', existing(waiting), 'https://b.example/hook', true, 'fresh'],
    ['another endpoint, validation off', existing(waiting), 'https://b.example/hook', false, 'none'],
  ] as const)('%s', (_what, current, url, on, expected) => {
    const result = validationForWrite(current, { endpointUrl: url }, fresh, on);
    if (expected === 'none') expect(result).toBeUndefined();
    if (expected === 'kept') expect(result).toBe(waiting);
    if (expected === 'fresh')
      expect(result).toMatchObject({ code: 'code-2', endpointUrl: 'https://b.example/hook' });
  });

  it('counts another sealed query string on the same path as another endpoint', () => {
    const sealed = {
      ...existing(waiting),
      destination: { ...existing().destination, sealedQuery: 'v1.a.b' },
    };
    expect(
      validationForWrite(
        sealed,
        { endpointUrl: 'https://a.example/hook', sealedQuery: 'v1.a.b' },
        fresh,
        true,
      ),
    ).toBe(waiting);
    expect(
      validationForWrite(
        sealed,
        { endpointUrl: 'https://a.example/hook', sealedQuery: 'v1.c.d' },
        fresh,
        true,
      ),
    ).toMatchObject({
      code: 'code-2',
    });
    expect(validationForWrite(sealed, { endpointUrl: 'https://a.example/hook' }, fresh, true)).toMatchObject({
      code: 'code-2',
    });
  });
});

const input = {
  endpointUrl: 'https://a.example/hook?k=1',
  subscriptionName: 'Audit',
  topicId: '/gridwire/topics/orders',
  code: 'code-1',
  validationUrl:
    'https://api.example/eventSubscriptions/validate?topic=orders&subscription=Audit&code=code-1',
  origin: 'api.example',
  eventId: 'evt-1',
  nowMs: T0,
};

describe('handshakeRequest', () => {
  it('chooses the handshake by delivery schema', () => {
    expect(handshakeKindOf('EventGridSchema')).toBe('eventGrid');
    expect(handshakeKindOf('CustomInputSchema')).toBe('eventGrid');
    expect(handshakeKindOf('CloudEventSchemaV1_0')).toBe('cloudEvents');
  });

  it('POSTs one validation event for Event Grid deliveries', () => {
    const request = handshakeRequest({ ...input, kind: 'eventGrid' });
    expect(request).toMatchObject({
      method: 'POST',
      url: input.endpointUrl,
      headers: {
        'aeg-event-type': 'SubscriptionValidation',
        'aeg-subscription-name': 'AUDIT',
        'aeg-delivery-count': '0',
        'content-type': 'application/json; charset=utf-8',
      },
    });
    expect(JSON.parse(request.body ?? '')).toEqual([
      {
        id: 'evt-1',
        topic: '/gridwire/topics/orders',
        subject: '',
        data: { validationCode: 'code-1', validationUrl: input.validationUrl },
        eventType: VALIDATION_EVENT_TYPE,
        eventTime: '2026-11-23T10:00:00.000Z',
        metadataVersion: '1',
        dataVersion: '2',
      },
    ]);
  });

  it('sends OPTIONS with origin, rate and callback for CloudEvents deliveries', () => {
    const request = handshakeRequest({ ...input, kind: 'cloudEvents' });
    expect(request.method).toBe('OPTIONS');
    expect(request.body).toBeUndefined();
    expect(request.headers).toMatchObject({
      'webhook-request-origin': 'api.example',
      'webhook-request-rate': '*',
      'webhook-request-callback': input.validationUrl,
    });
  });
});

describe('judgeAnswer', () => {
  const eventGrid = { kind: 'eventGrid' as const, code: 'code-1', origin: 'api.example' };
  const cloudEvents = { ...eventGrid, kind: 'cloudEvents' as const };
  const answer = (status: number, body = '', headers: Record<string, string> = {}) => ({
    status,
    body,
    headers,
  });

  it.each([
    ['the code echoed', answer(200, '{"validationResponse":"code-1"}'), true, undefined],
    [
      'the code echoed among other members',
      answer(200, '{"a":1,"validationResponse":"code-1"}'),
      true,
      undefined,
    ],
    ['another code', answer(200, '{"validationResponse":"code-2"}'), false, /not the validationCode/],
    [
      'the code in another case',
      answer(200, '{"validationResponse":"CODE-1"}'),
      false,
      /not the validationCode/,
    ],
    ['an empty body', answer(200), false, /no validationResponse/],
    ['no validationResponse', answer(200, '{"ok":true}'), false, /no validationResponse/],
    ['an array', answer(200, '["code-1"]'), false, /no validationResponse/],
    ['not JSON', answer(200, 'code-1'), false, /not JSON/],
    ['a 202 with the code', answer(202, '{"validationResponse":"code-1"}'), false, /HTTP 202/],
    ['a 404', answer(404), false, /HTTP 404/],
  ])('Event Grid: %s', (_what, given, agreed, reason) => {
    const verdict = judgeAnswer(eventGrid, given);
    expect(verdict.agreed).toBe(agreed);
    if (reason !== undefined && !verdict.agreed) expect(verdict.reason).toMatch(reason);
  });

  it.each([
    ['the origin', answer(200, '', { 'webhook-allowed-origin': 'api.example' }), true, undefined],
    [
      'the origin in another case',
      answer(200, '', { 'webhook-allowed-origin': 'API.example ' }),
      true,
      undefined,
    ],
    ['*', answer(200, '', { 'webhook-allowed-origin': '*' }), true, undefined],
    [
      'another origin',
      answer(200, '', { 'webhook-allowed-origin': 'other.example' }),
      false,
      /other\.example/,
    ],
    ['no header', answer(200), false, /without WebHook-Allowed-Origin/],
    ['a 204 with the origin', answer(204, '', { 'webhook-allowed-origin': '*' }), false, /HTTP 204/],
    ['a 405', answer(405), false, /OPTIONS handshake with HTTP 405/],
  ])('CloudEvents: %s', (_what, given, agreed, reason) => {
    const verdict = judgeAnswer(cloudEvents, given);
    expect(verdict.agreed).toBe(agreed);
    if (reason !== undefined && !verdict.agreed) expect(verdict.reason).toMatch(reason);
  });
});
