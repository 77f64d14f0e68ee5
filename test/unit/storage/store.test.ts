import { historyPk } from '../../../shared/storage/store';

describe('attempt history keys', () => {
  it('keep short event ids readable and hash long ones to fit a DynamoDB key', () => {
    expect(historyPk('Orders', 'Audit', 'order-1')).toBe('HISTORY#orders#audit#order-1');
    const long = historyPk('orders', 'audit', 'é'.repeat(300));
    expect(long).toMatch(/^HISTORYH#orders#audit#[0-9a-f]{64}$/);
    expect(historyPk('orders', 'audit', 'é'.repeat(300))).toBe(long);
    expect(historyPk('orders', 'audit', 'é'.repeat(301))).not.toBe(long);
  });
});
