/**
 * The operator side of dead letters: list a subscription's dead-letter blobs, show one, and
 * replay their events to the subscription as new deliveries.
 *
 * The HTTP layer (`api.ts`) finds the subscription and hands it over with the parsed request;
 * everything here works on injected ports (the bucket, the delivery queue, a clock, an id
 * source), and the parsing and selection rules are pure functions. Records and events stay JSON
 * text from the blob to the queue (`platform/json-text.ts`): nothing is parsed and written again,
 * so an event is replayed exactly as it was dead-lettered, big numbers included.
 */

import { type ZodError, z } from 'zod';
import {
  type DeadLetterFormat,
  deadLetterFormatOf,
  deadLetterPrefix,
  deadLetterScopeOf,
  eventOfRecord,
  reasonNameOf,
} from '../delivery/rules/dead-letter-layout';
import { DELIVERY_PROFILES } from '../delivery/rules/profiles';
import type { DeliveryItem } from '../domain/delivery';
import { DEAD_LETTER_REASONS, type DeadLetterReason, type Subscription } from '../domain/model';
import { splitNamespaceTopicId, topicResourceId } from '../domain/names';
import { ApiError, badRequest, notFound } from '../http/errors';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import { mapWithConcurrency } from '../platform/concurrency';
import { arrayElements, objectMembers } from '../platform/json-text';
import { firstIssue } from '../platform/zod-issues';
import { packJobs } from '../queue/job-codec';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { DeadLetterBlobInfo, DeadLetterBucket, ReplayMarker } from '../storage/dead-letter-bucket';

/** The bucket operations the service uses (a fake in unit tests). */
export type DeadLetterBlobs = Pick<
  DeadLetterBucket,
  'list' | 'read' | 'stampOf' | 'replayedAt' | 'replayMarker' | 'markReplayed'
>;

export interface DeadLetterServiceDeps {
  bucket: DeadLetterBlobs;
  /** Where replayed events go: the `delivery` queue, as if just published. */
  queue: JobQueue;
  clock: Pick<Clock, 'now'>;
  /** A new unique id (one per replay call; delivery ids are `replay-<id>.<n>`). */
  newId: () => string;
  /** Where replayed events are counted (`ReplayedEventCount`). */
  metrics?: MetricBuffer;
}

/** Explicit keys one replay call may name. */
export const MAX_REPLAY_KEYS = 100;
/**
 * Blobs one replay call may select. A call reads each of them, so this keeps a call inside the
 * API's 29 s; `gridwire deadletters replay` makes one call per blob.
 */
export const MAX_REPLAY_BLOBS = 500;
/** Blobs read (and replayed) at once within one call. */
export const BLOB_CONCURRENCY = 8;

/** Written-at window of a selection, epoch ms: `since` inclusive, `until` exclusive. */
export interface TimeWindow {
  since?: number;
  until?: number;
}

export interface ReplayRequest {
  window: TimeWindow;
  /** Exactly these blobs (instead of a window). */
  keys?: string[];
  /** Only records dead-lettered for one of these reasons (default: all). */
  reasons?: DeadLetterReason[];
  /** Count only: read and select, queue nothing, mark nothing. */
  dryRun: boolean;
  /** Replay blobs already replayed too. */
  force: boolean;
}

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

/** What a replay did (or, with `dryRun`, would do) to one blob. */
export interface BlobReplay {
  key: string;
  /** Records in the blob; absent for a blob skipped without being read. */
  records?: number;
  /**
   * Of those, how many belong to another topic (a subscription of the same name on another topic
   * writing to the same container): never replayed here. Absent when there are none.
   */
  otherTopic?: number;
  /** Of the records of the subscription's topic, how many the reason filter selected. */
  matched?: number;
  /**
   * Of the matched, how many are left out because records of their reason were replayed before
   * (without `force`); absent when none are.
   */
  alreadyReplayed?: number;
  /** Events queued from this blob (0 in a dry run). */
  queued: number;
  /**
   * Whether the blob was marked replayed after its events were queued; present only when events
   * were queued (false: a later replay sends them again).
   */
  marked?: boolean;
  /** Its previous replay, if any (epoch ms). */
  replayedAt?: number;
  /** Left alone: it was replayed before and `force` was not given. */
  skipped: boolean;
  /** Why the blob could not be (fully) replayed; absent when it was. */
  failed?: string;
}

