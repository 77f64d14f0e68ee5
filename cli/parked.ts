/**
 * `gridwire parked list|redrive`: messages a queue's consumer failed on `maxReceiveCount` times
 * sit in that queue's redrive queue. `list` peeks at them without consuming them;
 * `redrive` moves them back to the queue they came from.
 *
 * Works against anything that speaks the SQS API, including the local stack's emulator: the
 * move is receive, send, delete (no StartMessageMoveTask).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { type QueueKey, SQS_LIMITS } from '../shared/config/resources';
import { batchForSend } from '../shared/queue/sqs-job-queue';
import { CliError, explainAwsError } from './errors';
import { dataDirOption, integer } from './options';
import {
  localTargets,
  missingQueues,
  parseQueueKey,
  QUEUE_KEYS,
  type QueueTarget,
  type QueueTargets,
  selectQueues,
  stackTargets,
} from './targets';

/** Seconds a peeked message stays hidden if making it visible again fails. */
export const PEEK_VISIBILITY_SECONDS = 30;
/** Seconds a message being moved stays hidden from other readers of the redrive queue. */
export const REDRIVE_VISIBILITY_SECONDS = 60;
/** Event ids shown per message. */
export const EVENT_IDS_SHOWN = 3;
export const DEFAULT_LIST_LIMIT = 10;

/** What a parked job carries, read leniently (a malformed job is still shown). */
export interface ParkedJob {
  /** `deliver`: events to deliver; `ended`: deliveries on their way to the dead-letter step. */
  kind: 'deliver' | 'ended';
  topic: string;
  subscription: string;
  events: number;
  /** The first few event ids. */
  eventIds: string[];
}

export interface ParkedMessage {
  messageId: string;
  /** When the message was first sent (ISO time). */
  sentAt?: string;
  /** When it was first received (ISO time). */
  firstReceivedAt?: string;
  /** Receives so far, including the failed ones and this peek. */
  receiveCount?: number;
  bytes: number;
  /** Absent when the body is not a delivery job (shown by size only). */
  job?: ParkedJob;
}

export interface ParkedQueueReport {
  queue: QueueKey;
  redriveUrl: string;
  /** Messages waiting in the redrive queue (ApproximateNumberOfMessages). */
  parked: number;
  /** Messages hidden right now by someone else's peek or redrive in progress. */
  hidden: number;
  /** Up to the limit, oldest first as far as SQS tells. */
  messages: ParkedMessage[];
}

export interface ReadOptions {
  /** Seconds a receive waits for messages (long polling); 1 finds messages on every SQS host. */
  waitTimeSeconds?: number;
}

export interface ListOptions extends ReadOptions {
  /** Messages to show (default 10). */
  limit?: number;
}

export interface RedriveOptions extends ReadOptions {
  /** Messages to move at most (default: all). */
  limit?: number;
}

export interface RedriveResult {
  queue: QueueKey;
  /** Messages now in the source queue. */
  moved: number;
  /** Of those, how many could not be deleted from the redrive queue (they will be moved again). */
  notDeleted: number;
  /** Messages that stay parked, with SQS's reason. */
  failed: Array<{ messageId: string; reason: string }>;
}

/** Read loosely: a parked message may be parked precisely because it is malformed. */
const eventIdOf = (item: unknown) => {
  const id = (item as { eventId?: unknown } | null)?.eventId;
  return typeof id === 'string' ? id : '?';
};

/**
 * A summary of a message body: a job's envelope (`{"v":1,"topic":..,"subscription":..,"items":[..]}`,
 * or `"kind":"ended"` with `"ended":[{"item":..}]`), or nothing for anything else.
 */
export function summarizeJob(body: string): ParkedJob | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const { v, kind, topic, subscription, items, ended } = json as Record<string, unknown>;
  if (v !== 1 || typeof topic !== 'string' || typeof subscription !== 'string') return undefined;
  const job = { topic, subscription };
  if (kind === 'ended' && Array.isArray(ended)) {
    const eventIds = ended
      .slice(0, EVENT_IDS_SHOWN)
      .map((entry) => eventIdOf((entry as { item?: unknown } | null)?.item));
    return { kind: 'ended', ...job, events: ended.length, eventIds };
  }
  if ((kind === undefined || kind === 'deliver') && Array.isArray(items)) {
    const eventIds = items.slice(0, EVENT_IDS_SHOWN).map(eventIdOf);
    return { kind: 'deliver', ...job, events: items.length, eventIds };
  }
  return undefined;
}

