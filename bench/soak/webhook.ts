/**
 * The soak's webhook: one loopback server whose path names the subscription, answering as that
 * subscription's endpoint behaves (`mix.ts`): at once, after 2 s, 10% 500s, 503 while "dead",
 * 410 always. Every request is told to the ledger (each event in it attempted; delivered when
 * answered 2xx); signed requests are checked against the signing secrets in force, and the
 * requests per second of the rate-limited subscription are counted.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { SoakLedger } from './ledger';
import { type EndpointBehaviour, numberOf, SOAK_SUBSCRIPTIONS } from './mix';

export interface WebhookCounts {
  requests: number;
  /** By status answered. */
  byStatus: Record<string, number>;
  /** Signed requests whose signature no secret in force verified. */
  badSignatures: number;
  signedChecked: number;
  /** The rate-limited subscription's requests in its busiest second. */
  limitedPeakPerSecond: number;
  /** Bodies that were not a JSON array of events. */
  unreadable: number;
}

export class SoakWebhook {
  private server: Server | undefined;
  url = '';
  /** While true, the dead-for-a-while endpoint answers 503. */
  dead = false;
  /** Secrets the signed subscription may sign with (old and new during a rotation). */
  secrets: string[] = [];
  readonly counts: WebhookCounts = {
    requests: 0,
    byStatus: {},
    badSignatures: 0,
    signedChecked: 0,
    limitedPeakPerSecond: 0,
    unreadable: 0,
  };
  private readonly limitedSeconds = new Map<number, number>();

  constructor(
    private readonly ledger: SoakLedger,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  async start(): Promise<this> {
    const server = createServer((request, response) => this.handle(request, response));
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const name = new URL(request.url ?? '/', 'http://soak').pathname.slice(1);
      const subscription = SOAK_SUBSCRIPTIONS.find((candidate) => candidate.name === name);
      const status = this.statusFor(subscription?.behaviour);
      if (name === 'signed') this.checkSignature(body, request.headers);
      if (name === 'limited') {
        const second = Math.floor(this.now() / 1000);
        const count = (this.limitedSeconds.get(second) ?? 0) + 1;
        this.limitedSeconds.set(second, count);
        this.counts.limitedPeakPerSecond = Math.max(this.counts.limitedPeakPerSecond, count);
        this.limitedSeconds.delete(second - 5);
      }
      const answer = () => {
        this.counts.requests += 1;
        this.counts.byStatus[status] = (this.counts.byStatus[status] ?? 0) + 1;
        // The ledger is told when the answer is written: a 2xx then counts as delivered.
        this.record(body, status >= 200 && status < 300);
        response.writeHead(status).end();
      };
      if (subscription?.behaviour === 'slow') setTimeout(answer, 2000);
      else answer();
    });
  }

  private statusFor(behaviour: EndpointBehaviour | undefined): number {
    switch (behaviour) {
      case undefined:
        return 404;
      case 'flaky':
        return this.random() < 0.1 ? 500 : 200;
      case 'dead-for-a-while':
        return this.dead ? 503 : 200;
      case 'gone':
        return 410;
      default:
        return 200;
    }
  }

  private record(body: string, ok: boolean): void {
    let events: unknown;
    try {
      events = JSON.parse(body);
    } catch {
      this.counts.unreadable += 1;
      return;
    }
    if (!Array.isArray(events)) {
      this.counts.unreadable += 1;
      return;
    }
    const at = this.now();
    for (const event of events) {
      this.ledger.attempted(numberOf(String((event as { id?: unknown }).id)), ok, at);
    }
  }

  private checkSignature(body: string, headers: IncomingMessage['headers']): void {
    this.counts.signedChecked += 1;
    const plain = Object.fromEntries(
      Object.entries(headers).map(([key, value]) => [
        key,
        Array.isArray(value) ? value.join(',') : (value ?? ''),
      ]),
    );
    const verified = this.secrets.some((secret) => {
      try {
        new Webhook(secret).verify(body, plain);
        return true;
      } catch {
        return false;
      }
    });
    if (!verified) this.counts.badSignatures += 1;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
