/**
 * The status rules of AWS resource destinations (SQS, SNS, EventBridge, Lambda, Kinesis), as pure
 * data: each service error a send can end with, mapped onto a delivery outcome, whether it is
 * retried, and the least wait before the next attempt. The original's status table for resource
 * endpoints carried over to AWS:
 *
 * - "400 Bad Request: ... Dead letter immediately if Azure Resources endpoint" and the same for
 *   "413 Request Entity Too Large": a message too large and a request the service calls invalid
 *   end the event at once (dead-lettered or dropped); retrying sends the same request.
 * - "401 Unauthorized: Retry after 5 minutes or more for Azure Resources Endpoints", and the same
 *   for "404 Not Found": access denied and a resource that does not exist are retried, no sooner
 *   than 5 minutes, within the subscription's retry policy. On AWS a grant, a key policy or a
 *   queue made by the same deploy can take minutes to be seen; the attempt limit and the time to
 *   live still end an event whose destination never appears.
 * - Throttling and a service that is down are retried no sooner than their floor; anything else
 *   on the schedule, at least 10 s later.
 */
import type { DeliveryOutcome } from '../../domain/model';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** What one service error means for the event. */
export interface ResourceErrorRule {
  readonly outcome: DeliveryOutcome;
  /** False: the event ends at once (`NonRetriableOutcome`). */
  readonly retry: boolean;
  /** The least wait before the next attempt (retried errors only). */
  readonly floorMs: number;
}

const notRetried = (outcome: DeliveryOutcome): ResourceErrorRule => ({ outcome, retry: false, floorMs: 0 });
const retried = (outcome: DeliveryOutcome, floorMs: number): ResourceErrorRule => ({
  outcome,
  retry: true,
  floorMs,
});

/** Service errors by name (the SDK's exception name, or a batch entry's error code). */
export const RESOURCE_ERROR_RULES: Readonly<Record<string, ResourceErrorRule>> = {
  // Access (401, 403 for a resource): the destination's policy or the function's role refuses.
  // A grant just made may not be seen yet, so retried after 5 minutes or more.
  AccessDenied: retried('Unauthorized', 5 * MINUTE),
  AccessDeniedException: retried('Unauthorized', 5 * MINUTE),
  AuthorizationError: retried('Unauthorized', 5 * MINUTE),
  AuthorizationErrorException: retried('Unauthorized', 5 * MINUTE),
  KMSAccessDeniedException: retried('Unauthorized', 5 * MINUTE),
  'KMS.AccessDeniedException': retried('Unauthorized', 5 * MINUTE),
  UnrecognizedClientException: retried('Unauthorized', 5 * MINUTE),
  // The resource does not exist (404): not yet made, deleted, or a wrong ARN. Retried after 5
  // minutes or more, so a queue made after the subscription gets the event.
  'AWS.SimpleQueueService.NonExistentQueue': retried('NotFound', 5 * MINUTE),
  QueueDoesNotExist: retried('NotFound', 5 * MINUTE),
  NotFound: retried('NotFound', 5 * MINUTE),
  NotFoundException: retried('NotFound', 5 * MINUTE),
  ResourceNotFoundException: retried('NotFound', 5 * MINUTE),
  // Too large for the destination: the same event will never fit.
  BatchRequestTooLong: notRetried('PayloadTooLarge'),
  MessageTooLong: notRetried('PayloadTooLarge'),
  RequestEntityTooLargeException: notRetried('PayloadTooLarge'),
  PayloadTooLarge: notRetried('PayloadTooLarge'),
  // The request itself is wrong for this destination (a FIFO queue without a group id, a bad attribute).
  InvalidParameterValue: notRetried('BadRequest'),
  InvalidParameterValueException: notRetried('BadRequest'),
  InvalidParameterException: notRetried('BadRequest'),
  InvalidParameter: notRetried('BadRequest'),
  InvalidAttributeValue: notRetried('BadRequest'),
  InvalidMessageContents: notRetried('BadRequest'),
  ValidationException: notRetried('BadRequest'),
  InvalidRequestContentException: notRetried('BadRequest'),
  // Switched off at the destination (a disabled key, a disabled function): retried after a while.
  KMSDisabledException: retried('Disabled', 5 * MINUTE),
  'KMS.DisabledException': retried('Disabled', 5 * MINUTE),
  KMSInvalidStateException: retried('Disabled', 5 * MINUTE),
  ResourceNotReadyException: retried('Disabled', 5 * MINUTE),
  // Throttled: over a quota of the service or the destination.
  ThrottlingException: retried('Busy', 30 * SECOND),
  Throttling: retried('Busy', 30 * SECOND),
  RequestThrottled: retried('Busy', 30 * SECOND),
  TooManyRequestsException: retried('Busy', 30 * SECOND),
  ProvisionedThroughputExceededException: retried('Full', 30 * SECOND),
  LimitExceededException: retried('Full', 30 * SECOND),
  KMSThrottlingException: retried('Busy', 30 * SECOND),
  'KMS.ThrottlingException': retried('Busy', 30 * SECOND),
  // The service is down or failed inside.
  ServiceUnavailable: retried('Busy', 30 * SECOND),
  ServiceUnavailableException: retried('Busy', 30 * SECOND),
  InternalError: retried('GenericError', 10 * SECOND),
  InternalFailure: retried('GenericError', 10 * SECOND),
  InternalServerError: retried('GenericError', 10 * SECOND),
  InternalException: retried('GenericError', 10 * SECOND),
  ServiceException: retried('GenericError', 10 * SECOND),
  KMSInternalException: retried('GenericError', 10 * SECOND),
};

/** An error no rule names: retried on the schedule, no sooner than 10 s. */
export const UNKNOWN_RESOURCE_ERROR: ResourceErrorRule = retried('GenericError', 10 * SECOND);

/** The rule for a service error, by its name. */
export const resourceErrorRuleOf = (name: string): ResourceErrorRule =>
  Object.hasOwn(RESOURCE_ERROR_RULES, name)
    ? (RESOURCE_ERROR_RULES[name] as ResourceErrorRule)
    : UNKNOWN_RESOURCE_ERROR;

/** Whether `code` is a service error the rules name (network errors are judged as a webhook's). */
export const isResourceErrorCode = (code: string): boolean => Object.hasOwn(RESOURCE_ERROR_RULES, code);

/**
 * Whether a failed attempt ended with a service error the rules name (no HTTP answer, an error
 * code of the table): it is judged by its rule, not by the webhook rules.
 */
export const isResourceFailure = (result: { httpStatus?: number; errorCode?: string }): boolean =>
  result.httpStatus === undefined && result.errorCode !== undefined && isResourceErrorCode(result.errorCode);