const isoTime = (epochMs: string | undefined) => {
  const value = Number(epochMs);
  return epochMs === undefined || !Number.isFinite(value) ? undefined : new Date(value).toISOString();
};

export function describeMessage(message: Message): ParkedMessage {
  const body = message.Body ?? '';
  const attributes = message.Attributes ?? {};
  const sentAt = isoTime(attributes.SentTimestamp);
  const firstReceivedAt = isoTime(attributes.ApproximateFirstReceiveTimestamp);
  const receiveCount = Number(attributes.ApproximateReceiveCount);
  const job = summarizeJob(body);
  return {
    messageId: message.MessageId ?? '?',
    ...(sentAt === undefined ? {} : { sentAt }),
    ...(firstReceivedAt === undefined ? {} : { firstReceivedAt }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
    bytes: Buffer.byteLength(body, 'utf8'),
    ...(job === undefined ? {} : { job }),
  };
}

async function receive(
  sqs: SQSClient,
  url: string,
  max: number,
  visibilityTimeoutSeconds: number,
  options: ReadOptions,
): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: Math.min(SQS_LIMITS.maxBatchEntries, max),
      VisibilityTimeout: visibilityTimeoutSeconds,
      WaitTimeSeconds: options.waitTimeSeconds ?? 1,
      MessageSystemAttributeNames: [
        'SentTimestamp',
        'ApproximateFirstReceiveTimestamp',
        'ApproximateReceiveCount',
      ],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );

/** Makes messages visible again at once; returns how many stay hidden until their timeout. */
async function makeVisible(sqs: SQSClient, url: string, messages: readonly Message[]): Promise<number> {
  let stillHidden = 0;
  for (const chunk of chunks(messages, SQS_LIMITS.maxBatchEntries)) {
    try {
      const result = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      );
      stillHidden += result.Failed?.length ?? 0;
    } catch {
      stillHidden += chunk.length;
    }
  }
  return stillHidden;
}

async function countParked(sqs: SQSClient, url: string): Promise<{ parked: number; hidden: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    parked: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    hidden: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

/**
 * How many messages are parked in `queue`'s redrive queue, and a summary of up to `limit` of
 * them. Nothing is consumed: the messages are received with a short visibility timeout and made
 * visible again straight after. Each peek adds one to a message's receive count (the redrive
 * queue has no redrive policy, so that is harmless).
 */
export async function listParked(
  sqs: SQSClient,
  queue: QueueTarget,
  options: ListOptions = {},
): Promise<ParkedQueueReport> {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  const { parked, hidden } = await countParked(sqs, queue.redriveUrl);
  const peeked: Message[] = [];
  const seen = new Set<string>();
  try {
    // Peeked messages stay hidden until the end, so each receive returns new ones.
    while (peeked.length < limit) {
      const batch = await receive(
        sqs,
        queue.redriveUrl,
        limit - peeked.length,
        PEEK_VISIBILITY_SECONDS,
        options,
      );
      const fresh = batch.filter((message) => !seen.has(message.MessageId ?? ''));
      for (const message of batch) {
        // A message seen twice (the peek outlasted its timeout) is released like the others.
        peeked.push(message);
        seen.add(message.MessageId ?? '');
      }
      if (fresh.length === 0 || (parked > 0 && seen.size >= parked)) break;
    }
  } finally {
    await makeVisible(sqs, queue.redriveUrl, peeked);
  }
  const unique = new Map<string, ParkedMessage>();
  for (const message of peeked) {
    const described = describeMessage(message);
    if (!unique.has(described.messageId)) unique.set(described.messageId, described);
  }
  return {
    queue: queue.key,
    redriveUrl: queue.redriveUrl,
    parked,
    hidden,
    messages: [...unique.values()].slice(0, limit),
  };
}

const attributesToSend = (message: Message): Record<string, MessageAttributeValue> | undefined => {
  const received = message.MessageAttributes;
  if (received === undefined || Object.keys(received).length === 0) return undefined;
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(received)) {
    attributes[name] = {
      DataType: value.DataType,
      ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
    };
  }
  return attributes;
};

/** What a message weighs in a SendMessageBatch request: its body and its attributes. */
const payloadOf = (message: Message) =>
  (message.Body ?? '') + JSON.stringify(message.MessageAttributes ?? {});

