/**
 * Who may talk to the emulators: only holders of the stack's own credentials. fauxqs and dynalite
 * check no signature (any request with the right shape is served), and a loopback port is open to
 * every user of the machine, so the emulators listen on Unix sockets in a directory only this
 * user can open, and what listens on loopback is {@link startEmulatorGate}: a proxy that checks
 * each request's SigV4 signature against the stack's secret before passing it on.
 *
 * The credentials are random per data directory (the `credentials` file, this user's only, in
 * the AWS CLI's shared-credentials format), given to the functions, the CLI and `endpoints.json`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LocalCredentials, localSqsAuthorization } from '../shared/platform/local-credentials';

/** The data directory's credentials file, in the AWS CLI's shared-credentials format. */
export const CREDENTIALS_FILE = 'credentials';

/** Fresh credentials for a data directory (or an in-memory stack). */
export const newLocalCredentials = (): LocalCredentials => ({
  accessKeyId: `GW${randomBytes(12).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64url'),
});

/**
 * The profile the credentials file holds them as (not `default`, which a user's own AWS config
 * may give a role or SSO settings that would win over plain keys).
 */
export const CREDENTIALS_PROFILE = 'gridwire';

/** `credentials` as the AWS CLI reads them (`AWS_SHARED_CREDENTIALS_FILE`, `--profile gridwire`). */
export const formatCredentialsFile = (credentials: LocalCredentials): string =>
  `[${CREDENTIALS_PROFILE}]\naws_access_key_id = ${credentials.accessKeyId}\naws_secret_access_key = ${credentials.secretAccessKey}\n`;

/** The credentials in a shared-credentials file (its first keys); undefined if it has none. */
export function parseCredentialsFile(text: string): LocalCredentials | undefined {
  const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(\\S+)\\s*$`, 'm').exec(text)?.[1];
  const accessKeyId = value('aws_access_key_id');
  const secretAccessKey = value('aws_secret_access_key');
  return accessKeyId === undefined || secretAccessKey === undefined
    ? undefined
    : { accessKeyId, secretAccessKey };
}

/** Why a request is refused: its error code, as the service would name it. */
export type Refusal = 'missing' | 'unknown-key' | 'bad-signature';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants it (`encodeURIComponent` leaves `!'()*` alone). */
const uriEscape = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The canonical path: as sent for S3; for the other services each segment encoded once more,
 * after `.` and `..` segments are resolved and empty ones dropped (as the SDKs sign it).
 */
function canonicalPath(path: string, service: string): string {
  if (service === 's3') return path;
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `${path.startsWith('/') ? '/' : ''}${segments.map(uriEscape).join('/')}${trailing}`;
}

function canonicalQuery(query: string): string {
  const pairs = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const at = pair.indexOf('=');
      const [key, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
      const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, '%20'));
      return [uriEscape(decode(key)), uriEscape(decode(value))] as const;
    });
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([key, value]) => `${key}=${value}`).join('&');
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*Signature=([0-9a-f]{64})$/;

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Whether a request (its method, URL as sent, headers and whole body) carries a valid SigV4
 * signature by `credentials` for one of `services`, or the stack's own SQS client's fixed header
 * (`localSqsAuthorization`); otherwise why not. The signature is computed again from what
 * arrived and compared in constant time.
 */
