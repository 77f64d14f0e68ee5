/**
 * Lambda's SQS event source mappings, locally: one poller per queue of `QUEUES`, feeding the
 * queue's consumer function with the batch size and concurrency the queue defines.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import {
  FUNCTIONS,
  QUEUES,
  type QueueDefinition,
  type QueueKey,
  SQS_LIMITS,
} from '../shared/config/resources';
import type { AwsClients } from '../shared/platform/aws';
import type { LocalFunctions } from './functions';
import { QueuePoller } from './poller';
import type { LocalResources } from './provision';
import type { LocalStackOptions } from './stack-options';

export interface EventSources {
  /** Every queue's poller, not started yet. */
  pollers: QueuePoller[];
  /** The delivery queue's poller: its finished jobs are the drain rate the admission gate reads. */
  deliveryPoller?: QueuePoller;
}

/**
 * The batch a local poller hands its consumer: the queue's batch size, but at most what one
 * receive returns (ten messages). Lambda's batching window is not emulated, so a queue whose
 * consumer gathers thousands of messages on AWS (the backlog queue) gets ten at a time locally.
 */
export const localBatchSize = (consumer: QueueDefinition['consumer']): number =>
  Math.min(consumer.batchSize, SQS_LIMITS.maxBatchEntries);

/** A poller per queue, handing its batches to the queue's consumer; none is started. */
export async function createEventSources(
  clients: AwsClients,
  resources: LocalResources,
  consumers: LocalFunctions['consumers'],
  options: Pick<LocalStackOptions, 'pollersPerQueue' | 'maxConcurrency' | 'onInvocation'>,
): Promise<EventSources> {
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
      batchSize: localBatchSize(consumer),
      receivers: options.pollersPerQueue ?? 2,
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