export interface ReplayReport {
  dryRun: boolean;
  /** Blobs selected (by keys or window), skipped ones included. */
  blobsSelected: number;
  /** Records selected by the reason filter in the blobs not skipped. */
  recordsMatched: number;
  eventsQueued: number;
  /** Blobs left alone because they were replayed before (and their keys). */
  blobsSkipped: number;
  skippedKeys: string[];
  /** Named keys (or listed blobs) that no longer exist. */
  notFound: string[];
  /** Records of another topic in the blobs read (never replayed here). */
  otherTopic: number;
  /** Blobs that failed (each says why in `blobs`), and their keys. */
  blobsFailed: number;
  failedKeys: string[];
  /** Blobs whose events were queued but which could not be marked replayed. */
  unmarkedKeys: string[];
  /** Selected blobs not started because an earlier blob failed. */
  notStarted: string[];
  blobs: BlobReplay[];
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The 400 for a refused replay request or window: `<field>: <what is wrong>.` */
function refusal(error: ZodError, field?: string): ApiError {
  const first = firstIssue(error, { indexes: 'bracketed' });
  const path = [field, first?.path].filter((part) => part !== undefined && part !== '').join('.');
  const message = first?.message ?? 'invalid';
  return badRequest(path === '' ? `${message}.` : `${path}: ${message}.`);
}

/** Parses `input`, or throws the 400 naming the field of its first issue. */
function parseOrRefuse<S extends z.ZodType>(schema: S, input: unknown, field?: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw refusal(parsed.error, field);
  return parsed.data;
}

const timeMessage = (issue: { input?: unknown }) =>
  `must be an ISO 8601 time such as 2026-11-22T10:00:00Z or a date such as 2026-11-22 (got ${JSON.stringify(issue.input)})`;

/**
 * An ISO 8601 time (`2026-11-22T10:00:00Z`, an offset instead of `Z`, or a date meaning its start
 * in UTC) as epoch ms; absent, null or empty gives `undefined`.
 */
const timeSchema = z.preprocess(
  (value) => (value === null || value === '' ? undefined : value),
  z
    .string({ error: timeMessage })
    .refine((text) => ISO_8601.test(text) && !Number.isNaN(Date.parse(text)), {
      error: timeMessage,
      abort: true,
    })
    .transform((text) => Date.parse(text))
    .optional(),
);

/** `since` and `until` as parsed: epoch ms or absent. */
interface Bounds {
  since?: number | undefined;
  until?: number | undefined;
}

const windowOf = ({ since, until }: Bounds): TimeWindow => ({
  ...(since === undefined ? {} : { since }),
  ...(until === undefined ? {} : { until }),
});

/** `since` and `until`, each a time or absent. */
const windowFields = { since: timeSchema, until: timeSchema };

const sinceBeforeUntil = ({ since, until }: Bounds) =>
  since === undefined || until === undefined || since < until;

/** A written-at window: `since` before `until`, either may be absent. */
const windowSchema = z
  .object(windowFields)
  .refine(sinceBeforeUntil, { path: ['since'], error: 'must be before until' })
  .transform(windowOf);

/** An ISO 8601 time as epoch ms; absent or empty gives `undefined`. Throws a 400 naming `field`. */
export function parseTime(field: string, value: unknown): number | undefined {
  return parseOrRefuse(timeSchema, value, field);
}

/** `since` and `until` as a window; 400 if either is malformed or `since` is not before `until`. */
export function parseWindow(input: { since?: unknown; until?: unknown }): TimeWindow {
  return parseOrRefuse(windowSchema, { since: input.since, until: input.until });
}

const REPLAY_FIELDS = ['since', 'until', 'keys', 'reason', 'dryRun', 'force'] as const;

/** A replay body is a JSON object of these fields and no others (each checked by a later stage). */
const replayFieldsSchema = z.strictObject(
  Object.fromEntries(REPLAY_FIELDS.map((field) => [field, z.unknown().optional()])),
  {
    error: (issue) => {
      if (issue.code === 'invalid_type') return 'The request body must be a JSON object';
      if (issue.code === 'unrecognized_keys') {
        return `${issue.keys[0]}: unknown field; the fields are ${REPLAY_FIELDS.join(', ')}`;
      }
      return undefined;
    },
  },
);

const isReason = (name: unknown): name is DeadLetterReason =>
  (DEAD_LETTER_REASONS as readonly unknown[]).includes(name);

const reasonsMessage = (got: unknown) =>
  `must be one of ${DEAD_LETTER_REASONS.join(', ')}, or a list of them (got ${JSON.stringify(got)})`;

/** Dead-letter reasons: one name or a list of names (each kept once); absent or null gives `undefined`. */
const reasonsSchema = z.preprocess(
  (value) => (value === null || value === undefined || Array.isArray(value) ? value : [value]),
  z
    .array(z.unknown())
    .min(1, { error: (issue) => reasonsMessage(issue.input) })
    .refine((names) => names.every(isReason), {
      error: (issue) => reasonsMessage((issue.input as unknown[]).find((name) => !isReason(name))),
    })
    .transform((names) => [...new Set(names as DeadLetterReason[])])
    .nullish(),
);

/** Dead-letter reasons from `reason`: one name or a list of names. */
export function parseReasons(value: unknown): DeadLetterReason[] | undefined {
  return parseOrRefuse(reasonsSchema, value, 'reason') ?? undefined;
}

const keysMessage = `must be a list of 1 to ${MAX_REPLAY_KEYS} blob keys`;
const blobKeyMessage = 'must be a blob key (a non-empty string)';

/** `keys`: blob keys, each kept once; absent or null gives `undefined`. Not with a window. */
const keysSchema = z
  .object({
    ...windowFields,
    keys: z
      .array(z.unknown(), { error: keysMessage })
      .min(1, { error: keysMessage })
      .max(MAX_REPLAY_KEYS, { error: keysMessage })
      .pipe(z.array(z.string({ error: blobKeyMessage }).min(1, { error: blobKeyMessage })))
      .transform((keys) => [...new Set(keys)])
      .nullish(),
  })
  .refine(({ keys, since, until }) => keys == null || (since === undefined && until === undefined), {
    path: ['keys'],
    error: 'give either keys or since/until, not both',
  });

const flagSchema = z.boolean({ error: 'must be true or false' }).nullish();

/** `reason`, `dryRun` and `force`. */
const replayOptionsSchema = z.object({ reason: reasonsSchema, dryRun: flagSchema, force: flagSchema });

/**
 * The replay request body `{since?, until?, keys?, reason?, dryRun?, force?}`; 400 naming the
 * field for anything else. `keys` and `since`/`until` exclude each other. Read in stages, so a
 * body with several faults is refused for the first of them in this order: the body's shape and
 * fields, the window, the keys, the reasons and flags.
 */
export function parseReplayRequest(body: unknown): ReplayRequest {
  parseOrRefuse(replayFieldsSchema, body);
  const window = parseOrRefuse(windowSchema, body);
  const { keys } = parseOrRefuse(keysSchema, body);
  const { reason, dryRun, force } = parseOrRefuse(replayOptionsSchema, body);
  return {
    window,
    ...(keys == null ? {} : { keys }),
    ...(reason == null ? {} : { reasons: reason }),
    dryRun: dryRun ?? false,
    force: force ?? false,
  };
}

/** Where a subscription's dead letters are and how their records are written. */
export interface DeadLetterPlace {
  prefix: string;
  format: DeadLetterFormat;
}

/**
 * The subscription's dead-letter place, by the same rules the writer follows: the format its
 * profile gives (`namespace` for namespace subscriptions) and the key layout of that format. 400
 * naming the field when the subscription has no dead-letter destination.
 */
export function deadLetterPlace(subscription: Subscription): DeadLetterPlace {
  if (subscription.deadLetter === undefined) {
    throw badRequest(
      `properties.deadLetterDestination: the event subscription '${subscription.name}' has no dead-letter destination, so it has no dead letters.`,
    );
  }
  const format = deadLetterFormatOf(DELIVERY_PROFILES[subscription.deliveryProfile], subscription);
  return {
    prefix: deadLetterPrefix(
      subscription.deadLetter.container,
      deadLetterScopeOf(format, splitNamespaceTopicId(subscription.topic), subscription.name),
    ),
    format,
  };
}

/** What follows the prefix in a blob key: `<yyyy>/<M>/<d>/<H>/<name>.json`. */
const BLOB_KEY_TAIL = /^\d{4}\/\d{1,2}\/\d{1,2}\/\d{1,2}\/[^/]+\.json$/;

/**
 * Whether `key` has the shape of a blob key under the place's prefix. The folders are checked
 * too: a namespace `shop` writes under `<container>/shop/...`, which a classic subscription
 * `SHOP` would otherwise take for its own prefix.
 */
export const isBlobKey = (place: DeadLetterPlace, key: string): boolean =>
  key.startsWith(place.prefix) && BLOB_KEY_TAIL.test(key.slice(place.prefix.length));

/** A blob key of this subscription; 400 naming `field` otherwise. */
export function checkKey(place: DeadLetterPlace, key: string, field: string): string {
  if (!isBlobKey(place, key)) {
    throw badRequest(
      `${field}: '${key}' is not a dead-letter blob of this event subscription (its keys are '${place.prefix}<yyyy>/<M>/<d>/<H>/<name>.json').`,
    );
  }
  return key;
}

/** Topic names are case-insensitive. */
const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether a blob under the subscription's prefix holds the subscription's dead letters, all of
 * them: the topic stamped on it is the subscription's topic. A blob written before stamps (no
 * `stamp`) is the subscription's when its records say so: namespace keys name the namespace
 * topic itself, so every such blob under the prefix is its; any other blob only when it has
 * records and every one of them carries the subscription's `topic`. CloudEvents records name
 * their publisher's `source`, not the topic, so an unstamped CloudEvents blob belongs to no
 * subscription (it is read from the bucket directly). A blob is shown whole or not at all.
 */
