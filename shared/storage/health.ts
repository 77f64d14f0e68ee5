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
import { type EndpointHealth, endpointHealthSchema } from '../domain/health';
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

/** Times a read-then-write of a health item is tried when other writers keep coming first. */
const REWRITE_ATTEMPTS = 5;

/**
 * Rewrites an endpoint's health item: reads it strongly consistently, asks `change` for the next
 * record (`undefined`: nothing to write) and writes it one revision up, only if no other writer
 * came first; otherwise reads again. Throws when others kept coming first.
 */
export async function rewriteHealth(
  store: HealthStore,
  topic: string,
  subscription: string,
  change: (stored: EndpointHealth | undefined) => Omit<EndpointHealth, 'rev'> | undefined,
): Promise<void> {
  for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt += 1) {
    const stored = await store.get(topic, subscription, { consistent: true });
    const next = change(stored);
    if (next === undefined) return;
    const rev = stored?.rev;
    if (await store.put({ ...next, rev: (rev ?? 0) + 1 }, rev)) return;
  }
  throw new Error(`endpoint health of ${topic}/${subscription} kept changing; try again`);
}

/**
 * Forgets what is known of a subscription's endpoint (an admin's `enable`, or the subscription's
 * delete): a fresh record about no endpoint, one revision up, with `resetAt`. Workers drop their
 * own outcomes of attempts started before it, so nothing they saw earlier brings it back; and the
 * revision keeps growing, so a worker's write over an older revision is refused.
 */
export function resetHealth(
  store: HealthStore,
  topic: string,
  subscription: string,
  at: number,
): Promise<void> {
  return rewriteHealth(store, topic, subscription, () => ({
    topic,
    subscription,
    endpointUrl: '',
    consecutiveFailures: 0,
    probations: 0,
    resetAt: at,
  }));
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
