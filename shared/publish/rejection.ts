/**
 * Why the publish rules refuse a request, in their own terms: the kind of refusal, the original
 * service's detail code and a message naming the field or the limit. The rules know nothing of
 * HTTP; the publish handler turns a rejection into its answer (`apiErrorOf` in
 * functions/publish.ts), the one place that knows the status each kind is given.
 */

/** The codes of each kind of refusal (the detail codes of the original service's error body). */
export const REJECTION_CODES = {
  /**
   * The body, an event or the content type breaks a rule, or the request holds no or too many
   * events; or, on a topic that validates its events, an event's data does not match its type's
   * schema (`EventDataInvalid`) or its type is not in the catalog (`UnknownEventType`).
   */
  invalid: [
    'InputJsonInvalid',
    'InvalidContentType',
    'NoEvents',
    'TooManyEvents',
    'EventDataInvalid',
    'UnknownEventType',
  ],
  /** The body, one event as queued, or the deliveries the request would queue exceed a size limit. */
  tooLarge: ['PayloadTooLarge', 'TooManyDeliveries'],
} as const;

export type RejectionKind = keyof typeof REJECTION_CODES;

/** The codes of one kind of refusal, or of every kind. */
export type RejectionCode<K extends RejectionKind = RejectionKind> = (typeof REJECTION_CODES)[K][number];

/** A publish request refused whole by the publish rules; nothing of it is queued. */
export class PublishRejection<K extends RejectionKind = RejectionKind> extends Error {
  override readonly name = 'PublishRejection';

  constructor(
    readonly kind: K,
    readonly code: RejectionCode<K>,
    message: string,
  ) {
    super(message);
  }
}

/** The request or one of its events breaks a rule; `code` says which kind of rule. */
export const invalidInput = (
  message: string,
  code: RejectionCode<'invalid'> = 'InputJsonInvalid',
): PublishRejection<'invalid'> => new PublishRejection('invalid', code, message);

/** The request, an event or the request's fan-out is larger than its limit. */
export const tooLarge = (
  message: string,
  code: RejectionCode<'tooLarge'> = 'PayloadTooLarge',
): PublishRejection<'tooLarge'> => new PublishRejection('tooLarge', code, message);