export function blobOfTopic(
  format: DeadLetterFormat,
  topic: string,
  stamp: string | undefined,
  records: () => readonly string[],
): boolean {
  if (stamp !== undefined) return sameTopic(stamp, topic);
  if (format === 'namespace') return true;
  if (format === 'CloudEventSchemaV1_0') return false;
  const recorded = records();
  return recorded.length > 0 && recorded.every((record) => recordOfTopic(format, record, topic));
}

const unprocessable = (message: string) => new ApiError(422, 'UnprocessableEntity', message);

/** A blob's records as JSON texts; 422 if the blob is not a JSON array of objects. */
export function blobRecords(key: string, text: string): string[] {
  let parsed: unknown;
  try {
    // Parsed only to check it: the records are taken from the text.
    parsed = JSON.parse(text);
  } catch {
    throw unprocessable(`The blob '${key}' is not JSON; it cannot be shown or replayed.`);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.some((record) => typeof record !== 'object' || record === null || Array.isArray(record))
  ) {
    throw unprocessable(`The blob '${key}' is not a JSON array of records; it cannot be shown or replayed.`);
  }
  return arrayElements(text);
}

const stringMember = (objectJson: string, name: string): string | undefined => {
  const member = objectMembers(objectJson).find((candidate) => candidate.name === name);
  if (member === undefined) return undefined;
  const value: unknown = JSON.parse(member.value);
  return typeof value === 'string' ? value : undefined;
};

