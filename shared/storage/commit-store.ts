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
 * Each on its own partition key (ids are random), and kept (DynamoDB TTL) a day longer than a
 * job message can live: a first-attempt job parked in a redrive queue and redriven days later
 * still finds its commit.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { QUEUES, TABLE } from '../config/resources';

export const COMMIT_PK_PREFIX = 'COMMIT#';
export const commitPk = (id: string) => `${COMMIT_PK_PREFIX}${id}`;
export const COMMIT_SK = '#COMMIT';
/**
 * How long a commit item is kept: the longest a job message lives (SQS counts a redriven
 * message's retention from when it was first sent), plus a day.
 */
export const COMMIT_RETENTION_SECONDS =
  (Math.max(...Object.values(QUEUES).map((queue) => queue.redrive.retentionDays)) + 1) * 86_400;

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
