/**
 * A fast webhook sink for benchmarks, run as a child process so it does not share a core with
 * the stack. Each event carries its publish time in `data.t`; the sink keeps the latency of
 * every delivery it acknowledges and the ids it has acknowledged. A configurable share of
 * answers fail with 500, as `failure-pattern.ts` decides; every answer can be held back a
 * configured time, as a real webhook takes (0 by default), and the answers held back can be let go
 * at once (`release`). It also counts the bytes of every request as it arrived: request line,
 * headers and body (what leaves AWS towards a webhook), and, when asked to, the ids of the events
 * it acknowledged in the order it acknowledged them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failsAttempt } from './failure-pattern';

export type SinkRequest =
  /**
   * `delayMs`: how long each answer is held back (default 0); `recordIds`: keep the id and arrival
   * time of each acknowledged event, in order (default off).
   */
  | { type: 'configure'; failureRate: number; delayMs?: number; recordIds?: boolean }
  | { type: 'take' }
  /** Sends every answer still held back now. */
  | { type: 'release' }
  | { type: 'stop' };
export type SinkMessage =
  | { type: 'ready'; port: number }
  /** `at`: the sink's epoch ms when it let them go; `answers`: how many were held back. */
  | { type: 'released'; at: number; answers: number }
  | {
      type: 'taken';
      /** Requests answered 2xx / failed since the last take. */
      delivered: number;
      failed: number;
      /** Publish-to-webhook latency (ms) of each acknowledged event since the last take. */
      latencies: number[];
      /** When each of those events was published (epoch ms, `data.t`), in the same order. */
      sentAt: number[];
      /** Events acknowledged since the last take, by request path (one path per subscription). */
      byPath: Record<string, number>;
      /** Distinct event ids acknowledged so far (whole run). */
      distinctDelivered: number;
      /** Epoch ms of the last acknowledged delivery (0 if none yet). */
      lastAt: number;
      /** Requests received since the last take (answered or not), and their bytes on arrival. */
      requests: number;
      requestBytes: number;
      /**
       * With `recordIds`: the ids of the events acknowledged since the last take, in the order
       * acknowledged, and when each one's request arrived (epoch ms); empty otherwise.
       */
      ids: string[];
      arrivedAt: number[];
    };

/** A request's bytes as sent: request line, each header as received, the blank line and the body. */
export function requestBytes(
  request: { method?: string; url?: string; httpVersion: string; rawHeaders: string[] },
  bodyBytes: number,
): number {
  let bytes = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`);
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    bytes += Buffer.byteLength(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}\r\n`);
  }
  return bytes + 2 + bodyBytes;
}

function main(): void {
  let failureRate = 0;
  let delayMs = 0;
  let recordIds = false;
  let ids: string[] = [];
  let arrivedAt: number[] = [];
  /** Answers held back, each with the way to send it now. */
  const held = new Map<NodeJS.Timeout, () => void>();
  let requests = 0;
  let bytes = 0;
  let delivered = 0;
  let failed = 0;
  let latencies: number[] = [];
  let sentAt: number[] = [];
  let byPath: Record<string, number> = {};
  const acknowledged = new Set<string>();
  let lastAt = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = Date.now();
      const body = Buffer.concat(chunks);
      requests += 1;
      bytes += requestBytes(req, body.length);
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          held.delete(timer);
          answer(now, body);
        }, delayMs);
        held.set(timer, () => answer(now, body));
      } else answer(now, body);
    });
    const answer = (now: number, body: Buffer) => {
      let events: Array<{ id: string; data?: { t?: number } }> = [];
      try {
        events = JSON.parse(body.toString('utf8'));
      } catch {
        // not an event array: counted, not measured
      }
      const deliveryCount = Number(req.headers['aeg-delivery-count'] ?? 0);
      if (failsAttempt(events[0]?.id ?? '', deliveryCount, failureRate)) {
        failed += 1;
        res.writeHead(500);
        res.end();
        return;
      }
      for (const event of events) {
        if (typeof event.data?.t === 'number') {
          latencies.push(now - event.data.t);
          sentAt.push(event.data.t);
        }
        acknowledged.add(event.id);
        if (recordIds) {
          ids.push(event.id);
          arrivedAt.push(now);
        }
      }
      const path = req.url ?? '/';
      byPath[path] = (byPath[path] ?? 0) + events.length;
      delivered += 1;
      lastAt = now;
      res.writeHead(200);
      res.end();
    };
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies SinkMessage);
  });
  process.on('message', (request: SinkRequest) => {
    if (request.type === 'configure') {
      failureRate = request.failureRate;
      delayMs = request.delayMs ?? 0;
      recordIds = request.recordIds ?? false;
      acknowledged.clear();
    }
    if (request.type === 'release') {
      const at = Date.now();
      const answers = [...held.entries()];
      held.clear();
      for (const [timer, send] of answers) {
        clearTimeout(timer);
        send();
      }
      process.send?.({ type: 'released', at, answers: answers.length } satisfies SinkMessage);
    }
    if (request.type === 'take') {
      process.send?.({
        type: 'taken',
        delivered,
        failed,
        latencies,
        sentAt,
        byPath,
        distinctDelivered: acknowledged.size,
        lastAt,
        requests,
        requestBytes: bytes,
        ids,
        arrivedAt,
      } satisfies SinkMessage);
      ids = [];
      arrivedAt = [];
      requests = 0;
      bytes = 0;
      delivered = 0;
      failed = 0;
      latencies = [];
      sentAt = [];
      byPath = {};
    }
    if (request.type === 'stop') server.close(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}

main();
