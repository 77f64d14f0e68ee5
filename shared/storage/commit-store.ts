/**
 * Publish commits in the DynamoDB table: one small item per publish request whose jobs took more
 * than one SQS message, written after the last of them was queued. A job carrying the request's
 * commit id is delivered only once this item exists, so nothing of a request that was refused
 * part-way is ever delivered (see docs/ARCHITECTURE.md, "Publish is all or nothing").
 *
 * | item   | pk              | sk        |
 * |--------|-----------------|-----------|
 * | commit | `COMMIT#<id>`   | `#COMMIT` |
 *
 * Each on its own partition key (ids are random), and kept a day (DynamoDB TTL): far longer than
 * any first-attempt job waits in the queue.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';

export const COMMIT_PK_PREFIX = 'COMMIT#';
export const commitPk = (id: string) => `${COMMIT_PK_PREFIX}${id}`;
export const COMMIT_SK = '#COMMIT';
/** How long a commit item is kept. */
export const COMMIT_RETENTION_SECONDS = 86_400;

export interface CommitStore {
  /** Records that every job of the publish request `id` is queued. */
  put(id: string, at: number): Promise<void>;
  /** Whether the commit exists (a strongly consistent read); rejects when the table can't be read. */
  exists(id: string): Promise<boolean>;
}

export class DynamoCommitStore implements CommitStore {
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(id: string, at: number): Promise<void> {
    await this.dynamo.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: commitPk(id),
          sk: COMMIT_SK,
          at,
          [TABLE.ttlAttribute]: Math.ceil(at / 1000) + COMMIT_RETENTION_SECONDS,
        },
      }),
    );
  }

  async exists(id: string): Promise<boolean> {
    const { Item } = await this.dynamo.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: commitPk(id), sk: COMMIT_SK },
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    return Item !== undefined;
  }
}
