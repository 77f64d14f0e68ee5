/**
 * SQS consumer for the delivery and retry queues: runs each job through the delivery engine and
 * reports the records that failed, so only those come back (after the visibility timeout).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { readConfig } from '../shared/config/runtime';
import type { DeliveryEngine } from '../shared/delivery/engine';
import { DELIVERY_TIMEOUT_MS } from '../shared/delivery/webhook-sender';
import { flushMetrics, lazyHandler } from '../shared/lambda/middleware';
import { buildDeliveryEngine, createObservability, type Observability } from '../shared/lambda/wiring';
import { createAwsClients } from '../shared/platform/aws';
import { type Clock, systemClock } from '../shared/platform/clock';
import { parseJob } from '../shared/queue/job-codec';

/** Time kept free at the end of an invocation for queueing follow-up jobs. */
export const FINISHING_MARGIN_MS = 5000;

export interface DeliveryHandlerDeps {
  engine: DeliveryEngine;
  observability: Observability;
  clock?: Clock;
}

export function createDeliveryHandler({ engine, observability, clock = systemClock }: DeliveryHandlerDeps) {
  const processor = new BatchProcessor(EventType.SQS);
  const deliver = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // An attempt may take the full 30 s, so none starts unless it can finish in time.
    const attemptDeadline =
      clock.now() + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - FINISHING_MARGIN_MS;
    const processRecord = async (record: SQSRecord) => {
      try {
        const job = parseJob(record.body);
        const report = await engine.processJob(job, { attemptDeadline });
        observability.logger.debug('delivery job processed', {
          topic: job.topic,
          subscription: job.subscription,
          events: job.items.length,
          ...report,
        });
      } catch (error) {
        observability.logger.error('delivery job failed; it will be retried from the queue', {
          messageId: record.messageId,
          receiveCount: record.attributes?.ApproximateReceiveCount,
          error: (error as Error).message,
        });
        throw error;
      }
    };
    return processPartialResponse(event, processRecord, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };
  return middy<SQSEvent, SQSBatchResponse>(deliver)
    .use(injectLambdaContext(observability.logger))
    .use(flushMetrics(observability.buffer, observability.publishMetrics));
}

export const handler = lazyHandler(() => {
  const observability = createObservability('delivery');
  const runtime = { config: readConfig(), clients: createAwsClients() };
  return createDeliveryHandler({ engine: buildDeliveryEngine(runtime, observability), observability });
});
