/**
 * Lambda's SQS event source mappings, locally: one poller per queue of `QUEUES`, feeding the
 * queue's consumer function with the batch size, batching window and concurrency the queue
 * defines (see `localConsumerOf` for the windows emulated).
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { deliveryBatchingOf, deliveryBatchingProblems } from '../shared/config/event-source-mapping';
import {
  FUNCTIONS,
  QUEUES,
  type QueueDefinition,
  type QueueKey,
  SQS_LIMITS,
} from '../shared/config/resources';
import type { AwsClients } from '../shared/platform/aws';
import type { LocalFunctions } from './functions';
import { INITIAL_POLLERS, QueuePoller, receiveWaitProblem } from './poller';
import type { LocalResources } from './provision';
import { LocalStackError } from './stack-error';
import type { LocalStackOptions } from './stack-options';

export interface EventSources {
  /** Every queue's poller, not started yet. */
  pollers: QueuePoller[];
  /** The delivery queue's poller: its finished jobs are the drain rate the admission gate reads. */
  deliveryPoller?: QueuePoller;
}

/**
 * The batch a local poller hands its consumer when the queue's window is not emulated: the
 * queue's batch size, but at most what one receive returns (ten messages).
 */
export const localBatchSize = (consumer: QueueDefinition['consumer']): number =>
  Math.min(consumer.batchSize, SQS_LIMITS.maxBatchEntries);

/**
 * The batch size and batching window a queue's local poller uses. The delivery queue's are
 * emulated as on AWS: `deliveryBatchingWindow` (default `DELIVERY_BATCHING_DEFAULTS`: no
 * window). The other queues' long windows are not, unless `emulateAllBatchingWindows` asks for
 * them: the backlog queue gathers for 60 s on AWS and the ended-delivery queue for 300 s, which
 * locally would write events into a backlog a minute late and dead letters five minutes late, and
 * slow every test that waits on them; locally they take at most one receive (ten messages) at once.
 */
export function localConsumerOf(
  key: QueueKey,
  options: Pick<LocalStackOptions, 'deliveryBatchingWindow' | 'emulateAllBatchingWindows'>,
): { batchSize: number; batchingWindowMs: number; fifo?: true } {
  // A FIFO queue's consumer as on AWS: its batch, never a window.
  if (QUEUES[key].fifo === true) {
    return { batchSize: localBatchSize(QUEUES[key].consumer), batchingWindowMs: 0, fifo: true };
  }
  if (key === 'delivery') {
    const { seconds, batchSize } = deliveryBatchingOf(options.deliveryBatchingWindow);
    return { batchSize, batchingWindowMs: seconds * 1000 };
  }
  const consumer = QUEUES[key].consumer;
  if (options.emulateAllBatchingWindows === true) {
    return { batchSize: consumer.batchSize, batchingWindowMs: consumer.batchingWindowSeconds * 1000 };
  }
  return { batchSize: localBatchSize(consumer), batchingWindowMs: 0 };
}

/** `options.deliveryBatchingWindow` checked as the construct checks its prop; a `LocalStackError` naming the problem. */
export function checkEventSourceOptions(
  options: Pick<LocalStackOptions, 'deliveryBatchingWindow' | 'receiveWaitSeconds'>,
): void {
  const problems = deliveryBatchingProblems(options.deliveryBatchingWindow);
  const waitProblem =
    options.receiveWaitSeconds === undefined
      ? undefined
      : receiveWaitProblem(options.receiveWaitSeconds, 'receiveWaitSeconds');
  if (waitProblem !== undefined) problems.push(waitProblem);
  if (problems.length > 0) throw new LocalStackError(`Invalid local stack setting: ${problems.join('; ')}`);
}

/** A poller per queue, handing its batches to the queue's consumer; none is started. */
export async function createEventSources(
  clients: AwsClients,
  resources: LocalResources,
  consumers: LocalFunctions['consumers'],
  options: Pick<
    LocalStackOptions,
    | 'pollersPerQueue'
    | 'receiveWaitSeconds'
    | 'maxConcurrency'
    | 'onInvocation'
    | 'deliveryBatchingWindow'
    | 'emulateAllBatchingWindows'
  >,
): Promise<EventSources> {
  checkEventSourceOptions(options);
  const sources: EventSources = { pollers: [] };
  for (const key of Object.keys(QUEUES) as QueueKey[]) {
    const consumer = QUEUES[key].consumer;
    const fnKey = consumer.function;
    if (fnKey !== 'delivery' && fnKey !== 'deadLetter') throw new Error(`no local consumer for ${fnKey}`);
    const url = resources.queueUrls[key];
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    const poller = new QueuePoller({
      sqs: clients.sqs,
      queueUrl: url,
      queueArn: Attributes?.QueueArn ?? url,
      ...localConsumerOf(key, options),
      initialPollers: options.pollersPerQueue ?? INITIAL_POLLERS,
      ...(options.receiveWaitSeconds === undefined ? {} : { waitTimeSeconds: options.receiveWaitSeconds }),
      maxConcurrency: Math.min(consumer.maxConcurrency, options.maxConcurrency ?? Number.POSITIVE_INFINITY),
      fn: FUNCTIONS[fnKey],
      fnKey,
      handler: consumers[fnKey].handler,
      logger: consumers[fnKey].logger,
      ...(options.onInvocation === undefined ? {} : { onInvocation: options.onInvocation }),
    });
    sources.pollers.push(poller);
    if (key === 'delivery') sources.deliveryPoller = poller;
  }
  return sources;
}
