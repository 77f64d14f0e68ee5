/**
 * The HTTP side of a delivery attempt: one POST, a 30 s limit, no redirects followed, and the
 * answer mapped onto a delivery outcome. Asked to, it keeps listening to a request that timed
 * out, and says whether a success came late (`rules/late-answer.ts`).
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { type AttemptResult, RESPONSE_EXCERPT_BYTES } from '../domain/attempts';
import type { Clock } from '../platform/clock';
import { proxiedConnector } from './egress-proxy';
import { blockedHost, EndpointBlockedError, guardedLookup, type Resolver } from './endpoint-guard';
import type { EndpointTlsOptions } from './rules/endpoint-tls';
import type { HandshakeAnswer, HandshakeRequest } from './rules/handshake';
import { LATE_ANSWER_WINDOW_MS } from './rules/late-answer';
import {
  classifyError,
  isSuccessStatus,
  isTlsErrorCode,
  outcomeForStatus,
  parseRetryAfter,
} from './rules/outcomes';

/** How long the sender waits for an answer before the attempt counts as `TimedOut`. */
export const DELIVERY_TIMEOUT_MS = 30_000;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The subscription's own TLS settings (a client certificate, CAs); absent: none. */
  tls?: EndpointTlsOptions;
}

/** Asks the sender to keep listening to a request that times out (`rules/late-answer.ts`). */
export interface LateListen {
  /** Epoch ms (the sender's clock) until which an answer still counts. */
  readonly until: number;
  /** Ends the listening early (the worker is stopping): as if the window had closed. */
  readonly stop?: AbortSignal;
  /**
   * Called once for every request it was given with: when the listening ends, with the answer when
   * a success (200-204) came in time; at once and without an answer when the request was not
   * listened to after all (it was answered or failed within the timeout, or the sender had no
   * room for another listen).
   */
  ended(answer?: { httpStatus: number; at: number }): void;
}

export interface WebhookSender {
  /**
   * One POST. With `late`, a request that times out is still listened to until `late.until`
   * (its result then says `listeningUntil`), unless the sender has too many such requests open.
   */
  send(request: WebhookRequest, late?: LateListen): Promise<AttemptResult>;
}

/** Timed-out requests one sender keeps listening to at most (each holds a socket). */
export const MAX_LATE_LISTENS = 256;

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
  /** How long a timed-out request may still be listened to at most (default 3 minutes). */
  lateWindowMs?: number;
  /** An HTTP proxy every connection tunnels through (`egress-proxy.ts`); absent: direct. */
  proxyUrl?: string;
}

/** Connection pools kept for subscriptions' own TLS settings at most (the oldest is closed past it). */
export const MAX_TLS_AGENTS = 100;

