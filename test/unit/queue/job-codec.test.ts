import { SQS_LIMITS } from '../../../shared/config/resources';
import {
  JOB_TARGET_BYTES,
  MAX_QUEUED_EVENT_BYTES,
  packJobs,
  parseJob,
} from '../../../shared/queue/job-codec';
import { item } from '../../support/fakes';

const envelope = { topic: 'orders', subscription: 'audit' };
const bytes = (body: string) => Buffer.byteLength(body, 'utf8');

describe('packing delivery jobs', () => {
  it('puts a hundred small events in one message', () => {
    const items = Array.from({ length: 100 }, (_, i) => item(`e${i}`, 1));
    const bodies = packJobs(envelope, items);
    expect(bodies).toHaveLength(1);
    expect(parseJob(bodies[0] ?? '').items).toHaveLength(100);
  });

  it('splits at the target size and keeps every event, in order', () => {
    const big = 'x'.repeat(10_000);
    const items = Array.from({ length: 60 }, (_, i) =>
      item(`e${i}`, 1, { event: { ...item(`e${i}`, 1).event, data: big } }),
    );
    const bodies = packJobs(envelope, items);
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) expect(bytes(body)).toBeLessThanOrEqual(JOB_TARGET_BYTES);
    expect(bodies.flatMap((body) => parseJob(body).items.map((i) => i.event.id))).toEqual(
      items.map((i) => i.event.id),
    );
  });

  it('sends an event larger than the target alone, still under the SQS limit', () => {
    const huge = item('huge', 1, {
      event: { ...item('huge', 1).event, data: 'y'.repeat(MAX_QUEUED_EVENT_BYTES - 400) },
    });
    const bodies = packJobs(envelope, [item('a', 1), huge, item('b', 1)]);
    expect(bodies.map((body) => parseJob(body).items.map((i) => i.event.id))).toEqual([
      ['a'],
      ['huge'],
      ['b'],
    ]);
    expect(bytes(bodies[1] ?? '')).toBeLessThanOrEqual(SQS_LIMITS.maxMessageBytes);
  });

  it('refuses an item that no SQS message can hold', () => {
    const tooBig = item('x', 1, {
      event: { ...item('x', 1).event, data: 'z'.repeat(SQS_LIMITS.maxMessageBytes) },
    });
    expect(() => packJobs(envelope, [tooBig])).toThrow(/an SQS message holds at most 1048576/);
  });

  it('carries the due time and counts multi-byte characters as bytes', () => {
    const items = [
      item('e', 1, { event: { ...item('e', 1).event, data: 'é'.repeat(200_000) } }),
      item('f', 1),
    ];
    const bodies = packJobs({ ...envelope, dueAt: 1234.6 }, items);
    expect(bodies).toHaveLength(2);
    expect(parseJob(bodies[0] ?? '').dueAt).toBe(1235);
  });
});

describe('reading delivery jobs', () => {
  it('round-trips a job', () => {
    const [body] = packJobs({ ...envelope, dueAt: 99 }, [
      item('e1', 5, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 }),
    ]);
    expect(parseJob(body ?? '')).toEqual({
      v: 1,
      topic: 'orders',
      subscription: 'audit',
      dueAt: 99,
      items: [item('e1', 5, { attempts: 2, lastOutcome: 'Busy', lastHttpStatus: 503 })],
    });
  });

  it.each([
    ['not json', /not JSON/],
    ['{"v":2,"topic":"t","subscription":"s","items":[]}', /malformed at v/],
    ['{"v":1,"topic":"t","subscription":"s","items":[]}', /malformed at items/],
    [
      '{"v":1,"topic":"t","subscription":"s","items":[{"deliveryId":"d","event":{"id":"e"},"attempts":-1,"publishedAt":1}]}',
      /malformed at items.0.attempts/,
    ],
    [
      '{"v":1,"topic":"t","subscription":"s","items":[{"deliveryId":"d","event":{"id":"e"},"attempts":0,"publishedAt":1,"lastOutcome":"Nope"}]}',
      /items.0.lastOutcome/,
    ],
  ])('refuses %s', (body, message) => {
    expect(() => parseJob(body)).toThrow(message);
  });
});
