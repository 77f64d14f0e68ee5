/** SQS events and a Lambda context as the consumers receive them, for handler tests. */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { createObservability, type Observability } from '../../shared/lambda/wiring';
import type { MetricPoint } from '../../shared/observability/metrics';

/** A record carrying `body`, received `receiveCount` times. */
export const sqsRecord = (messageId: string, body: string, receiveCount = 1): SQSRecord =>
  ({
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:gridwire-test',
    awsRegion: 'eu-west-1',
  }) satisfies SQSRecord;

/** An event of records `m0`, `m1`... carrying `bodies` in order. */
export const sqsEvent = (bodies: readonly string[]): SQSEvent => ({
  Records: bodies.map((body, index) => sqsRecord(`m${index}`, body)),
});

/** A Lambda context with `remainingMs` left for the invocation. */
export const lambdaContext = (remainingMs = 60_000): Context =>
  ({
    functionName: 'gridwire-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:gridwire-test',
    memoryLimitInMB: '256',
    awsRequestId: 'request-1',
    logGroupName: '/aws/lambda/gridwire-test',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  }) satisfies Context;

/** A function's logging and metrics with the logs silenced and the published metric points kept. */
export function quietObservability(functionName = 'test'): Observability & { published: MetricPoint[] } {
  const published: MetricPoint[] = [];
  const observability = createObservability(functionName, {
    logLevel: 'SILENT',
    publishMetrics: (points) => published.push(...points),
  });
  return { ...observability, published };
}