/**
 * Moves up to `limit` parked messages (default: all) from `queue`'s redrive queue back to the
 * queue itself: receive, send the exact bodies (and message attributes) with no delay, then
 * delete from the redrive queue only what was sent. A message that could not be sent stays
 * parked and is made visible again; one sent but not deleted is in both queues (moved again
 * next time: a duplicate delivery at most, never a loss). Each message is handled at most once
 * per call.
 */
export async function redriveParked(
  sqs: SQSClient,
  queue: QueueTarget,
  options: RedriveOptions = {},
): Promise<RedriveResult> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const result: RedriveResult = { queue: queue.key, moved: 0, notDeleted: 0, failed: [] };
  /** Received and not moved: made visible again before returning. */
  const unmoved = new Map<string, Message>();
  const handled = new Set<string>();
  try {
    while (result.moved + result.failed.length < limit) {
      const batch = await receive(
        sqs,
        queue.redriveUrl,
        limit - result.moved - result.failed.length,
        REDRIVE_VISIBILITY_SECONDS,
        options,
      );
      const fresh = batch.filter((message) => !handled.has(message.MessageId ?? ''));
      for (const message of batch) unmoved.set(message.ReceiptHandle ?? '', message);
      if (fresh.length === 0) break;
      for (const message of fresh) handled.add(message.MessageId ?? '');
      for (const group of batchForSend(fresh, payloadOf)) {
        const sent = await sendGroup(sqs, queue.url, group, result);
        if (sent.length === 0) continue;
        for (const message of sent) unmoved.delete(message.ReceiptHandle ?? '');
        result.moved += sent.length;
        const deletion = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.redriveUrl,
            Entries: sent.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
        result.notDeleted += deletion.Failed?.length ?? 0;
      }
      // A batch of only repeats means the rest of the queue is hidden or gone.
      if (fresh.length < batch.length) break;
    }
  } catch (error) {
    throw explainAwsError(error, `moving parked messages of the ${queue.key} queue`);
  } finally {
    await makeVisible(sqs, queue.redriveUrl, [...unmoved.values()]);
  }
  return result;
}

/** Sends one group to the source queue; returns the messages SQS accepted. */
async function sendGroup(
  sqs: SQSClient,
  url: string,
  group: readonly Message[],
  result: RedriveResult,
): Promise<Message[]> {
  const answer = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: group.map((message, index) => {
        const attributes = attributesToSend(message);
        return {
          Id: String(index),
          MessageBody: message.Body ?? '',
          DelaySeconds: 0,
          ...(attributes === undefined ? {} : { MessageAttributes: attributes }),
        };
      }),
    }),
  );
  const accepted = new Set((answer.Successful ?? []).map((entry) => entry.Id));
  for (const failure of answer.Failed ?? []) {
    const message = group[Number(failure.Id)];
    result.failed.push({
      messageId: message?.MessageId ?? '?',
      reason: [failure.Code ?? 'Failed', failure.Message]
        .filter((part) => part !== undefined && part !== '')
        .join(': '),
    });
  }
  return group.filter((_, index) => accepted.has(String(index)));
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The human-readable `parked list` output. */
export function formatList(reports: readonly ParkedQueueReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const hidden = report.hidden > 0 ? ` (and ${report.hidden} hidden by a peek or move in progress)` : '';
    if (report.parked === 0 && report.messages.length === 0) {
      lines.push(`${report.queue}: nothing parked${hidden}`);
      continue;
    }
    lines.push(`${report.queue}: ${plural(report.parked, 'message')} parked${hidden}  ${report.redriveUrl}`);
    for (const message of report.messages) {
      const times = [
        message.sentAt === undefined ? undefined : `sent ${message.sentAt}`,
        message.firstReceivedAt === undefined ? undefined : `first received ${message.firstReceivedAt}`,
        message.receiveCount === undefined ? undefined : `received ${plural(message.receiveCount, 'time')}`,
      ].filter((part) => part !== undefined);
      lines.push(`  ${message.messageId}  ${times.join(', ')}`);
      const job = message.job;
      if (job === undefined) {
        lines.push(`    ${plural(message.bytes, 'byte')}, not a Gridwire job`);
      } else {
        const more = job.events > job.eventIds.length ? ', ...' : '';
        const what = job.kind === 'ended' ? 'ended deliveries of ' : '';
        lines.push(
          `    ${what}topic ${job.topic}, subscription ${job.subscription}: ${plural(job.events, 'event')} (${job.eventIds.join(', ')}${more})`,
        );
      }
    }
    const notShown = report.parked - report.messages.length;
    if (notShown > 0) lines.push(`  ... ${notShown} more not shown (--limit)`);
  }
  return lines.join('\n');
}

