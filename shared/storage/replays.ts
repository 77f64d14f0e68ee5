/**
 * Replays, in their topic's partition beside its subscriptions (`TOPIC#<topic>` /
 * `REPLAY#<subscription>#<id>`), so a deleted topic takes them along. Each page of a replay moves
 * its cursor with a conditional write: only from the cursor the page started at, and only while
 * the replay runs, so a page worked twice (a message received again) moves nothing the second
 * time. Ended replays are kept 30 days (time to live).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../config/resources';
import { type Replay, replaySchema } from '../domain/replays';
import { type ItemKey, parseItem, Table, topicPk } from './table';

const lower = (text: string) => text.toLowerCase();

/** Days an ended replay stays readable. */
export const ENDED_REPLAY_DAYS = 30;

export const replayKey = (topic: string, subscription: string, id: string): ItemKey => ({
  pk: topicPk(topic),
  sk: `REPLAY#${lower(subscription)}#${id}`,
});

/** What one page did: the segment it ends at and the events it found and queued. */
export interface ReplayPageProgress {
  readonly cursor: string;
  readonly found: number;
  readonly queued: number;
}

export interface ReplayStore {
  put(replay: Replay): Promise<void>;
  get(topic: string, subscription: string, id: string): Promise<Replay | undefined>;
  /** The subscription's replays, newest first. */
  list(topic: string, subscription: string): Promise<Replay[]>;
  /**
   * Moves the cursor from `from` (none before the first page) by one page and counts what it
   * found and queued; false, changing nothing, when the replay is no longer at `from` (another
   * copy of the page moved it). A replay cancelled while the page ran is moved all the same: the
   * page's events went out, and its next page stops.
   */
  advance(replay: Replay, from: string | undefined, page: ReplayPageProgress, now: Date): Promise<boolean>;
  /** Ends a running replay in `state`; false when it was not running. */
  end(
    replay: Replay,
    state: 'Completed' | 'Cancelled' | 'Failed',
    now: Date,
    reason?: string,
  ): Promise<boolean>;
  /** Counts events of the replay delivered. */
  addDelivered(topic: string, subscription: string, id: string, events: number): Promise<void>;
}

export class DynamoReplayStore implements ReplayStore {
  private readonly table: Table;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(doc, tableName);
  }

  async put(replay: Replay): Promise<void> {
    await this.table.putIf(
      { ...replayKey(replay.topic, replay.subscription, replay.id), kind: 'replay', ...replay },
      { ConditionExpression: 'attribute_not_exists(pk)' },
    );
  }

  async get(topic: string, subscription: string, id: string): Promise<Replay | undefined> {
    const item = await this.table.get(replayKey(topic, subscription, id), { consistent: true });
    return item === undefined ? undefined : parseItem(replaySchema, item, 'replay');
  }

  async list(topic: string, subscription: string): Promise<Replay[]> {
    const items = await this.table.queryPartition(topicPk(topic), `REPLAY#${lower(subscription)}#`);
    return items
      .map((item) => parseItem(replaySchema, item, 'replay'))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  async advance(
    replay: Replay,
    from: string | undefined,
    page: ReplayPageProgress,
    now: Date,
  ): Promise<boolean> {
    const updated = await this.table.updateIf(
      replayKey(replay.topic, replay.subscription, replay.id),
      'SET #cursor = :to, updatedAt = :now ADD #found :found, #queued :queued',
      {
        ConditionExpression:
          from === undefined ? 'attribute_exists(pk) AND attribute_not_exists(#cursor)' : '#cursor = :from',
        // `found` is a word DynamoDB reserves: every name goes by placeholder.
        ExpressionAttributeNames: {
          '#cursor': 'cursor',
          '#found': 'found',
          '#queued': 'queued',
        },
        ExpressionAttributeValues: {
          ':to': page.cursor,
          ':now': now.toISOString(),
          ':found': page.found,
          ':queued': page.queued,
          ...(from === undefined ? {} : { ':from': from }),
        },
      },
    );
    return updated;
  }

  async end(
    replay: Replay,
    state: 'Completed' | 'Cancelled' | 'Failed',
    now: Date,
    reason?: string,
  ): Promise<boolean> {
    return this.table.updateIf(
      replayKey(replay.topic, replay.subscription, replay.id),
      `SET #state = :state, updatedAt = :now, #ttl = :ttl${reason === undefined ? '' : ', reason = :reason'}`,
      {
        ConditionExpression: '#state = :running',
        ExpressionAttributeNames: { '#state': 'state', '#ttl': TABLE.ttlAttribute },
        ExpressionAttributeValues: {
          ':state': state,
          ':now': now.toISOString(),
          ':ttl': Math.ceil(now.getTime() / 1000) + ENDED_REPLAY_DAYS * 86_400,
          ':running': 'Running',
          ...(reason === undefined ? {} : { ':reason': reason }),
        },
      },
    );
  }

  async addDelivered(topic: string, subscription: string, id: string, events: number): Promise<void> {
    await this.table.updateIf(replayKey(topic, subscription, id), 'ADD #delivered :n', {
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#delivered': 'delivered' },
      ExpressionAttributeValues: { ':n': events },
    });
  }
}
