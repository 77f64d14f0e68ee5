/** How many messages wait in a queue, as SQS counts them (`GetQueueAttributes`). */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Messages waiting in the queue at `url`: visible, not yet received by a consumer
 * (`ApproximateNumberOfMessages`). Messages in flight are left out: on AWS the Lambda pollers
 * take in only what the delivery invocations can work on at once, so those are capacity in use,
 * not a backlog. Needs `sqs:GetQueueAttributes` on the queue.
 */
export async function waitingMessages(sqs: SQSClient, url: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  const waiting = Number(Attributes?.ApproximateNumberOfMessages);
  if (!Number.isFinite(waiting))
    throw new Error(`the queue ${url} did not give its ApproximateNumberOfMessages`);
  return waiting;
}
