/**
 * An AWS Signature Version 4 check written from the specification, independent of the SDK's
 * signer: what API Gateway or a Lambda function URL does with an IAM-authorised request, so a
 * test endpoint can refuse what AWS would refuse.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SignedRequest {
  method: string;
  /** The request target as received: the path and the query string. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
/** RFC 3986 encoding as SigV4 asks for it (`encodeURIComponent` leaves `!'()*` alone). */
const strict = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Why the request's signature is not valid for `credentials`, `region` and `service`, or
 * `undefined` when it is. Paths are canonical as for every service but S3: each segment encoded
 * again as received.
 */
export function sigV4Problem(
  request: SignedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string },
  scope: { region: string; service: string },
): string | undefined {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const authorization = header('authorization');
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      authorization ?? '',
    );
  if (match === null) return `no SigV4 authorization header (${authorization})`;
  const [, accessKeyId, day, region, service, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return `signed by another key (${accessKeyId})`;
  if (region !== scope.region || service !== scope.service) return `signed for ${region}/${service}`;
  const amzDate = header('x-amz-date') ?? '';
  if (!amzDate.startsWith(day as string)) return 'x-amz-date is not of the credential scope';
  const names = (signedHeaders as string).split(';');
  if (!names.includes('host')) return 'the host header is not signed';
  const payloadHash = sha256Hex(request.body);
  const claimed = header('x-amz-content-sha256');
  if (claimed !== undefined && claimed !== payloadHash) return 'x-amz-content-sha256 is not the body’s';
  const [path = '/', query = ''] = request.target.split('?', 2) as [string, string?];
  const canonicalUri = path
    .split('/')
    .map((segment) => strict(segment))
    .join('/');
  const canonicalQuery = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const [name = '', value = ''] = pair
        .split('=', 2)
        .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
      return [strict(name), strict(value)] as const;
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = names
    .map((name) => `${name}:${(header(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    `${day}/${region}/${service}/aws4_request`,
    sha256Hex(canonicalRequest),
  ].join('\n');
  const key = hmac(
    hmac(
      hmac(hmac(`AWS4${credentials.secretAccessKey}`, day as string), region as string),
      service as string,
    ),
    'aws4_request',
  );
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return expected === signature ? undefined : 'the signature does not match';
}