/** The dead-letter reason a record states (field names by format), if any. */
export function recordReason(format: DeadLetterFormat, recordJson: string): string | undefined {
  if (format === 'namespace') {
    const properties = objectMembers(recordJson).find((member) => member.name === 'deadLetterProperties');
    return properties === undefined ? undefined : stringMember(properties.value, reasonNameOf(format));
  }
  return stringMember(recordJson, reasonNameOf(format));
}

/**
 * The topic resource id a record's event carries (its `topic` member; for namespace records, the
 * event's), if any.
 */
export function recordTopic(format: DeadLetterFormat, recordJson: string): string | undefined {
  return stringMember(format === 'namespace' ? eventOfRecord(format, recordJson) : recordJson, 'topic');
}

/**
 * Whether a record's event was published to `topic` (a topic name). Keys carry no topic, so two
 * topics' subscriptions of the same name writing to one container share a prefix; a record
 * without a topic belongs to none. A CloudEvent names its publisher's `source`, not the topic, so
 * a CloudEvents record can't be told apart this way: every one under the subscription's prefix
 * counts as its own. A namespace key names the namespace topic itself, so every namespace record
 * under the prefix is the topic's.
 */
export const recordOfTopic = (format: DeadLetterFormat, recordJson: string, topic: string): boolean =>
  format === 'CloudEventSchemaV1_0' ||
  format === 'namespace' ||
  recordTopic(format, recordJson)?.toLowerCase() === topicResourceId(topic).toLowerCase();