export function checkSignature(
  incoming: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  credentials: LocalCredentials,
  services: readonly string[],
  sqsAuthorization: string = localSqsAuthorization(credentials),
): Refusal | undefined {
  const authorization = incoming.headers.authorization;
  if (authorization === undefined) return 'missing';
  if (sameText(authorization, sqsAuthorization)) return undefined;
  const parsed = AUTHORIZATION.exec(authorization);
  if (parsed === null) return 'missing';
  const [, accessKeyId, day, region, service, signedHeaders, signature] = parsed as unknown as string[];
  if (!sameText(accessKeyId as string, credentials.accessKeyId)) return 'unknown-key';
  // Signed for another service (an endpoint's SigV4 auth on a local delivery, also signed with
  // these credentials): never taken here, whoever replays it.
  if (!services.includes(service as string)) return 'bad-signature';
  const amzDate = incoming.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(day as string)) return 'bad-signature';
  const names = (signedHeaders as string).split(';');
  const headerLines: string[] = [];
  for (const name of names) {
    const value = incoming.headers[name];
    if (value === undefined) return 'bad-signature';
    const text = Array.isArray(value) ? value.join(',') : value;
    headerLines.push(`${name}:${text.trim().replace(/\s+/g, ' ')}\n`);
  }
  const declared = incoming.headers['x-amz-content-sha256'];
  const bodyHash = sha256(incoming.body);
  if (typeof declared === 'string' && /^[0-9a-f]{64}$/.test(declared) && declared !== bodyHash)
    return 'bad-signature';
  const payloadHash = typeof declared === 'string' ? declared : bodyHash;
  const at = incoming.url.indexOf('?');
  const path = at === -1 ? incoming.url : incoming.url.slice(0, at);
  const query = at === -1 ? '' : incoming.url.slice(at + 1);
  const canonical = [
    incoming.method,
    canonicalPath(path, service as string),
    canonicalQuery(query),
    headerLines.join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonical)}`;
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day as string);
  for (const part of [region as string, service as string, 'aws4_request']) key = hmac(key, part);
  const expected = hmac(key, stringToSign).toString('hex');
  return sameText(expected, signature as string) ? undefined : 'bad-signature';
}

const REFUSAL_MESSAGES: Record<Refusal, string> = {
  missing: 'Request is missing Authentication Token',
  'unknown-key': 'The security token included in the request is invalid.',
  'bad-signature':
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
};

/**
 * The refusal in the shape the client expects: the JSON protocols' (SQS and DynamoDB, which
 * name the operation in `X-Amz-Target`), SQS's query protocol's XML, or S3's XML.
 */
function refuse(res: ServerResponse, headers: IncomingHttpHeaders, refusal: Refusal): void {
  const message = REFUSAL_MESSAGES[refusal];
  const target = headers['x-amz-target'];
  if (typeof target === 'string') {
    const dynamo = target.startsWith('DynamoDB');
    const type = {
      missing: 'MissingAuthenticationTokenException',
      'unknown-key': dynamo ? 'UnrecognizedClientException' : 'InvalidClientTokenId',
      'bad-signature': dynamo ? 'InvalidSignatureException' : 'SignatureDoesNotMatch',
    }[refusal];
    res.writeHead(dynamo ? 400 : 403, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }));
    return;
  }
  const code = {
    missing: 'AccessDenied',
    'unknown-key': 'InvalidAccessKeyId',
    'bad-signature': 'SignatureDoesNotMatch',
  }[refusal];
  const form = String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  const error = `<Code>${code}</Code><Message>${message}</Message>`;
  res.writeHead(403, { 'content-type': 'text/xml' });
  res.end(
    form
      ? `<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type>${error}</Error></ErrorResponse>`
      : `<?xml version="1.0" encoding="UTF-8"?><Error>${error}</Error>`,
  );
}

/** A running gate: the loopback port it listens on, and how to close it. */
export interface EmulatorGate {
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on `host`:`port` and passes each request whose signature `checkSignature` accepts to
 * the emulator listening on the Unix socket `socketPath`, headers (`Host` too, which fauxqs
 * builds queue URLs from) and body unchanged; refuses the others as the service would.
 */
export async function startEmulatorGate(options: {
  host: string;
  port: number;
  socketPath: string;
  credentials: LocalCredentials;
  /** The services (signing names) the emulator behind serves. */
  services: readonly string[];
}): Promise<EmulatorGate> {
  // Idle connections to the emulator are dropped before it would close them (dynalite after
  // Node's default 5 s), so a request is never sent on one it is closing.
  const agent = new Agent({ keepAlive: true, timeout: 4_000 });
  const sqsAuthorization = localSqsAuthorization(options.credentials);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const refusal = checkSignature(
        { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body },
        options.credentials,
        options.services,
        sqsAuthorization,
      );
      if (refusal !== undefined) {
        refuse(res, req.headers, refusal);
        return;
      }
      const upstream = request(
        { socketPath: options.socketPath, agent, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', () => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502).end();
      });
      // A client that gives up (a long poll it abandons) frees the emulator's side too.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  });
  // As long as fauxqs's own server keeps idle connections, so pooled ones are not cut under a client.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
