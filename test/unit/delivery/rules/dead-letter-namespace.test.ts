import {
  deadLetterFormatOf,
  deadLetterKey,
  deadLetterRecord,
  deadLetterScopeOf,
  eventOfRecord,
  NAMESPACE_REASON_SENTENCES,
  NAMESPACE_RESULT_SENTENCES,
  reasonNameOf,
  reasonOfStated,
} from '../../../../shared/delivery/rules/dead-letter-layout';
import { customHeaderValues, nonSecretCustomHeaders } from '../../../../shared/delivery/rules/headers';
import {
  DELIVERY_PROFILES,
  deadLetterGivesUp,
  deadLetterRetryDelayMs,
  NAMESPACE_PROFILE,
  scaleProfile,
  TOPIC_PROFILE,
} from '../../../../shared/delivery/rules/profiles';
import {
  DEAD_LETTER_REASONS,
  DELIVERY_OUTCOMES,
  type DeliveryAttributeMapping,
} from '../../../../shared/domain/model';
import { splitNamespaceTopicId } from '../../../../shared/domain/names';
import { H, M, S } from '../../../support/time';

const CLOUD_EVENT =
  '{"specversion":"1.0","id":"e1","source":"/shop","type":"order.created","data":{"tenant":"acme","n":9007199254740993}}';

describe('namespace dead letters: format and scope', () => {
  it('takes the namespace format from the profile, the delivery schema otherwise', () => {
    expect(deadLetterFormatOf(NAMESPACE_PROFILE, { eventDeliverySchema: 'CloudEventSchemaV1_0' })).toBe(
      'namespace',
    );
    for (const schema of ['EventGridSchema', 'CustomInputSchema', 'CloudEventSchemaV1_0'] as const) {
      expect(deadLetterFormatOf(TOPIC_PROFILE, { eventDeliverySchema: schema })).toBe(schema);
    }
    // Scaling keeps the layout.
    expect(scaleProfile(NAMESPACE_PROFILE, 60).deadLetter.layout).toBe('namespace');
  });

  it('scopes a namespace record by namespace, topic and subscription; others by subscription', () => {
    expect(deadLetterScopeOf('namespace', splitNamespaceTopicId('shop/orders'), 'audit')).toEqual({
      kind: 'namespace',
      namespace: 'shop',
      topic: 'orders',
      subscription: 'audit',
    });
    expect(deadLetterScopeOf('CloudEventSchemaV1_0', splitNamespaceTopicId('orders'), 'audit')).toEqual({
      kind: 'topic',
      subscription: 'audit',
    });
    expect(() => deadLetterScopeOf('namespace', splitNamespaceTopicId('orders'), 'audit')).toThrow(TypeError);
    expect(
      deadLetterKey(
        'dead',
        deadLetterScopeOf('namespace', splitNamespaceTopicId('shop/orders'), 'audit'),
        Date.parse('2026-08-08T05:10:00Z'),
        'u',
      ),
    ).toBe('dead/shop/orders/audit/2026/8/8/5/u.json');
  });

  it('names the reason as each format writes it', () => {
    expect(reasonNameOf('namespace')).toBe('deadletterreason');
    expect(reasonNameOf('CloudEventSchemaV1_0')).toBe('deadletterreason');
    expect(reasonNameOf('EventGridSchema')).toBe('deadLetterReason');
  });
});