/** The records a reason filter selects (all of them without one). */
export const matchingRecords = (
  format: DeadLetterFormat,
  records: readonly string[],
  reasons: readonly DeadLetterReason[] | undefined,
): string[] =>
  reasons === undefined
    ? [...records]
    : records.filter((record) => (reasons as readonly unknown[]).includes(recordReason(format, record)));

/**
 * A record's event as a new delivery: its text without the dead-letter fields, its own `id`,
 * no attempts yet, published (for its time to live) `now`.
 */
export function replayItem(
  format: DeadLetterFormat,
  recordJson: string,
  deliveryId: string,
  now: number,
  where = 'the record',
): DeliveryItem {
  const eventJson = eventOfRecord(format, recordJson);
  const eventId = stringMember(eventJson, 'id');
  if (eventId === undefined) throw unprocessable(`${where} has no event id; it cannot be replayed.`);
  return {
    deliveryId,
    eventId,
    dataVersion:
      stringMember(
        eventJson,
        format === 'CloudEventSchemaV1_0' || format === 'namespace' ? 'dataversion' : 'dataVersion',
      ) ?? '',
    eventJson,
    attempts: 0,
    publishedAt: now,
  };
}

/** Whether a blob read whole is the subscription's (an unreadable unstamped blob is no one's). */
const readBlobOfTopic = (
  place: DeadLetterPlace,
  subscription: Subscription,
  key: string,
  text: string,
  stamp?: string,
) => {
  try {
    return blobOfTopic(place.format, subscription.topic, stamp, () => blobRecords(key, text));
  } catch {
    return false;
  }
};

/** Lists, shows and replays a subscription's dead letters. */
export class DeadLetterService {
  constructor(private readonly deps: DeadLetterServiceDeps) {}

  /**
   * The subscription's blobs written in the window, newest first, with when each was replayed.
   * Only blobs of the subscription's topic ({@link blobOfTopic}): each blob's stamp is read (its
   * text too when it has none).
   */
  async list(subscription: Subscription, window: TimeWindow = {}): Promise<DeadLetterEntry[]> {
    const place = deadLetterPlace(subscription);
    const blobs = await this.ownBlobs(place, subscription, window);
    return mapWithConcurrency(blobs, BLOB_CONCURRENCY, async (blob) => {
      const replayedAt = blob.replayed ? await this.deps.bucket.replayedAt(blob.key) : undefined;
      return {
        key: blob.key,
        writtenAt: blob.writtenAt,
        bytes: blob.bytes,
        ...(replayedAt === undefined ? {} : { replayedAt }),
      };
    });
  }

  /**
   * One blob's records; 400 for a key of another subscription, 404 if there is no such blob or it
   * is another topic's (the same answer, so nothing of another topic shows).
   */
  async show(subscription: Subscription, key: string): Promise<DeadLetterBlobContent> {
    const place = deadLetterPlace(subscription);
    checkKey(place, key, 'key');
    const blob = await this.deps.bucket.read(key);
    if (blob === undefined || !readBlobOfTopic(place, subscription, key, blob.text, blob.topic)) {
      throw notFound(`There is no dead-letter blob '${key}' of this event subscription.`);
    }
    const replayedAt = await this.deps.bucket.replayedAt(key);
    return { key, ...(replayedAt === undefined ? {} : { replayedAt }), records: blobRecords(key, blob.text) };
  }