/** The human-readable `parked redrive` output. */
export function formatRedrive(results: readonly RedriveResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    if (result.moved === 0 && result.failed.length === 0) {
      lines.push(`${result.queue}: nothing parked`);
      continue;
    }
    lines.push(`${result.queue}: moved ${plural(result.moved, 'message')} back to the ${result.queue} queue`);
    if (result.notDeleted > 0) {
      lines.push(
        `  ${plural(result.notDeleted, 'message')} could not be deleted from the redrive queue; a later redrive moves them again (delivered twice at most)`,
      );
    }
    for (const failure of result.failed) {
      lines.push(`  ${failure.messageId} stays parked: ${failure.reason}`);
    }
  }
  return lines.join('\n');
}

interface TargetOptions {
  queue?: QueueKey;
  dataDir: string;
  stack?: string;
  region?: string;
}

async function resolveTargets(options: TargetOptions): Promise<QueueTargets> {
  if (options.stack !== undefined) return stackTargets(options.stack, options.region);
  if (options.region !== undefined) throw new CliError('--region goes with --stack');
  return localTargets(options.dataDir);
}

function queuesFor(targets: QueueTargets, options: TargetOptions): QueueTarget[] {
  const queues = selectQueues(targets, options.queue);
  const missing = options.queue === undefined ? missingQueues(targets) : [];
  if (missing.length > 0) {
    console.error(
      `gridwire: ${targets.where} has no ${missing.join(', ')} queue outputs (deployed by an older version); skipping`,
    );
  }
  return queues;
}

const queueKeyArgument = (value: string) => {
  try {
    return parseQueueKey(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

function withTargetOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--queue <key>', `only this queue (${QUEUE_KEYS.join(', ')}); default: all`).argParser(
        queueKeyArgument,
      ),
    )
    .addOption(dataDirOption('data directory of the local stack to look in'))
    .addOption(new Option('--stack <name>', 'a deployed CloudFormation stack instead of the local stack'))
    .addOption(
      new Option('--region <region>', "the stack's AWS region (default: from the AWS configuration)"),
    );
}

export function parkedCommand(): Command {
  const parked = new Command('parked').description(
    'Messages a queue consumer failed on repeatedly wait in redrive queues: look at them, or move them back.',
  );

  parked.addCommand(
    withTargetOptions(
      new Command('list').description(
        'Show how many messages each redrive queue holds and summarize some of them (without consuming them).',
      ),
    )
      .addOption(
        new Option('--limit <n>', 'messages to show per queue')
          .default(DEFAULT_LIST_LIMIT)
          .argParser(integer('--limit', 0, 1000)),
      )
      .option('--json', 'print JSON instead of text')
      .addHelpText(
        'after',
        '\nPeeking receives each shown message and makes it visible again at once; this adds one to\n' +
          'its receive count (harmless: redrive queues do not redrive further).',
      )
      .action(async (options: TargetOptions & { limit: number; json?: boolean }) => {
        const targets = await resolveTargets(options);
        const reports: ParkedQueueReport[] = [];
        for (const queue of queuesFor(targets, options)) {
          try {
            reports.push(await listParked(targets.sqs, queue, { limit: options.limit }));
          } catch (error) {
            throw explainAwsError(error, `looking at the ${queue.key} redrive queue`);
          }
        }
        console.log(options.json === true ? JSON.stringify(reports, null, 2) : formatList(reports));
      }),
  );

  parked.addCommand(
    withTargetOptions(
      new Command('redrive').description(
        'Move parked messages back to the queue they came from, to be delivered again (after fixing the cause).',
      ),
    )
      .addOption(
        new Option('--limit <n>', 'messages to move per queue (default: all)').argParser(
          integer('--limit', 1, 1_000_000),
        ),
      )
      .action(async (options: TargetOptions & { limit?: number }) => {
        const targets = await resolveTargets(options);
        const results: RedriveResult[] = [];
        for (const queue of queuesFor(targets, options)) {
          results.push(
            await redriveParked(
              targets.sqs,
              queue,
              options.limit === undefined ? {} : { limit: options.limit },
            ),
          );
        }
        console.log(formatRedrive(results));
        if (results.some((result) => result.failed.length > 0)) process.exitCode = 1;
      }),
  );
  return parked;
}
