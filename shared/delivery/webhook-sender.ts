/**
 * The HTTP side of a delivery attempt: one POST, a 30 s limit, no redirects followed, and the
 * answer mapped onto a delivery outcome.
 */
import { Agent, request } from 'undici';
import type { AttemptResult } from '../domain/model';
import type { Clock } from '../platform/clock';
import { isSuccessStatus, outcomeForError, outcomeForStatus, parseRetryAfter } from './rules/outcomes';

/** How long the sender waits for an answer before the attempt counts as `TimedOut`. */
export const DELIVERY_TIMEOUT_MS = 30_000;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptResult>;
}

export interface UndiciSenderOptions {
  clock: Clock;
  timeoutMs?: number;
  /** Connections kept per origin. */
  connectionsPerOrigin?: number;
  /** Bytes of the answer body read before the connection is dropped. */
  maxResponseBytes?: number;
}

export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(private readonly options: UndiciSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 10_000,
      connect: { timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  async send(webhook: WebhookRequest): Promise<AttemptResult> {
    const started = this.options.clock.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await request(webhook.url, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
        dispatcher: this.agent,
        signal,
      });
      await drain(response.body, this.options.maxResponseBytes ?? 64 * 1024);
      const durationMs = this.options.clock.now() - started;
      if (isSuccessStatus(response.statusCode)) {
        return { delivered: true, httpStatus: response.statusCode, durationMs };
      }
      const retryAfter = response.headers['retry-after'];
      const retryAfterSeconds = parseRetryAfter(
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        this.options.clock.now(),
      );
      return {
        delivered: false,
        outcome: outcomeForStatus(response.statusCode),
        httpStatus: response.statusCode,
        durationMs,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      };
    } catch (error) {
      const outcome = signal.aborted ? 'TimedOut' : outcomeForError(error);
      return {
        delivered: false,
        outcome,
        durationMs: this.options.clock.now() - started,
        error: describeError(error),
      };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function drain(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read > maxBytes) {
      body.destroy();
      return;
    }
  }
}

function describeError(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const message = err.message ?? String(error);
  return code === undefined ? message : `${code}: ${message}`;
}