  /** Whether the blob `key` exists and is the subscription's (its stamp, else its records). */
  private async owns(place: DeadLetterPlace, subscription: Subscription, key: string): Promise<boolean> {
    const stamp = await this.deps.bucket.stampOf(key);
    if (stamp === undefined) return false;
    if (
      stamp.topic !== undefined ||
      place.format === 'namespace' ||
      place.format === 'CloudEventSchemaV1_0'
    ) {
      return blobOfTopic(place.format, subscription.topic, stamp.topic, () => []);
    }
    const blob = await this.deps.bucket.read(key);
    return blob !== undefined && readBlobOfTopic(place, subscription, key, blob.text, blob.topic);
  }

  /** The subscription's blobs written in the window (newest first). */
  private async ownBlobs(
    place: DeadLetterPlace,
    subscription: Subscription,
    window: TimeWindow,
  ): Promise<DeadLetterBlobInfo[]> {
    const blobs = (await this.deps.bucket.list(place.prefix, window)).filter((blob) =>
      isBlobKey(place, blob.key),
    );
    const owned = await mapWithConcurrency(blobs, BLOB_CONCURRENCY, (blob) =>
      this.owns(place, subscription, blob.key),
    );
    return blobs.filter((_, index) => owned[index]);
  }

  /**
   * Queues the selected records' events to the subscription again, as new deliveries (the
   * original event ids kept, new delivery ids, attempts 0, published now, stamped with the
   * subscription's current uid and version), blob by blob; each blob from which events were
   * queued is then marked replayed, with the reasons of the records replayed. Only records of the
   * subscription's topic are replayed (others are counted as `otherTopic`). A blob whose marker
   * covers every reason selected is skipped, and records of reasons it covers are left out,
   * unless `force`. A dry run reads and counts and changes nothing.
   *
   * Not atomic across blobs: a failing blob (unreadable, an event that cannot be queued, the
   * queue or the marker unavailable) is reported in its entry as `failed`; no further blob is
   * started, those in flight finish, and the report says what was queued and marked. Running the
   * same replay again continues where it stopped (events of a failing blob that reached the
   * queue, or of a blob queued but not marked, are delivered twice).
   */
  async replay(subscription: Subscription, request: ReplayRequest): Promise<ReplayReport> {
    const place = deadLetterPlace(subscription);
    const selected = await this.select(place, subscription, request);
    if (selected.length > MAX_REPLAY_BLOBS) {
      throw badRequest(
        `${request.keys === undefined ? 'since' : 'keys'}: ${selected.length} blobs are selected; one call replays at most ${MAX_REPLAY_BLOBS}. Narrow the window with since/until, or name the blobs with keys.`,
      );
    }
    const callId = this.deps.newId();
    let sequence = 0;
    const context: ReplayContext = {
      subscription,
      place,
      request,
      envelope: {
        topic: subscription.topic,
        subscription: subscription.name,
        ...(subscription.uid === undefined ? {} : { subscriptionUid: subscription.uid }),
        subscriptionVersion: subscription.version,
      },
      nextDeliveryId: () => {
        sequence += 1;
        return `replay-${callId}.${sequence}`;
      },
    };

    // One blob after another per worker; after the first failure no worker starts another.
    const results: Array<BlobReplay | 'notFound' | undefined> = new Array(selected.length);
    let next = 0;
    let stopped = false;
    const worker = async () => {
      while (!stopped && next < selected.length) {
        const index = next;
        next += 1;
        const result = await this.replayBlob(context, selected[index] as SelectedBlob);
        results[index] = result;
        if (result !== 'notFound' && result.failed !== undefined) stopped = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(BLOB_CONCURRENCY, selected.length) }, worker));

