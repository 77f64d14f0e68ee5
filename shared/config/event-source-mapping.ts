/**
 * Lambda's SQS event source mappings as the stack configures them: Lambda's limits on a mapping,
 * and the delivery queue's batching window (the `deliveryBatchingWindow` prop on AWS, the option
 * of the same name locally), its defaults and the one check both apply.
 */

/**
 * Lambda's limits on an SQS event source mapping (standard queues): a batch of more than
 * `maxBatchSizeWithoutWindow` messages needs a batching window of at least 1 s, a window is at
 * most `maxBatchingWindowSeconds`, and a batch stops growing at `maxBatchSize` messages or when
 * its payload would pass the `maxPayloadBytes` of a synchronous invocation, whichever comes first.
 */
export const LAMBDA_SQS_LIMITS = {
  maxBatchSize: 10_000,
  maxBatchSizeWithoutWindow: 10,
  maxBatchingWindowSeconds: 300,
  maxPayloadBytes: 6_291_456,
} as const;

/**
 * The delivery queue's batching window and the batch size it allows, by default (the
 * `deliveryBatchingWindow` prop on AWS, the option of the same name locally): no window, so its
 * consumer is invoked with what one receive returns (10 messages at most) as soon as it returns.
 * A window lowers the bill of steady one-event traffic, but Lambda's pollers long-poll inside it,
 * so on a quiet queue a batch waits up to 20 s past a shorter window (docs/cost.md): an opt-in for
 * busy streams, not a default for topics that see an event now and then.
 */
export const DELIVERY_BATCHING_DEFAULTS = { seconds: 0, batchSize: 10 } as const;

/**
 * The largest batch the delivery queue's consumer takes with a window (Lambda allows 10,000): one
 * invocation never holds more than this many jobs. Without a window Lambda's own limit (10) holds.
 */
export const MAX_DELIVERY_BATCH_SIZE = 100;

/** The delivery queue's batching window: seconds Lambda gathers messages, and the batch size. */
export interface DeliveryBatchingWindow {
  /** Seconds the consumer gathers messages before it runs: an integer from 0 (at once) to 300. */
  readonly seconds: number;
  /** Messages per invocation at most: 1 to 10 without a window, 1 to 100 with one (default 10). */
  readonly batchSize?: number;
}

/**
 * What is wrong with a delivery batching window, each problem naming the field and its limit;
 * none for `undefined` (the defaults).
 */
export function deliveryBatchingProblems(
  window: DeliveryBatchingWindow | undefined,
  /** How the problems name the two fields (the prop's, or the command line's flags). */
  names = { seconds: 'deliveryBatchingWindow.seconds', batchSize: 'deliveryBatchingWindow.batchSize' },
): string[] {
  if (window === undefined) return [];
  const problems: string[] = [];
  const { seconds, batchSize } = window;
  const maxSeconds = LAMBDA_SQS_LIMITS.maxBatchingWindowSeconds;
  const secondsValid = Number.isInteger(seconds) && seconds >= 0 && seconds <= maxSeconds;
  if (!secondsValid) {
    problems.push(`${names.seconds} must be an integer from 0 to ${maxSeconds} (got ${seconds})`);
  }
  if (batchSize !== undefined) {
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_DELIVERY_BATCH_SIZE) {
      problems.push(
        `${names.batchSize} must be an integer from 1 to ${MAX_DELIVERY_BATCH_SIZE} (got ${batchSize})`,
      );
    } else if (secondsValid && seconds === 0 && batchSize > LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow) {
      problems.push(
        `${names.batchSize} must be at most ${LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow} when ${names.seconds} is 0 (got ${batchSize})`,
      );
    }
  }
  return problems;
}

/** The window and batch size a (checked) delivery batching window means, defaults filled in. */
export const deliveryBatchingOf = (
  window: DeliveryBatchingWindow | undefined,
): { readonly seconds: number; readonly batchSize: number } => ({
  seconds: window?.seconds ?? DELIVERY_BATCHING_DEFAULTS.seconds,
  batchSize: window?.batchSize ?? DELIVERY_BATCHING_DEFAULTS.batchSize,
});

/**
 * A queue's visibility timeout: six times its consumer's timeout, per AWS guidance for SQS event
 * sources, plus the consumer's batching window, during which received messages already count
 * as in flight.
 */
export const visibilityTimeoutOf = (functionTimeoutSeconds: number, batchingWindowSeconds: number): number =>
  functionTimeoutSeconds * 6 + batchingWindowSeconds;
