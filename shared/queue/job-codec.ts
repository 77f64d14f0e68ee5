/**
 * Jobs on the wire: how events for one subscription are packed into SQS message bodies, and read
 * back with the one schema that defines them (`shared/domain/delivery.ts`, chosen by the job's
 * kind in `job-kinds.ts`). Packing many events per message is what keeps SQS requests per event
 * far below one. Messages of an earlier format are still read, by that format's schemas
 * (`domain/job-format-1.ts`), as jobs to upgrade (`delivery/job-upgrade.ts`); nothing writes them.
 */
import { createHash } from 'node:crypto';
import { type QueueKey, SQS_LIMITS } from '../config/resources';
import {
  type BacklogTickJob,
  type DeadLetterTarget,
  type DeliveryItem,
  type DeliveryJob,
  type DeliveryTarget,
  type EndedDelivery,
  type EndedJob,
  type FanOutJob,
  type FanOutTarget,
  JOB_FORMAT_VERSION,
  JOB_SCHEMAS,
  type OrderedJob,
  type QueuedJob,
  type StoredFanOutJob,
  type StoreJob,
  type TopicRef,
  type ValidationJob,
} from '../domain/delivery';
import {
  FORMAT_1_SCHEMAS,
  FORMAT_1_VERSION,
  type FormatOneFanOutJob,
  type FormatOneJob,
} from '../domain/job-format-1';
import { topicIdOf, topicRefOf } from '../domain/names';
import { malformedMessage } from '../platform/zod-issues';
import { claimedKind, type JobKind, jobSubscriptionOf, jobTopicOf } from './job-kinds';

/**
 * Target size of one job message. SQS bills each 64 KiB of payload as a request, so larger
 * messages don't save requests; 256 KiB keeps ten messages (one Lambda batch) well inside the
 * 6 MB invocation payload while packing hundreds of typical events per message.
 */
export const JOB_TARGET_BYTES = 256 * 1024;

/** Room kept around one item for a job's envelope (an ended-delivery envelope and wrapper included); under 650 bytes at most (measured in job-codec.test.ts). */
export const JOB_ENVELOPE_RESERVE_BYTES = 2048;

/** The largest event (serialized) that fits in a job message on its own. */
export const MAX_QUEUED_EVENT_BYTES = SQS_LIMITS.maxMessageBytes - JOB_ENVELOPE_RESERVE_BYTES;

/** What a delivery job's messages say besides their events. */
export type DeliveryJobHead = Pick<DeliveryJob, 'target' | 'dueAt'>;

/**
 * Characters some SQS implementations refuse in a message although JSON allows them: everything
 * beyond U+FFFF (emoji, many CJK and math letters; the local emulator rejects them) and U+FFFE and
 * U+FFFF (refused by SQS itself). JSON.stringify already escapes control characters and lone
 * surrogates.
 */
const SQS_UNSAFE = /[\uFFFE\uFFFF]|[\u{10000}-\u{10FFFF}]/gu;
const hex4 = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * JSON text that any SQS accepts: unsafe characters are written as `\uXXXX` escapes (surrogate
 * pairs beyond U+FFFF). Lossless: `JSON.parse` gives back exactly the same string values. Only
 * valid for JSON text, where such characters can occur only inside string literals.
 */
export const sqsSafeJson = (json: string): string =>
  json.replace(SQS_UNSAFE, (char) =>
    char.length === 2 ? hex4(char.charCodeAt(0)) + hex4(char.charCodeAt(1)) : hex4(char.charCodeAt(0)),
  );

/**
 * The UTF-8 bytes a string takes in a job body: `sqsSafeJson(JSON.stringify(text))`, quotes
 * included. Printable ASCII (most event text) is counted in one pass: one byte a character, two
 * for a double quote or a backslash. Anything else (control characters, non-ASCII) is measured
 * the long way, so the count is always exact.
 */
export function queuedStringBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return Buffer.byteLength(sqsSafeJson(JSON.stringify(text)), 'utf8');
    bytes += code === 0x22 || code === 0x5c ? 2 : 1;
  }
  return bytes;
}

