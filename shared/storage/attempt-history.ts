/**
 * The attempt history, or message log: what happened to a subscription's events, kept
 * `retentionDays` for operators asking "what happened to event X" and sending one again. With
 * the subscription's `deliveryLog` at `Failures` (the default) it holds the events not delivered
 * at the first attempt; at `All`, every event. Each record carries the first KiB of the
 * endpoint's answer, and each item an event's text once (up to `MAX_LOGGED_EVENT_BYTES`), so it
 * can be resent. The items (one per job and subscription) and their layout: `history-items.ts`.
 *
 * A lookup queries each hour partition of the window (every shard), newest first, with a filter
 * on `ids`, and stops after {@link READ_BUDGET_UNITS} read units, saying how much of the window
 * it searched. A listing reads the same partitions without the filter, a page at a time. The
 * shards spread one subscription's writes in a busy hour over several partitions.
 *
 * Reads are made for a subscription as it is now (a {@link HistoryOwner}) and keep only its own
 * records (`ownRecord`): one deleted and created again under the same name starts with an empty
 * log, though its predecessor's items share its partitions until they expire. Writes cost what
 * they did: the uid is one more attribute of the item.
 */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { AttemptRecord } from '../domain/attempts';
import { mapWithConcurrency } from '../platform/concurrency';
import { batchWriteAll } from './batch-write';
import {
  allRecordsOfItem,
  DEFAULT_HISTORY_SHARDS,
  type HistoryOwner,
  historyPk,
  hourOf,
  idNeedle,
  ownRecord,
  packHistory,
  padAt,
  recordsOfItem,
} from './history-items';

export type { HistoryOwner } from './history-items';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * Read capacity one lookup may use: 512 units, 4 MiB of eventually consistent reads (a unit
 * reads 8 KiB), counted from each page's `ConsumedCapacity`. Every Query costs at least half a
 * unit, so a 7-day window of empty partitions (168 hours x 4 shards) uses 336 of them. Pages
 * already in flight when the budget runs out still finish, so a lookup may end up to
 * {@link QUERY_CONCURRENCY} pages (1 MB each at most) over it.
 */
export const READ_BUDGET_UNITS = 512;
/** Partition queries in flight at once during a lookup. */
export const QUERY_CONCURRENCY = 8;
/** What a page costs when DynamoDB does not report it: the most a Query page can read (1 MB). */
const UNREPORTED_PAGE_UNITS = 128;

/** A time window in epoch ms: `since` inclusive, `until` exclusive. */
export interface HistoryWindow {
  since: number;
  until: number;
}

export interface HistorySearch {
  /** The event's records, oldest first. */
  records: AttemptRecord[];
  /**
   * The part of the window searched completely: the whole window, or (when `truncated`) its
   * newest part. Records outside it may still be in `records`.
   */
  searched: HistoryWindow;
  /** The read budget ran out before the whole window was searched. */
  truncated: boolean;
}

/** A page of a subscription's log ({@link AttemptHistoryTable.list}). */
export interface HistoryPage {
  /** The page's records, oldest first. */
  records: AttemptRecord[];
  /** The part of the window the page covers; the next page ends where it begins. */
  searched: HistoryWindow;
  /** Part of the window is left for a next page. */
  more: boolean;
}

/** The lookup side, as the management API uses it. */
export interface AttemptHistoryLookup {
  readonly retentionDays: number;
  find(owner: HistoryOwner, eventId: string, window: HistoryWindow): Promise<HistorySearch>;
  list(owner: HistoryOwner, window: HistoryWindow, deliveries: number): Promise<HistoryPage>;
}

export interface AttemptHistoryOptions {
  retentionDays: number;
  /** Epoch ms (default `Date.now`): the part of a window older than the retention is not searched. */
  now?: () => number;
  /** Partitions per subscription and hour (default {@link DEFAULT_HISTORY_SHARDS}). */
  shards?: number;
  /** Read units one lookup may use (default {@link READ_BUDGET_UNITS}). */
  readBudgetUnits?: number;
}