export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  /** Timed-out requests still listened to. */
  private lateListens = 0;

  constructor(private readonly options: UndiciSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.agent = this.newAgent(undefined);
  }

  /** TLS alerts endpoints sent before closing a connection (a client certificate refused). */
  private readonly alerts = new TlsAlerts();

  /** Pools for subscriptions' own TLS settings, by their id, the most recently used last. */
  private readonly tlsAgents = new Map<string, Agent>();

  /** The pool requests with `tls` go out on: the shared one without. */
  private agentFor(tls: EndpointTlsOptions | undefined): Agent {
    if (tls === undefined) return this.agent;
    const kept = this.tlsAgents.get(tls.id);
    if (kept !== undefined) {
      this.tlsAgents.delete(tls.id);
      this.tlsAgents.set(tls.id, kept);
      return kept;
    }
    const agent = this.newAgent(tls);
    this.tlsAgents.set(tls.id, agent);
    if (this.tlsAgents.size > MAX_TLS_AGENTS) {
      const [oldestId, oldest] = this.tlsAgents.entries().next().value as [string, Agent];
      this.tlsAgents.delete(oldestId);
      // Requests under way on it finish first.
      oldest.close().catch(() => {});
    }
    return agent;
  }

  /**
   * A pool: the private-endpoint guard on every new connection, through the proxy when there is
   * one, with the subscription's client certificate and CAs when it has them (its CAs beside the
   * public ones unless it trusts only its own).
   */
  private newAgent(tls: EndpointTlsOptions | undefined): Agent {
    const { options } = this;
    const blockPrivate = options.blockPrivateEndpoints ?? false;
    const lookup =
      blockPrivate || options.resolve !== undefined
        ? guardedLookup({ blockPrivate, resolve: options.resolve })
        : undefined;
    const direct = buildConnector({
      timeout: this.timeoutMs,
      ...(lookup === undefined ? {} : { lookup }),
      ...(tls?.cert === undefined ? {} : { cert: tls.cert }),
      ...(tls?.key === undefined ? {} : { key: tls.key }),
      ...(tls?.ca === undefined ? {} : { ca: [...tls.ca] }),
    });
    const connector =
      options.proxyUrl === undefined
        ? direct
        : proxiedConnector(
            { proxyUrl: options.proxyUrl, blockPrivate, resolve: options.resolve, timeoutMs: this.timeoutMs },
            direct,
          );
    // An IP literal is connected to without a lookup, so it is checked here (through a proxy,
    // the proxy's connector checks the endpoint).
    const guarded: buildConnector.connector =
      blockPrivate && options.proxyUrl === undefined
        ? (connectOptions, callback) => {
            const blocked = blockedHost(connectOptions.hostname);
            if (blocked === undefined) connector(connectOptions, callback);
            else callback(blocked, null);
          }
        : connector;
    return new Agent({
      connections: options.connectionsPerOrigin ?? null,
      keepAliveTimeout: 10_000,
      connect: (connectOptions, callback) =>
        guarded(connectOptions, (error, socket) => {
          if (error === null) this.alerts.watch(socket);
          callback(error as null, socket as Socket);
        }),
      // A request's own signal ends it at the timeout, or when a late listen ends; these only
      // bound the longest a socket can wait.
      headersTimeout: this.timeoutMs + (options.lateWindowMs ?? LATE_ANSWER_WINDOW_MS),
      bodyTimeout: this.timeoutMs + (options.lateWindowMs ?? LATE_ANSWER_WINDOW_MS),
    });
  }

  async send(webhook: WebhookRequest, late?: LateListen): Promise<AttemptResult> {
    const { clock } = this.options;
    const started = clock.now();
    const controller = new AbortController();
    const answer = this.post(webhook, controller.signal);
    let timer: NodeJS.Timeout | undefined;
    let listening = false;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), this.timeoutMs);
    });
    try {
      const answered = await Promise.race([answer, timedOut]);
      if (answered === 'timed out') {
        listening = late !== undefined && this.listenLate(answer, controller, late);
        if (!listening) {
          controller.abort();
          answer.catch(() => {});
        }
        return {
          delivered: false,
          outcome: 'TimedOut',
          durationMs: clock.now() - started,
          error: `no answer within ${this.timeoutMs / 1000} s`,
          ...(listening && late !== undefined ? { listeningUntil: late.until } : {}),
        };
      }
      const durationMs = clock.now() - started;
      const response = answered.excerpt === '' ? {} : { response: answered.excerpt };
      if (isSuccessStatus(answered.statusCode)) {
        return { delivered: true, httpStatus: answered.statusCode, durationMs, ...response };
      }
      const retryAfter = answered.headers['retry-after'];
      const retryAfterSeconds = parseRetryAfter(
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        clock.now(),
      );
      return {
        delivered: false,
        outcome: outcomeForStatus(answered.statusCode),
        httpStatus: answered.statusCode,
        durationMs,
        ...response,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      };
    } catch (thrown) {
      const error = this.alerts.behind(thrown);
      const { outcome, errorCode } = isEndpointBlocked(error)
        ? { outcome: 'Forbidden' as const, errorCode: 'EndpointBlocked' }
        : classifyError(error);
      return {
        delivered: false,
        outcome,
        ...(errorCode === undefined ? {} : { errorCode }),
        durationMs: clock.now() - started,
        error: describeError(error) + closedHint(error, webhook.tls),
      };
    } finally {
      clearTimeout(timer);
      if (!listening) late?.ended();
    }
  }

  /** The POST and its answer's status and headers, the body read (at most `maxResponseBytes`). */
  private async post(
    webhook: WebhookRequest,
    signal: AbortSignal,
  ): Promise<{
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    excerpt: string;
  }> {
    const response = await request(webhook.url, {
      method: 'POST',
      headers: webhook.headers,
      body: webhook.body,
      dispatcher: this.agentFor(webhook.tls),
      signal,
    });
    const excerpt = await drain(response.body, this.options.maxResponseBytes ?? 64 * 1024);
    return { statusCode: response.statusCode, headers: response.headers, excerpt };
  }

  /**
   * Keeps listening to a request that timed out until `late.until`, then tells `late` whether a
   * success came. False (and nothing is called) when there is no time left or too many requests
   * are already listened to.
   */
  private listenLate(
    answer: Promise<{ statusCode: number }>,
    controller: AbortController,
    late: LateListen,
  ): boolean {
    const { clock } = this.options;
    const leftMs = late.until - clock.now();
    if (leftMs <= 0 || late.stop?.aborted === true || this.lateListens >= MAX_LATE_LISTENS) return false;
    this.lateListens += 1;
    const stop = setTimeout(() => controller.abort(), leftMs);
    const stopEarly = () => controller.abort();
    late.stop?.addEventListener('abort', stopEarly, { once: true });
    answer
      .then(
        ({ statusCode }) => {
          const at = clock.now();
          return isSuccessStatus(statusCode) && at <= late.until ? { httpStatus: statusCode, at } : undefined;
        },
        () => undefined,
      )
      .then((answered) => {
        clearTimeout(stop);
        late.stop?.removeEventListener('abort', stopEarly);
        this.lateListens -= 1;
        late.ended(answered);
      })
      // `ended` is the caller's; what it throws must not become an unhandled rejection here.
      .catch(() => {});
    return true;
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
        dispatcher: this.agentFor(handshake.tls),
        signal,
      });
      const body = await readText(response.body, this.options.maxResponseBytes ?? 64 * 1024);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
      }
      return { status: response.statusCode, headers, body };
    } catch (error) {
      return {
        error: signal.aborted
          ? `no answer within ${this.timeoutMs / 1000} s`
          : describeError(this.alerts.behind(error)),
      };
    }
  }

  async close(): Promise<void> {
    const agents = [this.agent, ...this.tlsAgents.values()];
    this.tlsAgents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

/**
 * Reads the body to its end (or drops the connection past `maxBytes`) and answers its first
 * {@link RESPONSE_EXCERPT_BYTES} as text: the excerpt the message log keeps.
 */
async function drain(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<string> {
  const head: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    if (read < RESPONSE_EXCERPT_BYTES) head.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - read));
    read += chunk.length;
    if (read > maxBytes) {
      body.destroy();
      break;
    }
  }
  return responseExcerpt(Buffer.concat(head));
}