/** A delivery item in its largest state (attempt counts, outcome, times), for a given event. */
const largestItem = (event: Pick<DeliveryItem, 'eventId' | 'dataVersion' | 'eventJson'>): DeliveryItem => ({
  deliveryId: `${'f'.repeat(36)}.${Number.MAX_SAFE_INTEGER}`,
  ...event,
  attempts: Number.MAX_SAFE_INTEGER,
  publishedAt: Number.MAX_SAFE_INTEGER,
  lastOutcome: 'InvalidAzureFunctionDestination',
  lastHttpStatus: 599,
  lastAttemptAt: Number.MAX_SAFE_INTEGER,
});

/**
 * The most bytes a delivery item for this event can take in a queued job, whatever its later
 * state (attempt counts, outcome, times): the event's text as an SQS-safe JSON string plus the
 * id and data version it also carries. Publish refuses an event for which this exceeds
 * {@link MAX_QUEUED_EVENT_BYTES}, so every accepted event fits a message, also when it ends.
 * The item's fixed part is measured once; its three strings are counted without being copied
 * ({@link queuedStringBytes}).
 */
export const queuedItemBytes = (event: Pick<DeliveryItem, 'eventId' | 'dataVersion' | 'eventJson'>): number =>
  LARGEST_ITEM_BYTES_BUT_STRINGS +
  queuedStringBytes(event.eventId) +
  queuedStringBytes(event.dataVersion) +
  queuedStringBytes(event.eventJson);

/** The bytes of the largest item with an empty id, data version and event text, less those three empty strings. */
const LARGEST_ITEM_BYTES_BUT_STRINGS =
  Buffer.byteLength(
    sqsSafeJson(JSON.stringify(largestItem({ eventId: '', dataVersion: '', eventJson: '' }))),
    'utf8',
  ) -
  3 * queuedStringBytes('');

/**
 * The text of a job message up to its list's opening bracket: the job itself, written by the same
 * `JSON.stringify` as everything else, with an empty list cut open.
 */
function headOf(job: Omit<DeliveryJob, 'items'> & { items: [] }): string;
function headOf(job: Omit<EndedJob, 'ended'> & { ended: [] }): string;
function headOf(job: Omit<StoreJob, 'items'> & { items: [] }): string;
function headOf(job: Omit<OrderedJob, 'items'> & { items: [] }): string;
function headOf(job: object): string {
  const text = sqsSafeJson(JSON.stringify(job));
  return text.slice(0, -2); // "]}"
}

const deliveryHead = ({ target, dueAt }: DeliveryJobHead): string =>
  headOf({
    v: JOB_FORMAT_VERSION,
    target,
    ...(dueAt === undefined ? {} : { dueAt: Math.ceil(dueAt) }),
    items: [],
  });

const endedHead = (target: DeadLetterTarget): string =>
  headOf({ v: JOB_FORMAT_VERSION, kind: 'ended', target, ended: [] });

/**
 * Packs items into job message bodies of at most `targetBytes` each (UTF-8). An item bigger than
 * the target still goes, alone in its message; one that can't fit SQS's limit at all throws
 * (publish rejects such events up front, so this is a guard, not a path).
 */
export function packJobs(
  head: DeliveryJobHead,
  items: readonly DeliveryItem[],
  targetBytes = JOB_TARGET_BYTES,
): string[] {
  return pack(deliveryHead(head), items, (item) => item.deliveryId, targetBytes);
}

/** What a `store` job says besides its events: its target, due time and why it is stored. */
export type StoreJobHead = Pick<StoreJob, 'target' | 'dueAt' | 'heldBy'>;

const storeHead = ({ target, dueAt, heldBy }: StoreJobHead): string =>
  headOf({ v: JOB_FORMAT_VERSION, kind: 'store', target, dueAt: Math.ceil(dueAt), heldBy, items: [] });

/** Packs items into `store` job bodies for the backlog queue, like {@link packJobs}. */
export function packStoreJobs(
  head: StoreJobHead,
  items: readonly DeliveryItem[],
  targetBytes = JOB_TARGET_BYTES,
): string[] {
  return pack(storeHead(head), items, (item) => item.deliveryId, targetBytes);
}

/**
 * Packs one key's events of one publish for an ordered subscription, in their order, into
 * `ordered` job bodies for the ordered queue, like {@link packJobs} (several only when they
 * exceed a message: they then go in order, in the key's group).
 */
