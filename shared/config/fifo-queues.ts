/**
 * How a queue of `QUEUES` with `fifo: true` is made, by the CDK construct and the local stack
 * alike, and what Lambda allows its event source mapping.
 */

/**
 * A FIFO queue's settings:
 * - high throughput: de-duplication and the throughput limit per message group (a group is one
 *   subscription's key, so one key's events never share a partition's limit with others');
 * - de-duplication ids given by the sender (no content-based de-duplication);
 * - SQS's longest retention (14 days). A FIFO queue's messages wait behind their group's earlier
 *   ones, and retention counts from the send: a key whose endpoint fails for days must not lose
 *   the events queued behind the failing one (a gap in its order, without a dead letter).
 */
export const FIFO_QUEUE_SETTINGS = {
  deduplicationScope: 'messageGroup',
  fifoThroughputLimit: 'perMessageGroupId',
  contentBasedDeduplication: false,
  retentionDays: 14,
} as const;

/**
 * Lambda's limits on an event source mapping of a FIFO queue: 10 messages a batch at most, and no
 * batching window (Lambda refuses one, and CDK throws at synthesis).
 */
export const LAMBDA_FIFO_LIMITS = { maxBatchSize: 10, batchingWindowSeconds: 0 } as const;

/**
 * A FIFO queue's attributes as CreateQueue takes them. They must be given there: fauxqs (the
 * local stack's SQS) refuses `DeduplicationScope` and `FifoThroughputLimit` in SetQueueAttributes.
 */
export const fifoQueueAttributes = (): Record<string, string> => ({
  FifoQueue: 'true',
  DeduplicationScope: FIFO_QUEUE_SETTINGS.deduplicationScope,
  FifoThroughputLimit: FIFO_QUEUE_SETTINGS.fifoThroughputLimit,
  ContentBasedDeduplication: String(FIFO_QUEUE_SETTINGS.contentBasedDeduplication),
});
