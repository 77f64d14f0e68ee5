import type { AttemptRecord } from '../../../shared/domain/model';
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import {
  deliveriesDocument,
  handleManagement,
  type ManagementDeps,
  parseHistoryWindow,
} from '../../../shared/management/api';
import type { HistoryWindow } from '../../../shared/storage/attempt-history';
import { subscription } from '../../support/fakes';

describe('delivery history document', () => {
  it('groups attempts by delivery and states where each stands', () => {
    const base = { topic: 't', subscription: 's', eventId: 'e', publishedAt: 0 };
    const doc = deliveriesDocument([
      {
        ...base,
        deliveryId: 'd1',
        attempt: 1,
        at: 1000,
        outcome: 'Busy',
        httpStatus: 503,
        next: { action: 'retry', dueAt: 31_000 },
      },
      { ...base, deliveryId: 'd1', attempt: 2, at: 31_000, outcome: 'Delivered', next: { action: 'none' } },
      {
        ...base,
        deliveryId: 'd2',
        attempt: 1,
        at: 0,
        outcome: 'BadRequest',
        next: { action: 'dropped', reason: 'NonRetriableOutcome' },
      },
    ]);
    expect(doc.value.map((d) => [d.deliveryId, d.status, d.attempts.length])).toEqual([
      ['d1', 'Delivered', 2],
      ['d2', 'Dropped', 1],
    ]);
    expect(doc.value[1]).toMatchObject({ reason: 'NonRetriableOutcome' });
  });
});

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

/** The 400 a call throws, as its message. */
function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('delivery history window', () => {
  it('defaults to the 24 hours before now, or before `until`', () => {
    expect(parseHistoryWindow({}, NOW, 7)).toEqual({ since: NOW - 24 * HOUR, until: NOW });
    expect(parseHistoryWindow({ until: '2026-11-20T00:00:00Z' }, NOW, 7)).toEqual({
      since: Date.parse('2026-11-19T00:00:00Z'),
      until: Date.parse('2026-11-20T00:00:00Z'),
    });
    expect(parseHistoryWindow({ since: '2026-11-20' }, NOW, 7)).toEqual({
      since: Date.parse('2026-11-20T00:00:00Z'),
      until: NOW,
    });
  });

  it('is at most the retention long', () => {
    expect(parseHistoryWindow({ since: '2026-11-16T12:00:00Z' }, NOW, 7)).toEqual({
      since: NOW - 7 * 24 * HOUR,
      until: NOW,
    });
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-16T11:59:59Z' }, NOW, 7))).toMatch(
      /^since: the window may span at most 7 days/,
    );
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-20', until: '2026-11-23' }, NOW, 2))).toMatch(
      /^since: the window may span at most 2 days/,
    );
  });

  it('refuses malformed times and an empty window, naming the field', () => {
    expect(refusal(() => parseHistoryWindow({ since: 'yesterday' }, NOW, 7))).toMatch(
      /^since: must be an ISO 8601/,
    );
    expect(refusal(() => parseHistoryWindow({ until: '2026-13-01' }, NOW, 7))).toMatch(/^until: /);
    expect(refusal(() => parseHistoryWindow({ since: '2026-11-24T00:00:00Z' }, NOW, 7))).toMatch(
      /^since: must be before until/,
    );
  });
});

describe('GET .../deliveries', () => {
  const record: AttemptRecord = {
    topic: 'orders',
    subscription: 'audit',
    eventId: 'order-1',
    deliveryId: 'd1',
    publishedAt: NOW - HOUR,
    attempt: 1,
    at: NOW - HOUR,
    outcome: 'Busy',
    httpStatus: 503,
    next: { action: 'retry', dueAt: NOW - HOUR + 30_000 },
  };

  function call(query: Record<string, string>) {
    const lookups: Array<[string, string, string, HistoryWindow]> = [];
    const deps = {
      store: { getSubscription: async () => subscription({ topic: 'orders', name: 'audit' }) },
      clock: { now: () => NOW, sleep: async () => {} },
      history: {
        retentionDays: 7,
        find: async (topic: string, name: string, eventId: string, window: HistoryWindow) => {
          lookups.push([topic, name, eventId, window]);
          return {
            records: [record],
            searched: { since: window.since + HOUR, until: window.until },
            truncated: true,
          };
        },
      },
    } as unknown as ManagementDeps;
    const event = {
      routeKey: 'GET /admin/topics/{topic}/eventSubscriptions/{subscription}/deliveries',
      pathParameters: { topic: 'orders', subscription: 'audit' },
      queryStringParameters: query,
    } as unknown as HttpEvent;
    return { result: handleManagement(event, deps), lookups };
  }

  it('looks in the window asked for and says what it searched', async () => {
    const { result, lookups } = call({ eventId: 'order-1', since: '2026-11-22T00:00:00Z' });
    const answer = await result;

    expect(lookups).toEqual([
      ['orders', 'audit', 'order-1', { since: Date.parse('2026-11-22T00:00:00Z'), until: NOW }],
    ]);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body as string)).toEqual({
      ...deliveriesDocument([record]),
      searched: { since: '2026-11-22T01:00:00.000Z', until: '2026-11-23T12:00:00.000Z' },
      truncated: true,
    });
  });

  it('refuses a window longer than the retention before looking', async () => {
    const { result, lookups } = call({ eventId: 'order-1', since: '2026-11-01T00:00:00Z' });
    await expect(result).rejects.toMatchObject({ statusCode: 400 });
    expect(lookups).toEqual([]);
  });
});