export function packOrderedJobs(
  head: Pick<OrderedJob, 'target' | 'key'>,
  items: readonly DeliveryItem[],
  targetBytes = JOB_TARGET_BYTES,
): string[] {
  const text = headOf({
    v: JOB_FORMAT_VERSION,
    kind: 'ordered',
    target: head.target,
    key: head.key,
    items: [],
  });
  return pack(text, items, (item) => item.deliveryId, targetBytes);
}

/** Packs ended deliveries for the dead-letter step, like {@link packJobs}. */
export function packEndedJobs(
  target: DeadLetterTarget,
  ended: readonly EndedDelivery[],
  targetBytes = JOB_TARGET_BYTES,
): string[] {
  return pack(endedHead(target), ended, (entry) => entry.item.deliveryId, targetBytes);
}

/** Whether one ended delivery fits an SQS message for this target (alone in it). */
export const endedDeliveryFits = (target: DeadLetterTarget, entry: EndedDelivery): boolean =>
  Buffer.byteLength(endedHead(target), 'utf8') +
    2 +
    Buffer.byteLength(sqsSafeJson(JSON.stringify(entry)), 'utf8') <=
  SQS_LIMITS.maxMessageBytes;

function pack<T>(
  head: string,
  entries: readonly T[],
  idOf: (entry: T) => string,
  targetBytes: number,
): string[] {
  const headBytes = Buffer.byteLength(head, 'utf8') + 2; // "]}"
  const bodies: string[] = [];
  let parts: string[] = [];
  let size = headBytes;
  for (const entry of entries) {
    const text = sqsSafeJson(JSON.stringify(entry));
    const itemBytes = Buffer.byteLength(text, 'utf8');
    if (headBytes + itemBytes > SQS_LIMITS.maxMessageBytes) {
      throw new RangeError(
        `delivery item ${idOf(entry)} needs ${headBytes + itemBytes} bytes; an SQS message holds at most ${SQS_LIMITS.maxMessageBytes}`,
      );
    }
    if (parts.length > 0 && size + 1 + itemBytes > targetBytes) {
      bodies.push(`${head}${parts.join(',')}]}`);
      parts = [];
      size = headBytes;
    }
    size += parts.length > 0 ? 1 + itemBytes : itemBytes;
    parts.push(text);
  }
  if (parts.length > 0) bodies.push(`${head}${parts.join(',')}]}`);
  return bodies;
}

/**
 * A job of an earlier format that this release still reads (`domain/job-format-1.ts`). It is never
 * worked as it is: the function that receives it turns it into the job of the current format
 * first (`delivery/job-upgrade.ts`), which may take reading its subscription.
 */
export type LegacyJob = FormatOneJob;

/** The earlier-format job of a kind (the kinds keep their names across formats). */
export type LegacyJobOfKind<K extends JobKind> = Extract<LegacyJob, { kind?: K }>;

/** A job message as read: a job of the current format, or one of an earlier format to upgrade. */
export type ReadJob = QueuedJob | LegacyJob;

/** Whether a job read is of an earlier format (to be upgraded before it is worked). */
export const isLegacyJob = (job: ReadJob): job is LegacyJob => job.v !== JOB_FORMAT_VERSION;

/** Reads a format-1 job by the schema of the kind it claims; throws with the reason when it isn't one. */
function readFormatOne(json: object): LegacyJob {
  const kind = (json as { kind?: unknown }).kind;
  if (typeof kind === 'string' && !Object.hasOwn(FORMAT_1_SCHEMAS, kind)) {
    throw new Error(
      `job message of format version ${FORMAT_1_VERSION} claims kind '${kind}', which that format never had`,
    );
  }
  const schema =
    FORMAT_1_SCHEMAS[typeof kind === 'string' ? (kind as keyof typeof FORMAT_1_SCHEMAS) : 'deliver'];
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new Error(malformedMessage(`job message of format version ${FORMAT_1_VERSION}`, parsed.error));
  return parsed.data;
}

/**
 * The earlier formats this release still reads, by version, each with its reader. A release that
 * raises the format freezes the schemas of the one it replaces (as `domain/job-format-1.ts`), adds
 * its reader here and its upgrade to `delivery/job-upgrade.ts`.
 */