/** One partition query of a lookup: an hour (clipped to the window) of one shard. */
interface PartitionTask {
  pk: string;
  lower: number;
  upper: number;
  /** The partition is searched from here (inclusive) up to `upper`. */
  coveredFrom: number;
}

export class AttemptHistoryTable implements AttemptHistoryLookup {
  readonly retentionDays: number;
  private readonly now: () => number;
  private readonly shards: number;
  private readonly readBudgetUnits: number;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: AttemptHistoryOptions,
  ) {
    this.retentionDays = options.retentionDays;
    this.now = options.now ?? Date.now;
    this.shards = options.shards ?? DEFAULT_HISTORY_SHARDS;
    this.readBudgetUnits = options.readBudgetUnits ?? READ_BUDGET_UNITS;
  }

  /** Writes a job's records: one item per (topic, subscription), 25 items per request. */
  async record(records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const items = packHistory(records, { retentionDays: this.retentionDays, shards: this.shards });
    await batchWriteAll(
      this.doc,
      this.tableName,
      items.map((Item) => ({ PutRequest: { Item } })),
    );
  }

  /**
   * One event's records for one subscription (its own: `ownRecord`), from the items whose newest
   * record falls in `window` (an item's older records come along, even from just before the
   * window). Hours are searched newest first, {@link QUERY_CONCURRENCY} partition queries at a
   * time, until the read budget is used up.
   */
  async find(owner: HistoryOwner, eventId: string, window: HistoryWindow): Promise<HistorySearch> {
    const { topic, name } = owner;
    const found = await this.search(topic, name, window, { needle: idNeedle(eventId) });
    return {
      records: oldestFirst(
        found.items
          .flatMap((item) => recordsOfItem(item, topic, name, eventId))
          .filter((record) => ownRecord(owner, record)),
      ),
      searched: found.searched,
      truncated: found.truncated,
    };
  }

  /**
   * A page of the subscription's log (its own records: `ownRecord`): the records of the newest
   * items in `window`, hour by hour from the newest, until at least `deliveries` deliveries are
   * found (or the read budget is used up). Only items from the completely searched part are kept,
   * so the next page (the same window, ending at `searched.since`) repeats none of them; `more`
   * says whether it has any part of the window left to search.
   */
  async list(owner: HistoryOwner, window: HistoryWindow, deliveries: number): Promise<HistoryPage> {
    const { topic, name } = owner;
    const own = (item: Record<string, unknown>) =>
      allRecordsOfItem(item, topic, name).filter((record) => ownRecord(owner, record));
    const seen = new Set<string>();
    const found = await this.search(topic, name, window, {
      onItem: (item) => {
        for (const record of own(item)) seen.add(record.deliveryId);
      },
      enough: () => seen.size >= deliveries,
    });
    const kept = found.items.filter(
      (item) => atOfSk(item.sk, Number.NEGATIVE_INFINITY) >= found.searched.since,
    );
    return {
      records: oldestFirst(kept.flatMap(own)),
      searched: found.searched,
      more: found.truncated,
    };
  }

  /**
   * The items of the window's partitions, newest hour first ({@link QUERY_CONCURRENCY} partition
   * queries at a time): those listing `needle` when one is given, every item otherwise. Stops
   * when the read budget is used up or `enough` says so, and answers the part of the window it
   * searched completely.
   */
  private async search(
    topic: string,
    subscription: string,
    window: HistoryWindow,
    options: {
      needle?: string;
      onItem?: (item: Record<string, unknown>) => void;
      enough?: () => boolean;
    },
  ): Promise<{ items: Record<string, unknown>[]; searched: HistoryWindow; truncated: boolean }> {
    // Nothing older than the retention is kept.
    const since = Math.max(window.since, this.now() - this.retentionDays * DAY_MS);
    const until = window.until;
    const tasks: PartitionTask[] = [];
    if (since < until) {
      for (let hour = Math.floor((until - 1) / HOUR_MS) * HOUR_MS; hour + HOUR_MS > since; hour -= HOUR_MS) {
        const lower = Math.max(hour, since);
        const upper = Math.min(hour + HOUR_MS, until);
        for (let shard = 0; shard < this.shards; shard += 1) {
          tasks.push({
            pk: historyPk(topic, subscription, hourOf(hour), shard),
            lower,
            upper,
            coveredFrom: upper,
          });
        }
      }
    }
    const { needle, onItem, enough } = options;
    const budget = { used: 0 };
    const items: Record<string, unknown>[] = [];
    const stop = () => budget.used >= this.readBudgetUnits || enough?.() === true;
    await mapWithConcurrency(tasks, QUERY_CONCURRENCY, async (task) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        if (stop()) return;
        const page: QueryCommandOutput = await this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ...(needle === undefined
              ? {}
              : { FilterExpression: 'contains(#ids, :needle)', ExpressionAttributeNames: { '#ids': 'ids' } }),
            // `:to` sorts before every key of `upper` itself (they go on with `#`): `until` is exclusive.
            ExpressionAttributeValues: {
              ':pk': task.pk,
              ':from': padAt(task.lower),
              ':to': padAt(task.upper),
              ...(needle === undefined ? {} : { ':needle': needle }),
            },
            ScanIndexForward: false,
            ReturnConsumedCapacity: 'TOTAL',
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        budget.used += pageUnits(page);
        for (const item of page.Items ?? []) {
          items.push(item);
          onItem?.(item);
        }
        startKey = page.LastEvaluatedKey;
        // Newest first: every item newer than the last one evaluated has been seen.
        task.coveredFrom = startKey === undefined ? task.lower : atOfSk(startKey.sk, task.lower) + 1;
      } while (startKey !== undefined);
    });
    const searchedSince = searchedFrom(tasks, this.shards, until);
    const truncated = tasks.length > 0 && searchedSince > since;
    return {
      items,
      searched: { since: truncated ? searchedSince : window.since, until },
      truncated,
    };
  }
}

