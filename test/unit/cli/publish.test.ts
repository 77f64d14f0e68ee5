/**
 * `gridwire publish` against a scripted publish endpoint on loopback: the event made in the
 * topic's schema, a refusal with Retry-After sent again after that wait, and a lasting one named.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiTarget, apiTarget } from '../../../cli/admin-api';
import { PUBLISH_RETRIES, publishEvents } from '../../../cli/publish';

let server: Server;
let base: string;
/** The answers the publish route gives, in turn (the last one repeats). */
let answers: Array<{ status: number; headers?: Record<string, string> }> = [];
const received: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      const answer = answers.length > 1 ? (answers.shift() as (typeof answers)[number]) : answers[0];
      res.writeHead(answer?.status ?? 200, answer?.headers ?? {});
      res.end(answer?.status === 200 ? '' : '{"error":{"message":"Too many requests."}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  received.length = 0;
});

/** The admin API: topic `orders` (Event Grid schema) with key1 `k1`. */
const target = (): ApiTarget =>
  apiTarget({
    where: 'the test API',
    url: base,
    call: async (_method, path) =>
      path.endsWith('/listKeys')
        ? { status: 200, text: '{"key1":"k1","key2":"k2"}' }
        : { status: 200, text: '{"name":"orders","properties":{"inputSchema":"EventGridSchema"}}' },
  });

describe('publishEvents', () => {
  it('sends again after Retry-After when refused, with the key read through the admin API', async () => {
    answers = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }];
    const sleeps: number[] = [];
    const now = new Date('2026-11-28T10:00:00Z');

    const result = await publishEvents(
      target(),
      { topic: 'orders' },
      { eventType: 'Order.Created', subject: 'shop/1', data: '{"total":42}', id: 'o-1' },
      { sleep: async (ms) => void sleeps.push(ms), now: () => now },
    );

    expect(result).toEqual({ published: 1, ids: ['o-1'] });
    expect(sleeps).toEqual([2000]);
    expect(received).toHaveLength(2);
    expect(received[1]?.url).toBe('/topics/orders/api/events?api-version=2018-01-01');
    expect(received[1]?.headers['aeg-sas-key']).toBe('k1');
    expect(JSON.parse(received[1]?.body ?? '[]')).toEqual([
      {
        id: 'o-1',
        subject: 'shop/1',
        eventType: 'Order.Created',
        eventTime: '2026-11-28T10:00:00.000Z',
        data: { total: 42 },
        dataVersion: '1.0',
      },
    ]);
  });

  it('gives up after its retries and names the answer', async () => {
    answers = [{ status: 503, headers: { 'retry-after': '1' } }];
    const sleeps: number[] = [];
    await expect(
      publishEvents(
        target(),
        { topic: 'orders' },
        { eventType: 'A', subject: 's' },
        { sleep: async (ms) => void sleeps.push(ms), now: () => new Date() },
      ),
    ).rejects.toThrow('publishing to topic orders failed: HTTP 503: Too many requests.');
    expect(sleeps).toHaveLength(PUBLISH_RETRIES);
    expect(received).toHaveLength(PUBLISH_RETRIES + 1);
  });
});