const EARLIER_FORMATS: ReadonlyMap<unknown, (json: object) => LegacyJob> = new Map([
  [FORMAT_1_VERSION, readFormatOne],
]);

const READ_VERSIONS = [...EARLIER_FORMATS.keys(), JOB_FORMAT_VERSION].join(' and ');

/**
 * Reads a job message body of any format this release reads: the current one by the schema of
 * the kind it claims (`job-kinds.ts`), an earlier one by that format's schemas (a
 * {@link LegacyJob}, to upgrade before it is worked). Throws with the reason when it is neither.
 * Pure: upgrading, which may read the subscription, is the receiving function's.
 */
export function readJobMessage(body: string): ReadJob {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new Error(`job message is not JSON: ${(error as Error).message}`);
  }
  const version = (json as { v?: unknown } | null)?.v;
  if (version !== JOB_FORMAT_VERSION) {
    const readEarlier = EARLIER_FORMATS.get(version);
    if (readEarlier !== undefined && typeof json === 'object' && json !== null) return readEarlier(json);
    throw new Error(
      `job message of format version ${JSON.stringify(version)}; this release reads versions ${READ_VERSIONS} (see docs/deploy.md, "Upgrading")`,
    );
  }
  const parsed = JOB_SCHEMAS[claimedKind(json)].safeParse(json);
  if (!parsed.success) throw new Error(malformedMessage('job message', parsed.error));
  return parsed.data;
}

/**
 * Reads a job message body of the current format, as this release writes it (its own steps'
 * messages, tools and tests); throws with the reason when it isn't one, and for a job of an
 * earlier format, which only the consumers read ({@link readJobMessage}) and upgrade.
 */
export function parseJob(body: string): QueuedJob {
  const job = readJobMessage(body);
  if (isLegacyJob(job)) {
    throw new Error(
      `job message of format version ${job.v}, an earlier format: read it with readJobMessage and upgrade it (delivery/job-upgrade.ts)`,
    );
  }
  return job;
}

/**
 * Reads a stored fan-out's body (from the fan-out bucket), of the current format or, stored before
 * an upgrade, of an earlier one; throws with the reason when it isn't a fan-out.
 */
export function readFanOut(body: string): FanOutJob | FormatOneFanOutJob {
  const job = readJobMessage(body);
  if (job.kind !== 'fanout') throw new Error(`a stored fan-out holds a ${job.kind ?? 'deliver'} job`);
  return job;
}

/** Reads a stored fan-out's body of the current format; throws with the reason when it isn't one. */
export function parseFanOut(body: string): FanOutJob {
  const job = readFanOut(body);
  if (isLegacyJob(job)) throw new Error(`a stored fan-out of format version ${job.v}, an earlier format`);
  return job;
}

/** A subscription a fan-out goes to: its target, and the indexes of the events it matched. */
export interface FanOutDestination {
  target: DeliveryTarget;
  matched: readonly number[];
}

/**
 * The body of one fan-out message: every event once, and per subscription the events it matched.
 * The caller sends it only when it fits one SQS message ({@link fitsOneMessage}); otherwise it is
 * stored and a {@link storedFanOutBody} is sent in its place. The targets name the topic once.
 */
export function packFanOut(
  topic: TopicRef,
  items: readonly DeliveryItem[],
  destinations: readonly FanOutDestination[],
): string {
  const job: FanOutJob = {
    v: JOB_FORMAT_VERSION,
    kind: 'fanout',
    topic,
    items: [...items],
    targets: destinations.map(
      ({ target: { topic: _topic, ...target }, matched }): FanOutTarget => ({
        ...target,
        matched: [...matched],
      }),
    ),
  };
  return sqsSafeJson(JSON.stringify(job));
}

/** The message that stands for a fan-out stored under `key`. */
export const storedFanOutBody = (topic: TopicRef, key: string, bytes: number): string =>
  sqsSafeJson(
    JSON.stringify({
      v: JOB_FORMAT_VERSION,
      kind: 'stored-fanout',
      topic,
      key,
      bytes,
    } satisfies StoredFanOutJob),
  );

/** Whether a message body fits one SQS message. */
export const fitsOneMessage = (body: string): boolean =>
  Buffer.byteLength(body, 'utf8') <= SQS_LIMITS.maxMessageBytes;

