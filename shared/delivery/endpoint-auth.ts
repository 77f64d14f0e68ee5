/**
 * Credentials on delivery requests (`destination.auth`), Gridwire's own:
 *
 * - `OAuth2ClientCredentials`: an access token from the token URL by the client credentials
 *   grant (RFC 6749 4.4, the client authenticated with HTTP Basic as 2.3.1 says), sent as
 *   `Authorization: Bearer`. Tokens are kept per subscription version until shortly before they
 *   expire, one request at a time fetching them; an endpoint that answers 401 gets one more
 *   request with a fresh token (`refresh`).
 * - `AwsSigV4`: the request signed with SigV4 by the delivery function's own credentials, for
 *   endpoints behind IAM (API Gateway `execute-api`, Lambda function URLs `lambda`); the region is
 *   the subscription's, else read from the endpoint's host name, else the stack's. Only a host of
 *   the service's own endpoints is signed for (`rules/sigv4-hosts.ts`), checked again here before
 *   every signature, so a subscription stored before that rule can't have the role's signature
 *   sent to another AWS API.
 *
 * Either way a custom header that would pass for those credentials (`Authorization`, and with
 * SigV4 `X-Amz-*`) is dropped before they are added, whatever the subscription stored.
 *
 * Token requests go through the sender's `exchange`, under the same connection rules as
 * deliveries (private endpoints blocked where they are).
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { type DeliveryAuth, type Subscription, webhookAuthOf } from '../domain/model';
import type { Clock } from '../platform/clock';
import type { HandshakeAnswer, HandshakeRequest } from './rules/handshake';
import { forgesAuthHeader } from './rules/headers';
import { queryValuesOf, redactSecrets, redactTokenFields, requestCredentialsOf } from './rules/redact';
import { sigV4HostOf, sigV4HostProblem } from './rules/sigv4-hosts';

/** A request to the endpoint: a delivery (a POST) or a validation handshake. */
export interface OutgoingHttpRequest {
  readonly method?: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A token is fetched again this long before it expires (or a tenth of its life, if shorter). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** How long a token whose answer names no `expires_in` is kept. */
export const TOKEN_DEFAULT_LIFETIME_MS = 5 * 60_000;
/** Tokens (subscription versions) one worker keeps at most. */
const MAX_TOKENS = 1000;
/** The answer's start quoted in an error. */
const QUOTED_ANSWER_CHARS = 200;

/** AWS credentials as the SDK's clients resolve them (a provider function). */
export type AwsCredentialsProvider = () => Promise<{
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}>;

/**
 * Opens what a subscription's OAuth 2.0 client keeps sealed, when a token is to be fetched: its
 * secret, and its token URL with the query string sealed beside it (the whole URL when none is).
 */
export interface ClientOpener {
  secret(): Promise<string>;
  tokenUrl(): Promise<string>;
}

/** Why a request could not be given its credentials; it is then not sent. */
export class EndpointAuthError extends Error {}

export interface TokenExchange {
  exchange(request: HandshakeRequest): Promise<HandshakeAnswer | { error: string }>;
}

export interface EndpointAuthDeps {
  clock: Clock;
  /** Where token requests go out (the webhook sender); without it OAuth 2.0 auth fails. */
  exchange?: TokenExchange;
  /** The delivery function's own AWS credentials; without them SigV4 auth fails. */
  awsCredentials?: AwsCredentialsProvider;
  /** The stack's region, for SigV4 when neither the subscription nor the host name names one. */
  awsRegion?: () => Promise<string>;
  /**
   * SigV4 may sign for loopback hosts too: the local stack, whose emulator credentials AWS never
   * accepts (`allowHttpEndpoints`, never set on AWS). Default false.
   */
  signLoopback?: boolean;
}

interface KeptToken {
  token: string;
  /** Epoch ms from which it is fetched again. */
  refreshAt: number;
}

/** When a fetched token is fetched again: before it expires by the margin, or a tenth of its life. */
export function refreshAtOf(fetchedAt: number, expiresInSeconds: number | undefined): number {
  const lifetime = expiresInSeconds === undefined ? TOKEN_DEFAULT_LIFETIME_MS : expiresInSeconds * 1000;
  return fetchedAt + lifetime - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetime / 10);
}

