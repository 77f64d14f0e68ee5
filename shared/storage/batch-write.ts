/**
 * BatchWriteItem for every table writer: at most 25 requests per call, and the items DynamoDB
 * leaves unprocessed (throttling, partition limits) sent again with backoff.
 */
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

/** Requests one BatchWriteItem call may carry. */
export const BATCH_WRITE_LIMIT = 25;

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** BatchWriteItem, re-sending unprocessed items with backoff; throws if they never go through. */
export async function batchWrite(doc: DynamoDBDocumentClient, input: BatchWriteCommandInput): Promise<void> {
  let pending = input.RequestItems;
  for (let attempt = 0; pending !== undefined && Object.keys(pending).length > 0; attempt += 1) {
    if (attempt > 0) {
      if (attempt > 5) throw new Error('DynamoDB kept items unprocessed after 5 retries');
      await sleep(50 * 2 ** attempt);
    }
    const result = await doc.send(new BatchWriteCommand({ RequestItems: pending }));
    pending = result.UnprocessedItems;
  }
}

/** Writes `requests` to one table, {@link BATCH_WRITE_LIMIT} per call, one call after another. */
export async function batchWriteAll(
  doc: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH_WRITE_LIMIT) {
    await batchWrite(doc, {
      RequestItems: { [tableName]: requests.slice(start, start + BATCH_WRITE_LIMIT) },
    });
  }
}
