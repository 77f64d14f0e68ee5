/**
 * What the management routes read from a request (checked names from the path, a body that may be
 * absent) and the answer whose body is JSON text already.
 */
import { type HttpEvent, type HttpResult, parseJsonBody, pathParam } from '../http/api-gateway';
import { validateName } from './request-body';

/** Management request bodies are small; anything larger is a mistake. */
export const MAX_BODY_BYTES = 64 * 1024;

export const topicParam = (event: HttpEvent) => validateName('topic', pathParam(event, 'topic'));
export const subscriptionParam = (event: HttpEvent) =>
  validateName('subscription', pathParam(event, 'subscription'));

/** A body that may be absent (`{}` then). */
export const optionalBody = (event: HttpEvent) =>
  event.body === undefined || event.body === null || event.body === ''
    ? {}
    : parseJsonBody(event, MAX_BODY_BYTES);

/** A JSON answer whose body is already JSON text. */
export const textResult = (statusCode: number, json: string): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: json,
});
