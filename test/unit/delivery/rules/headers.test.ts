import {
  customHeadersOf,
  customHeaderValues,
  MAX_CUSTOM_HEADER_BYTES,
  systemHeaders,
  valueAtPath,
} from '../../../../shared/delivery/rules/headers';

const event =
  '{"id":"e-1","subject":"s","data":{"tenant":"acme","n":9007199254740993,"ok":true,"nested":{"deep":"yes"},"list":[1],"none":null,"x":{"a":1},"tenant2":"a\\u00e9"},"eventType":"T"}';

describe('values at a dotted path', () => {
  it.each([
    [['data', 'tenant'], 'acme'],
    [['data', 'n'], '9007199254740993'],
    [['data', 'ok'], 'true'],
    [['data', 'nested', 'deep'], 'yes'],
    [['data', 'tenant2'], 'aé'],
    [['id'], 'e-1'],
    [['data', 'missing'], undefined],
    [['data', 'list'], undefined],
    [['data', 'none'], undefined],
    [['data', 'x'], undefined],
    [['data', 'tenant', 'deeper'], undefined],
    [['nope', 'tenant'], undefined],
  ])('%j is %j', (path, expected) => {
    expect(valueAtPath(event, path)).toBe(expected);
  });

  it('takes the last of a repeated member, as JSON.parse does', () => {
    expect(valueAtPath('{"a":"first","a":"last"}', ['a'])).toBe('last');
  });
});

describe('custom header values', () => {
  it('sends static values and dynamic values read from the event; a missing field sends no header', () => {
    expect(
      customHeaderValues(
        [
          { name: 'X-Static', kind: 'static', value: 'fixed' },
          { name: 'X-Tenant', kind: 'dynamic', path: ['data', 'tenant'] },
          { name: 'X-Count', kind: 'dynamic', path: ['data', 'n'] },
          { name: 'X-Missing', kind: 'dynamic', path: ['data', 'missing'] },
          { name: 'X-Object', kind: 'dynamic', path: ['data', 'x'] },
        ],
        event,
      ),
    ).toEqual({ 'X-Static': 'fixed', 'X-Tenant': 'acme', 'X-Count': '9007199254740993' });
  });

  it.each([
    ['a line break', 'a\r\nX-Injected: 1'],
    ['characters beyond Latin-1', 'заказ'],
    ['more than 4096 bytes', 'x'.repeat(MAX_CUSTOM_HEADER_BYTES + 1)],
  ])('sends no dynamic header whose value has %s', (_what, value) => {
    const text = JSON.stringify({ data: { v: value } });
    expect(customHeaderValues([{ name: 'X-V', kind: 'dynamic', path: ['data', 'v'] }], text)).toEqual({});
  });

  it('opens secret static values, and only those', async () => {
    const opened: string[] = [];
    const headers = await customHeadersOf(
      [
        { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'sealed-1' },
        { name: 'X-Plain', type: 'Static', isSecret: false, value: 'plain' },
        { name: 'X-Tenant', type: 'Dynamic', sourceField: 'data.tenant' },
      ],
      async (sealed) => {
        opened.push(sealed);
        return `opened(${sealed})`;
      },
    );
    expect(opened).toEqual(['sealed-1']);
    expect(headers).toEqual([
      { name: 'Authorization', kind: 'static', value: 'opened(sealed-1)' },
      { name: 'X-Plain', kind: 'static', value: 'plain' },
      { name: 'X-Tenant', kind: 'dynamic', path: ['data', 'tenant'] },
    ]);
  });
});

describe('system headers', () => {
  const grid = { name: 'audit', eventDeliverySchema: 'EventGridSchema' } as const;
  const one = { attempts: 2, eventId: 'e-1', dataVersion: '1.0' };

  it('carry the event id and data version for a single event', () => {
    expect(systemHeaders(grid, [one])).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Gridwire/0.1',
      'aeg-event-type': 'Notification',
      'aeg-subscription-name': 'AUDIT',
      'aeg-delivery-count': '2',
      'aeg-metadata-version': '1',
      'aeg-data-version': '1.0',
      'aeg-output-event-id': 'e-1',
    });
  });

  it('mark a resend with the delivery it sends again', () => {
    expect(systemHeaders(grid, [{ ...one, resendOf: 'pub-1.0' }])['gridwire-resend-of']).toBe('pub-1.0');
    expect(systemHeaders(grid, [one])['gridwire-resend-of']).toBeUndefined();
  });

  it.each([
    ['one replayed event', [{ replayOf: 'archive' as const }], 'archive'],
    ['a batch all replayed', [{ replayOf: 'archive' as const }, { replayOf: 'archive' as const }], 'archive'],
    ['a batch mixing replayed and fresh events', [{ replayOf: 'archive' as const }, {}], undefined],
    ['fresh events only', [{}, {}], undefined],
  ])('mark a request as replayed only when all its events are: %s', (_case, marks, expected) => {
    const items = marks.map((mark, index) => ({ ...one, eventId: `e-${index}`, ...mark }));
    expect(systemHeaders(grid, items)['gridwire-replay-of']).toBe(expected);
  });

  it('leave the per-event ones out of a batch', () => {
    const headers = systemHeaders(grid, [one, { ...one, eventId: 'e-2' }]);
    expect(headers['aeg-output-event-id']).toBeUndefined();
    expect(headers['aeg-data-version']).toBeUndefined();
    expect(headers['aeg-delivery-count']).toBe('2');
  });

  it('use the CloudEvents batch type for CloudEvents subscriptions', () => {
    expect(
      systemHeaders({ name: 'a', eventDeliverySchema: 'CloudEventSchemaV1_0' }, [one])['content-type'],
    ).toBe('application/cloudevents-batch+json; charset=utf-8');
  });
});
