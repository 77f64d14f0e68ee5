/**
 * Endpoint health in the DynamoDB table: one item per subscription, on its own partition key so
 * a failing endpoint's writes never share a partition with its topic or another subscription.
 *
 * | item   | pk                          | sk        |
 * |--------|-----------------------------|-----------|
 * | health | `HEALTH#<topic>#<sub>`      | `#HEALTH` |
 *
 * Writes are conditional on the `rev` the writer read, so two workers never lose each other's
 * update: the loser reads again and re-applies its change.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { DELIVERY_OUTCOMES, type EndpointHealth } from '../domain/model';

export const healthPk = (topic: string, subscription: string) =>
  `HEALTH#${topic.toLowerCase()}#${subscription.toLowerCase()}`;
export const HEALTH_SK = '#HEALTH';

const outcome = z.enum(DELIVERY_OUTCOMES);
const healthItemSchema = z.object({
  topic: z.string(),
  subscription: z.string(),
  endpointUrl: z.string(),
  consecutiveFailures: z.number(),
  probations: z.number(),
  probationUntil: z.number().optional(),
  probationOutcome: outcome.optional(),
  lastOutcome: z.union([outcome, z.literal('Delivered')]).optional(),
  lastFailureAt: z.number().optional(),
  lastSuccessAt: z.number().optional(),
  unhealthySince: z.number().optional(),
  resetAt: z.number().optional(),
  disabledAt: z.number().optional(),
  rev: z.number(),
});

export interface HealthStore {
  /** The stored health, or `undefined` when the endpoint never failed. */
  get(
    topic: string,
    subscription: string,
    options?: { consistent?: boolean },
  ): Promise<EndpointHealth | undefined>;
  /**
   * Writes `health` (its `rev` one above `expectedRev`) only if the stored item still has
   * `expectedRev` (`undefined`: no item yet). Returns false when another writer came first.
   */
  put(health: EndpointHealth, expectedRev: number | undefined): Promise<boolean>;
}

/**
 * Forgets what is known of a subscription's endpoint (an admin's `enable`, or the subscription's
 * delete): a fresh record about no endpoint, one revision up, with `resetAt`. Workers drop their
 * own outcomes of attempts started before it, so nothing they saw earlier brings it back; and the
 * revision keeps growing, so a worker's write over an older revision is refused.
 */
export async function resetHealth(
  store: HealthStore,
  topic: string,
  subscription: string,
  at: number,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const current = await store.get(topic, subscription, { consistent: true });
    const rev = current?.rev;
    const fresh: EndpointHealth = {
      topic,
      subscription,
      endpointUrl: '',
      consecutiveFailures: 0,
      probations: 0,
      resetAt: at,
      rev: (rev ?? 0) + 1,
    };
    if (await store.put(fresh, rev)) return;
  }
  throw new Error(`endpoint health of ${topic}/${subscription} kept changing; try again`);
}

export class DynamoHealthStore implements HealthStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(
    topic: string,
    subscription: string,
    options: { consistent?: boolean } = {},
  ): Promise<EndpointHealth | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: healthPk(topic, subscription), sk: HEALTH_SK },
        ...(options.consistent === true ? { ConsistentRead: true } : {}),
      }),
    );
    if (Item === undefined) return undefined;
    const parsed = healthItemSchema.safeParse(Item);
    // A malformed item must not stop deliveries: the endpoint is treated as healthy.
    return parsed.success ? parsed.data : undefined;
  }

  async put(health: EndpointHealth, expectedRev: number | undefined): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: healthPk(health.topic, health.subscription), sk: HEALTH_SK, kind: 'health', ...health },
          ...(expectedRev === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#rev = :rev',
                ExpressionAttributeNames: { '#rev': 'rev' },
                ExpressionAttributeValues: { ':rev': expectedRev },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** Health kept in memory, with the same conditional writes (simulations and tests). */
export class MemoryHealthStore implements HealthStore {
  readonly items = new Map<string, EndpointHealth>();
  writes = 0;
  conflicts = 0;

  async get(topic: string, subscription: string): Promise<EndpointHealth | undefined> {
    const item = this.items.get(healthPk(topic, subscription));
    return item === undefined ? undefined : { ...item };
  }

  async put(health: EndpointHealth, expectedRev: number | undefined): Promise<boolean> {
    const key = healthPk(health.topic, health.subscription);
    if (this.items.get(key)?.rev !== expectedRev) {
      this.conflicts += 1;
      return false;
    }
    this.writes += 1;
    this.items.set(key, { ...health });
    return true;
  }
}