    const blobs = results.filter((result): result is BlobReplay => typeof result === 'object');
    const keysOf = (chosen: readonly BlobReplay[]) => chosen.map((blob) => blob.key);
    const skippedKeys = keysOf(blobs.filter((blob) => blob.skipped));
    const failedKeys = keysOf(blobs.filter((blob) => blob.failed !== undefined));
    const eventsQueued = blobs.reduce((sum, blob) => sum + blob.queued, 0);
    this.deps.metrics?.count(
      METRIC.ReplayedEventCount,
      eventsQueued,
      subscriptionDimensions(subscription.topic, subscription.name),
    );
    return {
      dryRun: request.dryRun,
      blobsSelected: selected.length,
      recordsMatched: blobs.reduce((sum, blob) => sum + (blob.skipped ? 0 : (blob.matched ?? 0)), 0),
      eventsQueued,
      blobsSkipped: skippedKeys.length,
      skippedKeys,
      notFound: selected
        .filter((_, index) => results[index] === 'notFound')
        .map((blob) => blob.key)
        .sort(),
      otherTopic: blobs.reduce((sum, blob) => sum + (blob.otherTopic ?? 0), 0),
      blobsFailed: failedKeys.length,
      failedKeys,
      unmarkedKeys: keysOf(blobs.filter((blob) => blob.marked === false)),
      notStarted: selected.filter((_, index) => results[index] === undefined).map((blob) => blob.key),
      blobs,
    };
  }

  /** Replays (or counts) one blob; any failure is answered in the entry, not thrown. */
  private async replayBlob(context: ReplayContext, blob: SelectedBlob): Promise<BlobReplay | 'notFound'> {
    const { place, request } = context;
    const { key } = blob;
    const failure = (why: string, error: unknown, counts: Partial<BlobReplay> = {}): BlobReplay => ({
      key,
      ...counts,
      queued: counts.queued ?? 0,
      skipped: false,
      failed: `${why}: ${(error as Error).message}`,
    });

    let marker: ReplayMarker | undefined;
    let text: string | undefined;
    try {
      // A named blob of another topic is answered as one that does not exist.
      if (!blob.owned && !(await this.owns(place, context.subscription, key))) return 'notFound';
      marker = blob.replayed ? await this.deps.bucket.replayMarker(key) : undefined;
      // A marker of every reason skips the blob whatever is selected: read it only to count.
      if (marker?.reasons !== undefined || marker === undefined || request.force || request.dryRun) {
        const read = await this.deps.bucket.read(key);
        if (read === undefined) return 'notFound';
        text = read.text;
      }
    } catch (error) {
      return failure('The blob could not be read', error);
    }
    const previously = marker === undefined ? {} : { replayedAt: marker.at };
    if (text === undefined) return { key, queued: 0, skipped: true, ...previously };

    let records: string[];
    let own: string[];
    let matched: string[];
    try {
      records = blobRecords(key, text);
      own = records.filter((record) => recordOfTopic(place.format, record, context.subscription.topic));
      matched = matchingRecords(place.format, own, request.reasons);
    } catch (error) {
      return failure('The blob cannot be replayed', error, previously);
    }
    // Records without a reason can only be chosen without a filter, which marks the blob.
    const covered = (record: string) => {
      if (marker === undefined) return false;
      const reason = recordReason(place.format, record);
      return marker.reasons === undefined || reason === undefined || marker.reasons.includes(reason);
    };
    const fresh = matched.filter((record) => !covered(record));
    const skipped = marker !== undefined && fresh.length === 0 && !request.force;
    const toSend = request.force ? matched : fresh;
    const counts = {
      records: records.length,
      ...(own.length === records.length ? {} : { otherTopic: records.length - own.length }),
      matched: matched.length,
      ...(skipped || toSend.length === matched.length
        ? {}
        : { alreadyReplayed: matched.length - toSend.length }),
    };
    if (skipped) {
      return request.dryRun
        ? { key, ...counts, queued: 0, skipped, ...previously }
        : { key, queued: 0, skipped, ...previously };
    }
    if (toSend.length === 0) return { key, ...counts, queued: 0, skipped, ...previously };

    // Built and packed in a dry run too, so an event that cannot be queued shows there.
    const now = this.deps.clock.now();
    let bodies: string[];
    try {
      const items = toSend.map((record) =>
        replayItem(place.format, record, context.nextDeliveryId(), now, `A record of the blob '${key}'`),
      );
      bodies = packJobs(context.envelope, items);
    } catch (error) {
      const why =
        error instanceof RangeError
          ? 'An event is too large to queue, so none of this blob was queued'
          : 'The blob cannot be replayed';
      return failure(why, error, { ...counts, ...previously });
    }
    if (request.dryRun) return { key, ...counts, queued: 0, skipped, ...previously };

    try {
      await this.deps.queue.send(
        'delivery',
        bodies.map((body) => ({ body, delaySeconds: 0 })),
      );
    } catch (error) {
      return failure(
        'Its events could not all be queued, so it is not marked as replayed (those that were queued will be delivered again by the next replay)',
        error,
        { ...counts, ...previously },
      );
    }
    const queued = { key, ...counts, queued: toSend.length, skipped, ...previously };
    const replayedReasons = toSend.flatMap((record) => recordReason(place.format, record) ?? []);
    const reasons =
      marker === undefined
        ? replayedReasons
        : marker.reasons === undefined
          ? [...DEAD_LETTER_REASONS]
          : [...marker.reasons, ...replayedReasons];
    try {
      await this.deps.bucket.markReplayed(key, now, reasons);
    } catch (error) {
      return {
        ...queued,
        marked: false,
        failed: `Its events were queued, but it could not be marked as replayed (a new replay sends them again): ${(error as Error).message}`,
      };
    }
    return { ...queued, marked: true };
  }

  /**
   * The blobs a request selects: its keys (checked against the prefix; whether each is the
   * subscription's is checked when it is replayed) or the subscription's blobs in the window.
   */
  private async select(
    place: DeadLetterPlace,
    subscription: Subscription,
    request: ReplayRequest,
  ): Promise<SelectedBlob[]> {
    if (request.keys === undefined) {
      const blobs = await this.ownBlobs(place, subscription, request.window);
      return blobs.map((blob) => ({ key: blob.key, replayed: blob.replayed, owned: true }));
    }
    request.keys.forEach((key, index) => {
      checkKey(place, key, `keys[${index}]`);
    });
    // Whether a named blob was replayed is read from its marker, not from a listing.
    return request.keys.map((key) => ({ key, replayed: true, owned: false }));
  }
}

