/**
 * Errors that become HTTP answers, in the original service's error body shape:
 * `{"error":{"code":"...","message":"...","details":[{"code":"...","message":"..."}]}}`.
 */

export interface ErrorDetail {
  code: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Seconds the caller should wait before trying again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

export const badRequest = (message: string, detailCode = 'InputJsonInvalid'): ApiError =>
  new ApiError(400, 'BadRequest', message, [{ code: detailCode, message }]);

export const notFound = (message: string): ApiError => new ApiError(404, 'NotFound', message);

export const unauthorized = (message: string): ApiError => new ApiError(401, 'Unauthorized', message);

export const payloadTooLarge = (message: string, detailCode = 'PayloadTooLarge'): ApiError =>
  new ApiError(413, 'PayloadTooLarge', message, [{ code: detailCode, message }]);

export const forbidden = (message: string): ApiError => new ApiError(403, 'Forbidden', message);

export const conflict = (message: string): ApiError => new ApiError(409, 'Conflict', message);

/** The stack cannot do this (e.g. it lacks a key); retrying will not help until it is changed. */
export const serviceUnavailable = (message: string): ApiError =>
  new ApiError(503, 'ServiceUnavailable', message);

/**
 * The stack is behind and refuses new work for a while: 429 with `Retry-After`. Nothing of the
 * request was accepted; sending it again after the wait is safe.
 */
export const tooManyRequests = (message: string, detailCode: string, retryAfterSeconds: number): ApiError =>
  new ApiError(429, 'TooManyRequests', message, [{ code: detailCode, message }], retryAfterSeconds);

/** How long a caller refused because a dependency failed is asked to wait (`Retry-After`). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** A dependency (queue, table, bucket) is down, unreachable or throttling: 503 with `Retry-After`. */
export const dependencyUnavailable = (message: string): ApiError =>
  new ApiError(
    503,
    'ServiceUnavailable',
    message,
    [{ code: 'DependencyUnavailable', message }],
    DEPENDENCY_RETRY_AFTER_SECONDS,
  );

/** Connection-level failures: nothing answered (refused, reset, unreachable, timed out). */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Error names AWS services give when they throttle or are briefly unable to serve. */
const UNAVAILABLE_ERROR_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'InternalFailure',
  'InternalServerError',
]);

/** `AWS SDK error wrapper for <name>: <syscall> <CODE> ...`, as the SDK words a foreign error. */
const SDK_WRAPPER = /^AWS SDK error wrapper for (\w+)(?::\s*(?:\w+\s+)?(E[A-Z_]+|UND_ERR_[A-Z_]+))?/;

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  errors?: unknown;
  cause?: unknown;
  $fault?: unknown;
  $retryable?: { throttling?: unknown };
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * Whether an error means a dependency (an AWS service, or its local emulator) is down,
 * unreachable or throttling, as opposed to a bug or a refusal of the request: the connection
 * failed or timed out, the service answered 5xx, or it throttled. The AWS SDK has already retried
 * such errors by the time they get here.
 */
export function isDependencyFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const shape = error as ErrorShape;
  if (typeof shape.code === 'string' && NETWORK_ERROR_CODES.has(shape.code)) return true;
  if (typeof shape.name === 'string' && UNAVAILABLE_ERROR_NAMES.has(shape.name)) return true;
  if (shape.$retryable?.throttling === true) return true;
  const status = shape.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (shape.$fault === 'server' && status === undefined) return true;
  // The SDK wraps an error that is not an `Error` of its own realm (one from `node:net` seen in a
  // test's VM context) as text only: "AWS SDK error wrapper for TimeoutError: connect ECONNRESET".
  if (typeof (error as { message?: unknown }).message === 'string') {
    const wrapped = SDK_WRAPPER.exec((error as { message: string }).message);
    if (wrapped !== null) {
      const [, name = '', code = ''] = wrapped;
      if (UNAVAILABLE_ERROR_NAMES.has(name) || NETWORK_ERROR_CODES.has(code)) return true;
    }
  }
  // Node reports a connection to a name with several addresses as an AggregateError.
  if (Array.isArray(shape.errors) && shape.errors.some((inner) => isDependencyFailure(inner, depth + 1)))
    return true;
  return isDependencyFailure(shape.cause, depth + 1);
}
