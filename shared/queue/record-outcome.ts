/**
 * What became of one queue message, as its consumer's step says, and the one rule that turns
 * those answers into the SQS batch response. Steps never decide acknowledgement themselves: they
 * say `done`, `retryLater` or `poison`, and {@link batchResponse} alone decides which messages
 * come back.
 */
import type { SQSBatchResponse } from 'aws-lambda';

export type RecordOutcome =
  /** Handled (its follow-ups queued, its writes made): the message is deleted. */
  | { readonly kind: 'done'; readonly details?: Readonly<Record<string, unknown>> }
  /** Could not be finished now (a dependency failed): the message comes back after its visibility timeout. */
  | { readonly kind: 'retryLater'; readonly reason: string }
  /**
   * Can never be handled (not a job, or not one this consumer takes). It still comes back: after
   * `maxReceiveCount` receives SQS parks it in the queue's redrive queue, where an alarm sees it
   * and `gridwire parked` shows it, instead of it being dropped unseen.
   */
  | { readonly kind: 'poison'; readonly reason: string }
  /**
   * Kept in its queue on purpose, hidden until `until` (epoch ms) by its step: an ordered event
   * waiting for its retry, or one behind it. Not deleted; it comes back when its step said.
   */
  | {
      readonly kind: 'waiting';
      readonly until: number;
      readonly details?: Readonly<Record<string, unknown>>;
    };

export type RecordOutcomeKind = RecordOutcome['kind'];

export const done = (details?: Readonly<Record<string, unknown>>): RecordOutcome =>
  details === undefined ? { kind: 'done' } : { kind: 'done', details };
export const retryLater = (reason: string): RecordOutcome => ({ kind: 'retryLater', reason });
export const poison = (reason: string): RecordOutcome => ({ kind: 'poison', reason });
export const waiting = (until: number, details?: Readonly<Record<string, unknown>>): RecordOutcome =>
  details === undefined ? { kind: 'waiting', until } : { kind: 'waiting', until, details };

/** Whether the message of a record with this outcome is deleted (otherwise it comes back). */
export const acknowledges = (outcome: RecordOutcome | undefined): boolean => outcome?.kind === 'done';

/**
 * The SQS batch response for a batch: every record whose outcome is not `done` is listed in
 * `batchItemFailures`, in record order, so only those messages come back. A record without an
 * outcome comes back too: nothing is deleted that no step answered for.
 */
export function batchResponse(
  records: readonly { readonly messageId: string }[],
  outcomes: readonly (RecordOutcome | undefined)[],
): SQSBatchResponse {
  return {
    batchItemFailures: records
      .filter((_, index) => !acknowledges(outcomes[index]))
      .map((record) => ({ itemIdentifier: record.messageId })),
  };
}