/** A blob selected for a replay; `owned` once it is known to be the subscription's. */
type SelectedBlob = Pick<DeadLetterBlobInfo, 'key' | 'replayed'> & { owned: boolean };

/** What replaying one blob needs from its call. */
interface ReplayContext {
  subscription: Subscription;
  place: DeadLetterPlace;
  request: ReplayRequest;
  envelope: Parameters<typeof packJobs>[0];
  nextDeliveryId: () => string;
}

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** The listing as the API answers it: `{"value":[{key, writtenAt, bytes, replayedAt?}]}`. */
export const listDocument = (entries: readonly DeadLetterEntry[]) => ({
  value: entries.map((entry) => ({
    key: entry.key,
    writtenAt: iso(entry.writtenAt),
    bytes: entry.bytes,
    ...(entry.replayedAt === undefined ? {} : { replayedAt: iso(entry.replayedAt) }),
  })),
});

/**
 * A blob as the API answers it, written by hand so each record is its stored text exactly:
 * `{"key":..,"replayedAt":..,"records":[..]}`.
 */
export const blobDocumentText = (blob: DeadLetterBlobContent): string =>
  `{"key":${JSON.stringify(blob.key)}${
    blob.replayedAt === undefined ? '' : `,"replayedAt":${JSON.stringify(iso(blob.replayedAt))}`
  },"records":[${blob.records.join(',')}]}`;

/** A replay report as the API answers it (times in ISO). */
export const replayDocument = (report: ReplayReport) => ({
  ...report,
  blobs: report.blobs.map(({ replayedAt, ...blob }) => ({
    ...blob,
    ...(replayedAt === undefined ? {} : { replayedAt: iso(replayedAt) }),
  })),
});
