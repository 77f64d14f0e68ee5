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

export const conflict = (message: string): ApiError => new ApiError(409, 'Conflict', message);

/** A dependency (queue, table) is failing; the caller may retry. */
export const serviceUnavailable = (message: string): ApiError =>
  new ApiError(503, 'ServiceUnavailable', message);