function pageUnits(page: QueryCommandOutput): number {
  const reported = page.ConsumedCapacity?.CapacityUnits;
  if (reported !== undefined) return reported;
  return (page.ScannedCount ?? 0) > 0 ? UNREPORTED_PAGE_UNITS : 0;
}

function atOfSk(sk: unknown, fallback: number): number {
  const at = typeof sk === 'string' ? Number.parseInt(sk.slice(0, 15), 10) : Number.NaN;
  return Number.isFinite(at) ? at : fallback;
}

/**
 * Where the completely searched part of the window begins: walking the hours from the newest,
 * each hour counts from where all its shards are covered, and the walk stops at the first hour
 * not covered to its start.
 */
function searchedFrom(tasks: readonly PartitionTask[], shards: number, until: number): number {
  let from = until;
  for (let start = 0; start < tasks.length; start += shards) {
    const hour = tasks.slice(start, start + shards);
    const lower = (hour[0] as PartitionTask).lower;
    from = Math.max(...hour.map((task) => task.coveredFrom));
    if (from > lower) break;
  }
  return from;
}

/** Records by time, then attempt number; the same attempt found twice is kept once. */
function oldestFirst(records: readonly AttemptRecord[]): AttemptRecord[] {
  const sorted = [...records].sort(
    (a, b) => a.at - b.at || a.attempt - b.attempt || a.deliveryId.localeCompare(b.deliveryId),
  );
  return sorted.filter((record, index) => {
    const previous = sorted[index - 1];
    return (
      previous === undefined ||
      previous.at !== record.at ||
      previous.attempt !== record.attempt ||
      previous.deliveryId !== record.deliveryId
    );
  });
}