/** The region in an API Gateway or Lambda function URL host name (`<id>.execute-api.<region>.amazonaws.com`). */
export function regionOfHost(host: string): string | undefined {
  return sigV4HostOf(host)?.region;
}

/**
 * The client credentials grant's request (RFC 6749 4.4.2), the client in HTTP Basic (2.3.1), to
 * `tokenUrl`: the whole token URL, its sealed query string opened (default: as stored).
 */
export function tokenRequestOf(
  auth: Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }>,
  clientSecret: string,
  tokenUrl: string = auth.tokenUrl,
): HandshakeRequest {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (auth.scope !== undefined && auth.scope !== '') form.set('scope', auth.scope);
  const basic = Buffer.from(
    `${encodeURIComponent(auth.clientId)}:${encodeURIComponent(clientSecret)}`,
    'utf8',
  ).toString('base64');
  return {
    method: 'POST',
    url: tokenUrl,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${basic}`,
    },
    body: form.toString(),
  };
}

/**
 * The token in a token endpoint's answer, or why there is none. The answer's start is quoted
 * without the values of its token fields (`rules/redact.ts`): one that refuses may carry a token
 * all the same.
 */
export function tokenOfAnswer(
  answer: HandshakeAnswer | { error: string },
): { token: string; expiresIn?: number } | { problem: string } {
  if ('error' in answer) return { problem: `the token request failed: ${answer.error}` };
  const quoted = redactTokenFields(answer.body.slice(0, QUOTED_ANSWER_CHARS));
  if (answer.status !== 200) return { problem: `the token endpoint answered ${answer.status}: ${quoted}` };
  let parsed: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    return { problem: `the token endpoint's answer is not JSON: ${quoted}` };
  }
  if (typeof parsed.access_token !== 'string' || parsed.access_token === '') {
    return { problem: "the token endpoint's answer has no access_token" };
  }
  if (typeof parsed.token_type !== 'string' || parsed.token_type.toLowerCase() !== 'bearer') {
    return { problem: `the token endpoint's token_type is ${JSON.stringify(parsed.token_type)}, not Bearer` };
  }
  const expiresIn =
    typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : undefined;
  return { token: parsed.access_token, ...(expiresIn === undefined ? {} : { expiresIn }) };
}

export class EndpointAuth {
  private readonly tokens = new Map<string, Promise<KeptToken>>();
  /** A signer per service and region: each keeps its day's signing key, derived once. */
  private readonly signers = new Map<string, SignatureV4>();

  constructor(private readonly deps: EndpointAuthDeps) {}

  /** Whether an answer 401 to the subscription's request is worth one more with fresh credentials. */
  refreshes(subscription: Subscription): boolean {
    return webhookAuthOf(subscription.destination)?.type === 'OAuth2ClientCredentials';
  }

  /**
   * The request with its credentials: `client` opens the OAuth 2.0 client's sealed secret and
   * token URL. `fresh`: a token fetched now, not the one kept. Rejects with {@link EndpointAuthError} when none can be
   * had (the token endpoint refused or is down, no AWS credentials).
   */
  async authorize<R extends OutgoingHttpRequest>(
    subscription: Subscription,
    request: R,
    client: ClientOpener,
    fresh = false,
  ): Promise<R> {
    const auth = webhookAuthOf(subscription.destination);
    if (auth === undefined) return request;
    const own = { ...request, headers: withoutForgedHeaders(auth, request.headers) };
    if (auth.type === 'AwsSigV4') return this.signed(auth, own);
    const token = await this.token(subscription, auth, client, fresh);
    return { ...own, headers: { ...own.headers, authorization: `Bearer ${token}` } };
  }

