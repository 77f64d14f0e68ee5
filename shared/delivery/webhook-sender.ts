/**
 * The HTTP side of a delivery attempt: one POST, a 30 s limit, no redirects followed, and the
 * answer mapped onto a delivery outcome.
 */
import { Agent, buildConnector, request } from 'undici';
import type { AttemptResult } from '../domain/model';
import type { Clock } from '../platform/clock';
import { blockedHost, EndpointBlockedError, guardedLookup, type Resolver } from './endpoint-guard';
import type { HandshakeAnswer, HandshakeRequest } from './rules/handshake';
import { classifyError, isSuccessStatus, outcomeForStatus, parseRetryAfter } from './rules/outcomes';

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
  /**
   * Connections at most per origin (default: no cap). The delivery engine's slots already bound
   * the requests in flight (per subscription and per worker); a cap here, below them, would queue
   * requests the engine has admitted behind hanging ones to the same host, where no slot rule
   * sees them (a healthy subscription would look stalled).
   */
  connectionsPerOrigin?: number;
  /** Bytes of the answer body read before the connection is dropped. */
  maxResponseBytes?: number;
  /**
   * Refuse to connect to loopback, private and other non-public addresses, checked on every new
   * connection (IP literals, and each address a name resolves to): the attempt ends `Forbidden`
   * with an `EndpointBlocked` error and nothing is sent.
   */
  blockPrivateEndpoints?: boolean;
  /** How names are resolved when connecting (tests); the system resolver by default. */
  resolve?: Resolver;
}

export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(private readonly options: UndiciSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const blockPrivate = options.blockPrivateEndpoints ?? false;
    const lookup =
      blockPrivate || options.resolve !== undefined
        ? guardedLookup({ blockPrivate, resolve: options.resolve })
        : undefined;
    const connector = buildConnector({
      timeout: this.timeoutMs,
      ...(lookup === undefined ? {} : { lookup }),
    });
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? null,
      keepAliveTimeout: 10_000,
      // An IP literal is connected to without a lookup, so it is checked here.
      connect: blockPrivate
        ? (connectOptions, callback) => {
            const blocked = blockedHost(connectOptions.hostname);
            if (blocked === undefined) connector(connectOptions, callback);
            else callback(blocked, null);
          }
        : connector,
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
      const { outcome, errorCode } = isEndpointBlocked(error)
        ? { outcome: 'Forbidden' as const, errorCode: 'EndpointBlocked' }
        : signal.aborted
          ? { outcome: 'TimedOut' as const }
          : classifyError(error);
      return {
        delivered: false,
        outcome,
        ...(errorCode === undefined ? {} : { errorCode }),
        durationMs: this.options.clock.now() - started,
        error: describeError(error),
      };
    }
  }

  /**
   * One handshake request (the endpoint validation): its answer's status, headers and body (at
   * most `maxResponseBytes` of it), or why there is none. Same connection rules and time limit as
   * deliveries.
   */
  async exchange(handshake: HandshakeRequest): Promise<HandshakeAnswer | { error: string }> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await request(handshake.url, {
        method: handshake.method,
        headers: handshake.headers,
        ...(handshake.body === undefined ? {} : { body: handshake.body }),
        dispatcher: this.agent,
        signal,
      });
      const body = await readText(response.body, this.options.maxResponseBytes ?? 64 * 1024);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
      }
      return { status: response.statusCode, headers, body };
    } catch (error) {
      return { error: signal.aborted ? `no answer within ${this.timeoutMs / 1000} s` : describeError(error) };
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

/** The body as text, up to `maxBytes` (the rest is not read). */
async function readText(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    read += chunk.length;
    if (read > maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** Whether the connection was refused by the private-endpoint guard (possibly as another error's cause). */
function isEndpointBlocked(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    if (current instanceof EndpointBlockedError) return true;
    current = current.cause;
  }
  return false;
}

function describeError(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const message = err.message ?? String(error);
  return code === undefined ? message : `${code}: ${message}`;
}