/**
 * Bytes as text; a character cut in two at the end of an excerpt is left out rather than shown
 * as a replacement character.
 */
export function responseExcerpt(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (bytes.length < RESPONSE_EXCERPT_BYTES || !text.endsWith('\uFFFD')) return text;
  // Only an incomplete sequence at the very end is dropped; one inside the text stays as sent.
  let end = bytes.length;
  while (end > 0 && end > bytes.length - 4 && ((bytes[end - 1] as number) & 0xc0) === 0x80) end -= 1;
  if (end > 0 && ((bytes[end - 1] as number) & 0xc0) === 0xc0) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
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

/**
 * The TLS alerts endpoints sent on connections that then closed. Under TLS 1.3 a server checks the
 * client certificate after the handshake: one it refuses (or a missing one) is answered with an
 * alert and the connection closed, which the HTTP client reports only as "other side closed".
 * The alert is kept here by the connection's ports for a few seconds, so the attempt can name it.
 */
class TlsAlerts {
  private readonly byConnection = new Map<string, Error>();

  watch(socket: Socket | TLSSocket): void {
    if (!('encrypted' in socket)) return;
    const key = `${socket.localPort}/${socket.remotePort}`;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (typeof error.code === 'string' && isTlsErrorCode(error.code)) this.byConnection.set(key, error);
    });
    socket.once('close', () => {
      setTimeout(() => this.byConnection.delete(key), TLS_ALERT_KEPT_MS).unref();
    });
  }

  /** The TLS alert behind a closed connection's error, when one came; else the error itself. */
  behind(error: unknown): unknown {
    const socket = (error as { code?: unknown; socket?: { localPort?: number; remotePort?: number } }).socket;
    if ((error as { code?: unknown }).code !== 'UND_ERR_SOCKET' || socket === undefined) return error;
    const key = `${socket.localPort}/${socket.remotePort}`;
    const alert = this.byConnection.get(key);
    if (alert === undefined) return error;
    this.byConnection.delete(key);
    return alert;
  }
}

/** How long a closed connection's TLS alert is kept for its request's error to find. */
const TLS_ALERT_KEPT_MS = 5000;

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
  if (code === undefined) return message;
  if (!isTlsErrorCode(code)) return `${code}: ${message}`;
  // OpenSSL's text is one line of its own; Node's advice about its flags is no use to a subscriber.
  const reason = message.split('\n')[0]?.replace(/; if the root CA is installed locally.*$/, '');
  return `${code}: TLS: ${reason}${tlsHint(code)}`;
}

/**
 * A connection presenting a client certificate that the endpoint closed without an answer or an
 * alert: how a server that checks client certificates after a TLS 1.3 handshake (Node's, for one)
 * refuses a certificate it does not trust. Said as a possibility: the close tells no reason.
 */
function closedHint(error: unknown, tls: EndpointTlsOptions | undefined): string {
  if (tls?.cert === undefined || (error as { code?: unknown }).code !== 'UND_ERR_SOCKET') return '';
  return ' (the endpoint closed the connection without an answer: it may have refused the client certificate)';
}

/** What a subscriber can do about a TLS failure, by its code. */
function tlsHint(code: string): string {
  if (code.includes('CERTIFICATE_REQUIRED')) {
    return ' (the endpoint asks for a client certificate: give one in destination.properties.tls)';
  }
  if (
    code.startsWith('ERR_SSL_') &&
    /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|ACCESS_DENIED|DECRYPT_ERROR|UNSUPPORTED_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED)/.test(
      code,
    )
  ) {
    return ' (the endpoint refused the client certificate)';
  }
  if (code.startsWith('ERR_SSL_')) return '';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return " (the endpoint's certificate is for another host)";
  return " (the endpoint's certificate is not signed by a CA trusted for it: give its CA in destination.properties.tls.caCertificates)";
}