  private async token(
    subscription: Subscription,
    auth: Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }>,
    client: ClientOpener,
    fresh: boolean,
  ): Promise<string> {
    const key = `${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}#${subscription.version}`;
    const now = this.deps.clock.now();
    const kept = this.tokens.get(key);
    if (kept !== undefined && !fresh) {
      const token = await kept.catch(() => undefined);
      if (token !== undefined && token.refreshAt > this.deps.clock.now()) return token.token;
      // A fetch that failed, or a token too old: fetch again (unless another request already is).
      if (this.tokens.get(key) !== kept) return this.token(subscription, auth, client, false);
    }
    const fetching = this.fetchToken(auth, client, now);
    if (this.tokens.size >= MAX_TOKENS) this.tokens.clear();
    this.tokens.set(key, fetching);
    fetching.catch(() => {
      if (this.tokens.get(key) === fetching) this.tokens.delete(key);
    });
    return (await fetching).token;
  }

  private async fetchToken(
    auth: Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }>,
    client: ClientOpener,
    now: number,
  ): Promise<KeptToken> {
    const { exchange } = this.deps;
    if (exchange === undefined) throw new EndpointAuthError('this worker cannot request OAuth 2.0 tokens');
    const [secret, tokenUrl] = await Promise.all([client.secret(), client.tokenUrl()]);
    const request = tokenRequestOf(auth, secret, tokenUrl);
    const answer = await exchange.exchange(request);
    const got = tokenOfAnswer(answer);
    if ('problem' in got) {
      // The answer quoted may echo the client's credentials: the error is stored (the message
      // log, a handshake's error), so they are left out here, where they are known.
      const known = [secret, ...requestCredentialsOf(request.headers), ...queryValuesOf(tokenUrl)];
      throw new EndpointAuthError(redactSecrets(got.problem, known));
    }
    return { token: got.token, refreshAt: refreshAtOf(now, got.expiresIn) };
  }

  private async signed<R extends OutgoingHttpRequest>(
    auth: Extract<DeliveryAuth, { type: 'AwsSigV4' }>,
    request: R,
  ): Promise<R> {
    const { awsCredentials, awsRegion, clock, signLoopback = false } = this.deps;
    // Before anything else: a host the rule forbids is never signed for, whatever was stored.
    const forbidden = sigV4HostProblem(auth.service, request.url, { allowLoopback: signLoopback });
    if (forbidden !== undefined) throw new EndpointAuthError(`not signed: ${forbidden}`);
    if (awsCredentials === undefined)
      throw new EndpointAuthError('this worker has no AWS credentials to sign with');
    const url = new URL(request.url);
    const region = auth.region ?? regionOfHost(url.hostname) ?? (await awsRegion?.());
    if (region === undefined) throw new EndpointAuthError('no region to sign for: set auth.region');
    const key = `${auth.service} ${region}`;
    let signer = this.signers.get(key);
    if (signer === undefined) {
      signer = new SignatureV4({
        service: auth.service,
        region,
        credentials: awsCredentials,
        sha256: Sha256,
      });
      this.signers.set(key, signer);
    }
    const signed = await signer.sign(
      {
        method: request.method ?? 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: url.pathname,
        query: queryOf(url),
        headers: {
          host: url.host,
          ...(request.headers['content-type'] === undefined
            ? {}
            : { 'content-type': request.headers['content-type'] }),
        },
        body: request.body ?? '',
      },
      { signingDate: new Date(clock.now()) },
    );
    const { host: _host, ...added } = signed.headers;
    return { ...request, headers: { ...request.headers, ...added } };
  }
}

/**
 * The request's headers without a custom one that {@link forgesAuthHeader}: a subscription stored
 * before those were refused still sends only the credentials its auth makes.
 */
function withoutForgedHeaders(auth: DeliveryAuth, headers: Record<string, string>): Record<string, string> {
  const names = Object.keys(headers);
  if (!names.some((name) => forgesAuthHeader(auth.type, name))) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !forgesAuthHeader(auth.type, name)));
}

/** A URL's query as the signer takes it: a name given more than once keeps every value. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const present = query[name];
    query[name] = present === undefined ? value : [...(Array.isArray(present) ? present : [present]), value];
  }
  return query;
}