describe('namespace dead letters: the record', () => {
  const facts = {
    reason: 'MaxDeliveryAttemptsExceeded' as const,
    deliveryAttempts: 3,
    lastDeliveryOutcome: 'Busy' as const,
    publishTime: Date.parse('2026-08-08T05:00:00Z'),
    lastDeliveryAttemptTime: Date.parse('2026-08-08T05:01:00Z'),
  };

  it('holds the spec properties, the event as delivered and the custom delivery properties', () => {
    const text = deadLetterRecord('namespace', CLOUD_EVENT, facts, { 'x-tenant': 'acme', 'x-source': 'web' });
    expect(JSON.parse(text)).toEqual({
      deadLetterProperties: {
        deadletterreason: 'Maximum delivery attempts was exceeded.',
        deliveryattempts: 3,
        deliveryresult: 'The destination was busy.',
        publishutc: '2026-08-08T05:00:00.0000000Z',
        deliveryattemptutc: '2026-08-08T05:01:00.0000000Z',
      },
      event: JSON.parse(CLOUD_EVENT),
      customDeliveryProperties: { 'x-tenant': 'acme', 'x-source': 'web' },
    });
    // The event's text is kept exactly, and is what a replay sends.
    expect(text).toContain('9007199254740993');
    expect(eventOfRecord('namespace', text)).toBe(CLOUD_EVENT);
  });

  // 002 (namespace page), the dead-lettered event example: "deadletterreason": "Maximum delivery
  // attempts was exceeded.", "deliveryresult": "Event was not acknowledged nor rejected.",
  // "publishutc": "2023-11-01T20:33:51.4521467Z" (seven fractional digits).
  it('states the reason and the result as the page does: sentences, and times with seven digits', () => {
    const record = JSON.parse(
      deadLetterRecord('namespace', CLOUD_EVENT, {
        reason: 'MaxDeliveryAttemptsExceeded',
        deliveryAttempts: 1,
        lastDeliveryOutcome: 'TimedOut',
        publishTime: Date.parse('2023-11-01T20:33:51.452Z'),
        lastDeliveryAttemptTime: Date.parse('2023-11-01T20:33:52.369Z'),
      }),
    );
    expect(record.deadLetterProperties).toEqual({
      deadletterreason: 'Maximum delivery attempts was exceeded.',
      deliveryattempts: 1,
      deliveryresult: 'Event was not acknowledged nor rejected.',
      publishutc: '2023-11-01T20:33:51.4520000Z',
      deliveryattemptutc: '2023-11-01T20:33:52.3690000Z',
    });
  });

  it('has a distinct sentence for every reason and every outcome, and reads each back as its reason', () => {
    const reasons = Object.values(NAMESPACE_REASON_SENTENCES);
    expect(Object.keys(NAMESPACE_REASON_SENTENCES).sort()).toEqual([...DEAD_LETTER_REASONS].sort());
    expect(new Set(reasons).size).toBe(reasons.length);
    expect(Object.keys(NAMESPACE_RESULT_SENTENCES).sort()).toEqual([...DELIVERY_OUTCOMES].sort());
    const results = Object.values(NAMESPACE_RESULT_SENTENCES);
    expect(new Set(results).size).toBe(results.length);
    for (const reason of DEAD_LETTER_REASONS) {
      // Records written before the sentences state the name; both read back as the reason.
      expect(reasonOfStated(NAMESPACE_REASON_SENTENCES[reason])).toBe(reason);
      expect(reasonOfStated(reason)).toBe(reason);
    }
    expect(reasonOfStated('Something else.')).toBeUndefined();
  });

  it('leaves out the result and attempt time when no attempt was made', () => {
    const record = JSON.parse(
      deadLetterRecord('namespace', CLOUD_EVENT, {
        reason: 'TimeToLiveExceeded',
        deliveryAttempts: 0,
        publishTime: facts.publishTime,
      }),
    );
    expect(Object.keys(record.deadLetterProperties)).toEqual([
      'deadletterreason',
      'deliveryattempts',
      'publishutc',
    ]);
  });

  it('takes custom delivery properties from the non-secret mappings only, never opening a secret', () => {
    const mappings: DeliveryAttributeMapping[] = [
      { name: 'x-static', type: 'Static', isSecret: false, value: 'fixed' },
      { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'sealed:Bearer s3cret' },
      { name: 'x-tenant', type: 'Dynamic', sourceField: 'data.tenant' },
      { name: 'x-missing', type: 'Dynamic', sourceField: 'data.nothing' },
    ];
    const headers = nonSecretCustomHeaders(mappings);
    expect(headers.map((header) => header.name)).toEqual(['x-static', 'x-tenant', 'x-missing']);
    const values = customHeaderValues(headers, CLOUD_EVENT);
    expect(values).toEqual({ 'x-static': 'fixed', 'x-tenant': 'acme' });
    const text = deadLetterRecord('namespace', CLOUD_EVENT, facts, values);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('Authorization');
  });
});

describe('namespace dead letters: retrying a write', () => {
  it('waits 10 s, 1 min, 5 min, then every 5 minutes, and gives up after 4 hours', () => {
    const timing = DELIVERY_PROFILES.namespace.deadLetter;
    expect([1, 2, 3, 4, 5, 20].map((n) => deadLetterRetryDelayMs(timing, n))).toEqual([
      10 * S,
      1 * M,
      5 * M,
      5 * M,
      5 * M,
      5 * M,
    ]);
    expect(timing.giveUpAfterMs).toBe(4 * H);
    expect(timing.writeDelayMs).toBe(5 * M);
  });

  it('keeps the classic every 5 minutes for classic topics', () => {
    const timing = DELIVERY_PROFILES.topic.deadLetter;
    expect([1, 2, 3, 4].map((n) => deadLetterRetryDelayMs(timing, n))).toEqual([5 * M, 5 * M, 5 * M, 5 * M]);
    expect(timing.layout).toBe('topic');
  });

  it('scales the write retries with the rest of the profile', () => {
    const timing = scaleProfile(NAMESPACE_PROFILE, 10).deadLetter;
    expect([1, 2, 3, 4].map((n) => deadLetterRetryDelayMs(timing, n))).toEqual([
      1 * S,
      6 * S,
      30 * S,
      30 * S,
    ]);
  });
});

describe('the four-hour rule (seed 003, "Dead-letter events": "If the dead-letter location is unavailable for four hours, the event is dropped")', () => {
  const H = 3_600_000;
  const timing = { giveUpAfterMs: 4 * H };
  it.each([
    ['a first failed write, however long ago delivery ended', { endedAt: 0 }, 10 * H, false],
    [
      '3 h 59 min after the first failed write',
      { endedAt: 0, failedWrites: 40, firstFailedWriteAt: H },
      5 * H - 60_000,
      false,
    ],
    [
      '4 h after the first failed write',
      { endedAt: 0, failedWrites: 48, firstFailedWriteAt: H },
      5 * H,
      true,
    ],
    [
      '4 h after delivery ended, for one re-queued before first writes were recorded',
      { endedAt: 0, failedWrites: 3 },
      4 * H,
      true,
    ],
  ])('%s: given up %s', (_case, entry, now, givesUp) => {
    expect(deadLetterGivesUp(timing, entry, now)).toBe(givesUp);
  });
});
