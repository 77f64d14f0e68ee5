/**
 * Changes how long a received message stays hidden (`ChangeMessageVisibility`): ordered delivery
 * keeps a waiting message in its FIFO queue this way, so its group waits with it.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';

export class SqsMessageVisibility {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** Hides the message for `seconds` from now (0: visible again at once). */
  async hide(receiptHandle: string, seconds: number): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}
