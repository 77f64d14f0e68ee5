/**
 * Late answers: one item per event whose timed-out request was later answered with a success
 * (`rules/late-answer.ts`), in a partition per subscription (`LATE#<topic>#<sub>` /
 * `ANSWER#<deliveryId>`). The event's retry reads it before attempting and, finding it, is dropped
 * as delivered. Written only when a late success comes, so the happy path costs nothing; read
 * only for events one of whose requests timed out while the worker listened on. Each item expires
 * (DynamoDB TTL) when its event's time to live runs out: no retry can come after that.
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { TABLE } from '../config/resources';
import { batchWriteAll } from './batch-write';
import { type ItemKey, itemAttributes, parseItem, withoutItemAttributes } from './table';

export const LATE_ANSWER_SK_PREFIX = 'ANSWER#';
/** Keys one BatchGetItem call may carry. */
export const BATCH_GET_LIMIT = 100;

/** A success that came after its request had timed out. */
export const lateAnswerSchema = z.object({
  topic: z.string().min(1),
  subscription: z.string().min(1),
  deliveryId: z.string().min(1),
  /** The attempt the answer belongs to (1-based). */
  attempt: z.number().int().min(1),
  /** Epoch ms the request started, and when its answer came. */
  startedAt: z.number(),
  answeredAt: z.number(),
  httpStatus: z.number().int(),
  /** Epoch ms after which no retry of the event can come (its time to live). */
  expiresAt: z.number(),
});
export type LateAnswer = z.infer<typeof lateAnswerSchema>;

/** A recorded late answer, as read back. */
export type RecordedLateAnswer = Omit<LateAnswer, 'expiresAt'>;

// The item's TTL attribute (epoch seconds) is left out when it is read.
const lateAnswerItemSchema = lateAnswerSchema.omit({ expiresAt: true }).extend(itemAttributes('late-answer'));

const lower = (name: string) => name.toLowerCase();

export const lateAnswerKey = (topic: string, subscription: string, deliveryId: string): ItemKey => ({
  pk: `LATE#${lower(topic)}#${lower(subscription)}`,
  sk: `${LATE_ANSWER_SK_PREFIX}${deliveryId}`,
});

export interface LateAnswerStore {
  /** Records late answers (an answer already recorded is written again, the same). */
  record(answers: readonly LateAnswer[]): Promise<void>;
  /** The recorded late answers among one subscription's `deliveryIds`, by delivery id. */
  find(
    topic: string,
    subscription: string,
    deliveryIds: readonly string[],
  ): Promise<Map<string, RecordedLateAnswer>>;
}

export class DynamoLateAnswers implements LateAnswerStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(answers: readonly LateAnswer[]): Promise<void> {
    await batchWriteAll(
      this.doc,
      this.tableName,
      answers.map(({ expiresAt, ...answer }) => ({
        PutRequest: {
          Item: {
            ...lateAnswerKey(answer.topic, answer.subscription, answer.deliveryId),
            kind: 'late-answer',
            ...answer,
            [TABLE.ttlAttribute]: Math.ceil(expiresAt / 1000),
          },
        },
      })),
    );
  }

  async find(
    topic: string,
    subscription: string,
    deliveryIds: readonly string[],
  ): Promise<Map<string, RecordedLateAnswer>> {
    const found = new Map<string, RecordedLateAnswer>();
    const ids = [...new Set(deliveryIds)];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      let keys: Array<Record<string, unknown>> | undefined = ids
        .slice(start, start + BATCH_GET_LIMIT)
        .map((id) => ({ ...lateAnswerKey(topic, subscription, id) }));
      // Keys DynamoDB leaves unprocessed (throttling) are asked for again, a few times.
      for (let round = 0; keys !== undefined && keys.length > 0; round += 1) {
        if (round > 5) throw new Error('DynamoDB kept late-answer reads unprocessed after 5 retries');
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** round));
        const result: BatchGetCommandOutput = await this.doc.send(
          new BatchGetCommand({
            // Strongly consistent: the answer may have been recorded a moment ago by another worker.
            RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } },
          }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) {
          const answer = withoutItemAttributes(parseItem(lateAnswerItemSchema, item, 'late answer'));
          found.set(answer.deliveryId, answer);
        }
        keys = result.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return found;
  }
}
