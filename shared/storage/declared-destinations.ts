/**
 * The AWS resources (and roles to assume) that subscriptions declared in a CDK app deliver to:
 * one item (`SETTINGS` / `#DECLARED_DESTINATIONS`), put by the declarations' provider on every
 * deploy that changes them, and read by the management function beside the deployer's own
 * `resourceDestinations` patterns when it checks a resource destination. The list grows with
 * every declared destination, so it lives here rather than in the function's environment, which
 * Lambda limits to 4 KB (about forty ARNs).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { type ItemKey, Table } from './table';

export const DECLARED_DESTINATIONS_KEY: ItemKey = { pk: 'SETTINGS', sk: '#DECLARED_DESTINATIONS' };

const itemSchema = z.object({ resources: z.array(z.string()) });

export interface DeclaredDestinationsStore {
  /** The declared resources and roles; none when nothing declared any. */
  get(): Promise<readonly string[]>;
  /** Replaces the list (the one a deploy declares). */
  put(resources: readonly string[]): Promise<void>;
  /** Forgets the list (its declaration was removed). */
  clear(): Promise<void>;
}

export class DynamoDeclaredDestinations implements DeclaredDestinationsStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async get(): Promise<readonly string[]> {
    // Strongly consistent: a subscription declared in the same deploy is written right after.
    const item = await this.table.get(DECLARED_DESTINATIONS_KEY, { consistent: true });
    if (item === undefined) return [];
    const parsed = itemSchema.safeParse(item);
    if (!parsed.success)
      throw new Error(`stored declared destinations are malformed: ${parsed.error.message}`);
    return parsed.data.resources;
  }

  async put(resources: readonly string[]): Promise<void> {
    await this.table.putIf(
      { ...DECLARED_DESTINATIONS_KEY, kind: 'declared-destinations', resources: [...resources] },
      {},
    );
  }

  async clear(): Promise<void> {
    await this.table.delete(DECLARED_DESTINATIONS_KEY);
  }
}

/** The list kept in memory (the local stack's tests and unit tests). */
export class MemoryDeclaredDestinations implements DeclaredDestinationsStore {
  private resources: readonly string[] = [];

  async get(): Promise<readonly string[]> {
    return this.resources;
  }

  async put(resources: readonly string[]): Promise<void> {
    this.resources = [...resources];
  }

  async clear(): Promise<void> {
    this.resources = [];
  }
}
