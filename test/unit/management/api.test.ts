import { deliveriesDocument } from '../../../shared/management/api';

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
