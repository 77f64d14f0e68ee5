/**
 * Endpoint health: one item per subscription (`HEALTH#<topic>#<sub>` / `#HEALTH`), on its own
 * partition key so a failing endpoint's writes never share a partition with its topic or another
 * subscription.
 *
 * Writes are conditional on the `rev` the writer read, so two workers never lose each other's
 * update: the loser reads again and re-applies its change.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { type EndpointHealth, endpointHealthSchema } from '../domain/model';
import { healthKey, itemAttributes, type ReadOptions, Table, withoutItemAttributes } from './table';

export interface HealthStore {
  /** The stored health, or `undefined` when the endpoint never failed. */
  get(topic: string, subscription: string, options?: ReadOptions): Promise<EndpointHealth | undefined>;
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

/** A health item as stored. */
export const healthItemSchema = endpointHealthSchema.extend(itemAttributes('health'));
export type HealthItem = z.input<typeof healthItemSchema>;

export class DynamoHealthStore implements HealthStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(
    topic: string,
    subscription: string,
    options: ReadOptions = {},
  ): Promise<EndpointHealth | undefined> {
    const item = await this.table.get(healthKey(topic, subscription), options);
    if (item === undefined) return undefined;
    const parsed = healthItemSchema.safeParse(item);
    // A malformed item must not stop deliveries: the endpoint is treated as healthy.
    return parsed.success ? withoutItemAttributes(parsed.data) : undefined;
  }

  async put(health: EndpointHealth, expectedRev: number | undefined): Promise<boolean> {
    const item: HealthItem = { ...healthKey(health.topic, health.subscription), kind: 'health', ...health };
    return this.table.putIf(
      item,
      expectedRev === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#rev = :rev',
            ExpressionAttributeNames: { '#rev': 'rev' },
            ExpressionAttributeValues: { ':rev': expectedRev },
          },
    );
  }
}
