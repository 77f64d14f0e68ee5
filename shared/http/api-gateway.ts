/**
 * Helpers for API Gateway HTTP API (payload format 2.0) events and results.
 */
import type {
  APIGatewayEventRequestContextV2,
  APIGatewayProxyEventV2WithRequestContext,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import { jsonDepth } from '../platform/json-text';
import { type ApiError, badRequest, payloadTooLarge } from './errors';

/**
 * A payload format 2.0 event. `authorizer.iam` is there when the gateway's IAM authorizer let the
 * request in (on AWS only; the local gateway sets no authorizer).
 */
export type HttpEvent = APIGatewayProxyEventV2WithRequestContext<
  APIGatewayEventRequestContextV2 & {
    authorizer?: { readonly iam?: { readonly userArn?: string } };
  }
>;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export const jsonResult = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

export const emptyResult = (statusCode: number): HttpResult => ({ statusCode, body: '' });

export const errorResult = (error: ApiError): HttpResult =>
  jsonResult(
    error.statusCode,
    error.toBody(),
    error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) },
  );

/** The raw request body as a Buffer (API Gateway may base64-encode it). */
export function rawBody(event: HttpEvent): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** Parses a JSON body, refusing one larger than `maxBytes` with a 413 that names the limit. */
export const parseJsonBody = (event: HttpEvent, maxBytes: number): unknown =>
  parseJsonBytes(rawBody(event), maxBytes);

/**
 * How deeply a request's JSON may nest. Serializing is recursive, so a document nested thousands
 * of levels deep would exhaust the stack later on; it is refused up front instead.
 */
export const MAX_JSON_DEPTH = 100;

export function parseJsonBytes(bytes: Buffer, maxBytes: number): unknown {
  return readJson(bytes, maxBytes).value;
}

/**
 * Decodes and parses a JSON body, keeping its text (the parts whose exact text matters, such as
 * published events, are taken from it). Refuses, naming the limit: more than `maxBytes`, an empty
 * body, invalid JSON, nesting deeper than {@link MAX_JSON_DEPTH}.
 */
export function readJson(bytes: Buffer, maxBytes: number): { text: string; value: unknown } {
  if (bytes.length > maxBytes) {
    throw payloadTooLarge(`The request body is ${bytes.length} bytes; the limit is ${maxBytes} bytes.`);
  }
  if (bytes.length === 0) throw badRequest('The request body is empty; a JSON document is required.');
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    throw badRequest(
      `The request body nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} levels of arrays and objects are allowed.`,
    );
  }
  return { text, value };
}

/** Case-insensitive header lookup (API Gateway lower-cases names, other callers may not). */
export function header(event: HttpEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const direct = headers[name];
  if (direct !== undefined) return direct;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower) return value;
  }
  return undefined;
}

/** The request's HTTP method (`POST`), as both the HTTP API and a function URL give it. */
export const requestMethod = (event: HttpEvent): string => event.requestContext?.http?.method ?? '';

export function pathParam(event: HttpEvent, name: string): string {
  const value = event.pathParameters?.[name];
  if (value === undefined || value === '') throw badRequest(`The path parameter '${name}' is missing.`);
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`The path parameter '${name}' is not validly percent-encoded.`);
  }
}

/**
 * The API's public base URL as URLs handed out are built on (no trailing `/`): the configured one
 * (`ENV.publicUrl`), never anything from a request. A request's `Host` header and
 * forwarding headers are the client's to choose, so a URL built from them would send receivers
 * wherever the caller likes.
 */
export const publicBaseUrl = (configured: string): string => configured.replace(/\/+$/, '');
