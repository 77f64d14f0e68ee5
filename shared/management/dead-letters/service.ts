/** The service the dead-letter routes call: list, show and replay a subscription's dead letters. */
import type { Subscription } from '../../domain/model';
import { notFound } from '../../http/errors';
import { mapWithConcurrency } from '../../platform/concurrency';
import type { DeadLetterBlobInfo } from '../../storage/dead-letter-bucket';
import { BLOB_CONCURRENCY, type DeadLetterBlobs, type DeadLetterServiceDeps } from './deps';
import { ownBlobs, readBlobOfTopic } from './ownership';
import { bucketOfPlace, checkKey, deadLetterPlace } from './place';
import { blobRecords } from './records';
import { runReplay } from './replay';
import type { ReplayRequest, TimeWindow } from './replay-request';
import type { ReplayReport } from './report';

/** A blob in a listing. */
export interface DeadLetterEntry {
  key: string;
  /** Epoch ms the blob was written. */
  writtenAt: number;
  bytes: number;
  /** Epoch ms of its last replay; absent if it never was. */
  replayedAt?: number;
}

/** One blob's records, each as its JSON text exactly as stored. */
export interface DeadLetterBlobContent {
  key: string;
  replayedAt?: number;
  records: string[];
}

/** Blobs a listing page holds at least (whole hour folders, so a page may hold more). */
export const DEAD_LETTER_PAGE_SIZE = 100;

/** Which page: its size, and (`after`, a `nextPage` answered before) where the last one ended. */
export interface DeadLetterPageRequest {
  size?: number;
  /** The start (epoch ms) of the oldest hour folder of the page before. */
  after?: number;
}

/** A page of a listing, and where the next one starts when there may be one. */
export interface DeadLetterPage {
  entries: DeadLetterEntry[];
  nextPage?: number;
}

/** Lists, shows and replays a subscription's dead letters. */
export class DeadLetterService {
  constructor(private readonly deps: DeadLetterServiceDeps) {}

  /**
   * One page of the subscription's blobs in the window, newest first, with when each was replayed:
   * only blobs of the subscription's topic (each blob's stamp is read, its text too when it has
   * none). A page is whole hour folders, newest
   * first, until the page holds at least `size` blobs, so only the folders of the page are read,
   * however many older ones there are. `page` (a `nextPage` answered before) goes on below the
   * folders already listed; `nextPage` is absent once there is nothing older in the window.
   */
  async listPage(
    subscription: Subscription,
    window: TimeWindow = {},
    page: DeadLetterPageRequest = {},
  ): Promise<DeadLetterPage> {
    const place = deadLetterPlace(subscription);
    const bucket = bucketOfPlace(place, this.deps);
    const size = page.size ?? DEAD_LETTER_PAGE_SIZE;
    const below = page.after ?? Number.POSITIVE_INFINITY;
    const folders = bucket.hourFolders(place.prefix, {
      ...(window.since === undefined ? {} : { since: window.since }),
      until: Math.min(window.until ?? Number.POSITIVE_INFINITY, below),
    });
    const entries: DeadLetterEntry[] = [];
    for await (const folder of folders) {
      const blobs = await ownBlobs(bucket, place, subscription, window, folder.prefix);
      entries.push(...(await entriesOf(bucket, blobs)));
      if (entries.length >= size) return { entries, nextPage: folder.hourStart };
    }
    return { entries };
  }

  /**
   * One blob's records; 400 for a key of another subscription, 404 if there is no such blob or it
   * is another topic's (the same answer, so nothing of another topic shows).
   */
  async show(subscription: Subscription, key: string): Promise<DeadLetterBlobContent> {
    const place = deadLetterPlace(subscription);
    checkKey(place, key, 'key');
    const bucket = bucketOfPlace(place, this.deps);
    const blob = await bucket.read(key);
    if (blob === undefined || !readBlobOfTopic(place, subscription, key, blob)) {
      throw notFound(`There is no dead-letter blob '${key}' of this event subscription.`);
    }
    const replayedAt = await bucket.replayedAt(key);
    return { key, ...(replayedAt === undefined ? {} : { replayedAt }), records: blobRecords(key, blob.text) };
  }

  /** Replays records as new deliveries and marks their blobs replayed ({@link runReplay}). */
  replay(subscription: Subscription, request: ReplayRequest): Promise<ReplayReport> {
    return runReplay(this.deps, subscription, request);
  }
}

/** Blobs as listed: with when each was replayed, read from its marker when it has one. */
function entriesOf(
  bucket: DeadLetterBlobs,
  blobs: readonly DeadLetterBlobInfo[],
): Promise<DeadLetterEntry[]> {
  return mapWithConcurrency(blobs, BLOB_CONCURRENCY, async (blob) => {
    const replayedAt = blob.replayed ? await bucket.replayedAt(blob.key) : undefined;
    return {
      key: blob.key,
      writtenAt: blob.writtenAt,
      bytes: blob.bytes,
      ...(replayedAt === undefined ? {} : { replayedAt }),
    };
  });
}