/** The delivery jobs a fan-out stands for: one per target, each with the events it matched. */
export function expandFanOut(job: FanOutJob): DeliveryJob[] {
  return job.targets.map(({ matched, ...target }) => ({
    v: JOB_FORMAT_VERSION,
    target: { topic: job.topic, ...target },
    items: matched.map((index) => job.items[index] as DeliveryItem),
  }));
}

/** The message body of a validation job. */
export const validationJobBody = (job: Omit<ValidationJob, 'v' | 'kind'>): string =>
  sqsSafeJson(JSON.stringify({ v: JOB_FORMAT_VERSION, kind: 'validate', ...job } satisfies ValidationJob));

/**
 * The queue a backlog's tick travels on: the retry queue, which delays a message by up to 15
 * minutes, as a tick needs (longer waits are armed by the sweeper).
 */
export const BACKLOG_TICK_QUEUE = 'retry' satisfies QueueKey;

/** The message body of a backlog tick: the endpoint's target and the token it must still hold. */
export const backlogTickBody = (target: DeliveryTarget, token: string): string =>
  sqsSafeJson(
    JSON.stringify({ v: JOB_FORMAT_VERSION, kind: 'backlog-tick', target, token } satisfies BacklogTickJob),
  );

/**
 * The longest `MessageGroupId` SQS takes, and the characters it allows in one: letters, digits
 * and ASCII punctuation.
 */
const MAX_GROUP_ID_LENGTH = 128;
const GROUP_ID_CHARACTERS = /^[!-~]+$/;

/**
 * The tenant a message belongs to, as SQS fair queues see it (`MessageGroupId` on a standard
 * queue): the subscription it is for, `<topic id>/<subscription>`, or, for a message that names
 * several subscriptions (a fan-out), its topic, `<topic id>/*`. The `*` keeps a namespace topic
 * (`<namespace>/<topic>/*`) apart from a classic topic's subscription of the same two names. Names
 * are case-insensitive, so the tenant is lower-cased. One too long for SQS (a namespace topic's
 * subscription can reach 166 characters) or holding characters SQS refuses becomes `#` and the
 * SHA-256 of the tenant in hex: no name holds a `#`, so it never meets a readable one.
 */
export function messageGroupId(topic: TopicRef, subscription?: string): string {
  const tenant = `${topicIdOf(topic)}/${subscription ?? '*'}`.toLowerCase();
  if (tenant.length <= MAX_GROUP_ID_LENGTH && GROUP_ID_CHARACTERS.test(tenant)) return tenant;
  return `#${createHash('sha256').update(tenant, 'utf8').digest('hex')}`;
}

/**
 * The FIFO group of an ordered subscription's events with one key: SQS hands a group's messages
 * out one at a time, in the order they were sent. The subscription's uid is part of it, so a
 * subscription made again under the same name starts its keys afresh. A hash (SQS takes 128
 * characters of a limited set; keys are any text).
 */
export const orderedGroupId = (
  target: Pick<DeliveryTarget, 'topic' | 'subscription' | 'uid'>,
  key: string,
): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        topicIdOf(target.topic).toLowerCase(),
        target.subscription.toLowerCase(),
        target.uid ?? '',
        key,
      ]),
      'utf8',
    )
    .digest('base64url');

/** The message group of every message for one subscription (delivery, store, ended, tick, validation jobs). */
export const targetGroupId = (target: Pick<DeliveryTarget, 'topic' | 'subscription'>): string =>
  messageGroupId(target.topic, target.subscription);

/**
 * The message group a job belongs in, read from the job itself: its subscription, or its topic
 * when it names several (`jobSubscriptionOf`). Senders compute the same from what
 * they pack; this is the rule they are held to. A job of an earlier format is in the group its
 * upgrade's messages will be in.
 */
export function messageGroupOf(job: ReadJob): string {
  if (!isLegacyJob(job) && job.kind === 'ordered') return orderedGroupId(job.target, job.key);
  if (isLegacyJob(job)) {
    return messageGroupId(topicRefOf(job.topic), 'subscription' in job ? job.subscription : undefined);
  }
  return messageGroupId(jobTopicOf(job), jobSubscriptionOf(job));
}
