/**
 * A backlog segment's object text: what is written is what is read, a damaged object is refused
 * naming the line, and keys keep each subscription uid apart. (The stores themselves are held to
 * the conformance suite, `test/support/storage-conformance.ts`.)
 */
import { segmentIdOf } from '../../../shared/delivery/rules/backlog';
import type { BacklogLine } from '../../../shared/domain/backlog';
import { backlogSegmentKey, decodeSegment, encodeSegment, summaryOf } from '../../../shared/storage/backlog';
import { deliveryTarget, item } from '../../support/fakes';

const T = Date.UTC(2026, 2, 1);
const line = (id: string, dueAt: number): BacklogLine => ({ dueAt, heldBy: 'wait', item: item(id, T) });
const segment = (lines: BacklogLine[]) => ({
  target: deliveryTarget({ uid: 'u-1' }),
  segmentId: segmentIdOf(['m-1']),
  lines,
  createdAt: T,
});

describe('backlog segment text', () => {
  it('is a header line, then one line per event in due order, and reads back as written', () => {
    const { text, ref } = encodeSegment(segment([line('b', T + 2), line('a', T + 1)]));

    const rows = text.split('\n');
    expect(rows).toHaveLength(4); // header, two events, and the final newline
    expect(rows[3]).toBe('');
    expect(ref.bytes).toBe(Buffer.byteLength(text, 'utf8'));
    expect(decodeSegment(ref.key, text).lines).toEqual([line('a', T + 1), line('b', T + 2)]);
  });

  it('writes characters beyond U+FFFF as escapes, as job messages do, and reads them back unchanged', () => {
    const emoji = { ...line('e', T), item: { ...item('e', T), eventJson: '{"id":"e","s":"😀"}' } };
    const { text, ref } = encodeSegment(segment([emoji]));

    expect(text).not.toContain('😀');
    expect(decodeSegment(ref.key, text).lines[0]?.item.eventJson).toBe('{"id":"e","s":"😀"}');
  });

  it.each([
    [
      'a segment cut short',
      (text: string) => text.split('\n').slice(0, 2).join('\n'),
      /holds 1 events; its header says 2/,
    ],
    ['a line that is not JSON', (text: string) => text.replace(/\n\{/, '\n{{'), /line 2 is not JSON/],
    [
      'a line without its due time',
      (text: string) => text.replace('"dueAt":', '"due":'),
      /line 2 is malformed at dueAt/,
    ],
  ])('refuses %s, naming the key', (_name, damage, message) => {
    const { text, ref } = encodeSegment(segment([line('a', T), line('b', T + 1)]));
    expect(() => decodeSegment(ref.key, damage(text))).toThrow(message);
    expect(() => decodeSegment(ref.key, damage(text))).toThrow(ref.key);
  });

  it('refuses a segment without events', () => {
    expect(() => encodeSegment(segment([]))).toThrow(RangeError);
  });
});

describe('backlog segment keys', () => {
  it.each<[string, string, string | undefined, string]>([
    ['Orders', 'Audit', 'u-1', 'backlog/orders/audit/u-1/abc.jsonl'],
    ['Shop/Orders', 'Audit', 'u-2', 'backlog/shop/orders/audit/u-2/abc.jsonl'],
    ['Orders', 'Audit', undefined, 'backlog/orders/audit/-/abc.jsonl'],
  ])('%s / %s of uid %s -> %s', (topic, subscription, uid, key) => {
    expect(backlogSegmentKey(topic, subscription, uid, 'abc')).toBe(key);
  });
});

describe('backlog summary', () => {
  it('counts the events not done and the oldest publish time of segments with any left', () => {
    const a = { ...encodeSegment(segment([line('a', T), line('b', T)])).ref, minPublishedAt: T - 5 };
    const done = { ...a, segmentId: 'done', minPublishedAt: T - 99, doneThrough: 2 };
    expect(summaryOf([a, { ...a, doneAfter: [1] }, done])).toEqual({ events: 3, oldestPublishedAt: T - 5 });
    expect(summaryOf([done])).toEqual({ events: 0 });
  });
});
