/**
 * Invokes an SQS-consuming handler the way a Lambda event source mapping does, for a standard
 * or a FIFO queue (`fifo`: no batching window, 10 messages a batch at most, and each record
 * carries its message's group, de-duplication id and sequence number, as Lambda's do; the queue
 * itself hands out a group's messages only one after another):
 * - Pollers (receive loops) long-poll the queue, `initialPollers` of them at first (5, as on AWS).
 *   Each takes an invocation slot before it receives, so at most `maxConcurrency` invocations are
 *   in flight per queue and messages are received only when one can start.
 * - Without a batching window a poller invokes with what one receive returned. With one
 *   (`batchingWindowMs`), a poller that received messages keeps receiving (10 at most per
 *   receive) until the batch holds `batchSize` messages, the window has passed since its first
 *   message, or the next message would take the event past Lambda's 6 MB payload limit (that
 *   message starts the poller's next batch); then it invokes. Every receive is a long poll of
 *   `waitTimeSeconds`, inside the window too, and the window is checked when it returns: as on
 *   AWS, where a quiet queue can hold a batch up to 20 s (the mapping's long poll) past a shorter
 *   window (Lambda developer guide, "Using Lambda with Amazon SQS"), while on a busy one each
 *   receive returns as soon as messages are there. A batch size above 10 needs a window of at
 *   least 1 s.
 * - Pollers grow with a backlog and shrink when idle: a receive that returns as many messages as
 *   it asked for, or a receive for a new batch that finds messages sent before it was made (they
 *   waited: every poller was busy), adds a poller, at most one per
 *   {@link POLLER_GROWTH_INTERVAL_MS} and never more than `maxConcurrency`; a poller whose
 *   receive for a new batch returns nothing stops, while more than `initialPollers` run.
 * - Each invocation deletes what succeeded and leaves reported failures (or the whole batch, if
 *   the handler throws) to reappear after the visibility timeout.
 * A poller waits for its invocation (so the next receive gathers what arrived meanwhile), but only
 * for `handOffAfterMs`: a slow invocation (a webhook hanging for 30 s) is left running in its
 * slot and the poller receives again, so the queue's other messages keep moving.
 * Time (the window, the growth interval, pauses) is read from `clock`, which tests replace.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LAMBDA_SQS_LIMITS } from '../shared/config/event-source-mapping';
import { LAMBDA_FIFO_LIMITS } from '../shared/config/fifo-queues';
import { type FunctionDefinition, type FunctionKey, SQS_LIMITS } from '../shared/config/resources';
import type { LoggerLike } from '../shared/observability/logging';
import { Semaphore, withTimeout } from '../shared/platform/concurrency';
import { runAsFunction } from './current-function';
import { type InvocationStats, lambdaContext } from './lambda-context';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** The time a poller reads: the real one by default ({@link REAL_POLLER_CLOCK}). */
export interface PollerClock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` is aborted. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const REAL_POLLER_CLOCK: PollerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    }),
};

/** Pollers an event source mapping starts with, and the fewest it shrinks back to (as on AWS). */
export const INITIAL_POLLERS = 5;

/**
 * At most one poller is added per this many milliseconds while messages are still there: 300 a
 * minute, as Lambda scales an SQS event source (Lambda developer guide, "Configuring scaling
 * behavior for SQS event source mappings": up to 300 more concurrent invokes per minute).
 */
export const POLLER_GROWTH_INTERVAL_MS = 200;

/** Seconds each receive of Lambda's pollers waits for messages (SQS long polling at its longest). */
export const LAMBDA_RECEIVE_WAIT_SECONDS = 20;

/** Seconds a local poller's receive waits for messages by default (short, so a stop is quick). */
export const LOCAL_RECEIVE_WAIT_SECONDS = 2;

/** The pause after an empty receive when receives do not wait (`waitTimeSeconds` 0). */
export const SHORT_POLL_PAUSE_MS = 100;

/** What is wrong with a receive wait, named `name`: SQS long-polls 0 to 20 whole seconds. */
export function receiveWaitProblem(wait: number, name: string): string | undefined {
  return Number.isInteger(wait) && wait >= 0 && wait <= LAMBDA_RECEIVE_WAIT_SECONDS
    ? undefined
    : `${name} must be an integer from 0 to ${LAMBDA_RECEIVE_WAIT_SECONDS} (got ${wait})`;
}

export interface PollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  /** Messages per invocation at most: 1 to 10 without a window, up to 10,000 with one. */
  batchSize: number;
  /** The queue is FIFO: as Lambda, the poller then takes no batching window and 10 messages a batch at most. */
  fifo?: boolean;
  /**
   * How long a poller gathers messages after the first of a batch before it invokes (Lambda's
   * maximum batching window, at most 300 s); default 0: one receive's messages at once.
   */
  batchingWindowMs?: number;
  /** Pollers at start, and the fewest they shrink back to when idle (default {@link INITIAL_POLLERS}). */
  initialPollers?: number;
  /** Invocations in flight at most (the event source mapping's maximum concurrency); pollers never outnumber it by growing. */
  maxConcurrency: number;
  /** How long a poller waits for its invocation before receiving again (default {@link HAND_OFF_AFTER_MS}). */
  handOffAfterMs?: number;
  fn: FunctionDefinition;
  fnKey: FunctionKey;
  handler: SqsHandler;
  logger: LoggerLike;
  /**
   * Seconds each receive waits for messages (long polling, 0 to 20; default
   * {@link LOCAL_RECEIVE_WAIT_SECONDS}; Lambda's pollers wait {@link LAMBDA_RECEIVE_WAIT_SECONDS}).
   */
  waitTimeSeconds?: number;
  /** Where the poller reads the time and sleeps (default {@link REAL_POLLER_CLOCK}). */
  clock?: PollerClock;
  onInvocation?: (stats: InvocationStats) => void;
}

/** What a poller has done so far (running totals), and its pollers now. */
export interface PollerCounts {
  /** Receives made, empty ones included. */
  receives: number;
  /** Receives that returned nothing. */
  emptyReceives: number;
  /** Invocations started. */
  invocations: number;
  /** Messages handed to those invocations (divided by `invocations`: messages per invocation). */
  messages: number;
  /** Pollers running now. */
  pollers: number;
  /** The most pollers that ran at once. */
  peakPollers: number;
}

/** The system attributes Lambda adds to a FIFO queue's records. */
const FIFO_RECORD_ATTRIBUTES = ['MessageGroupId', 'MessageDeduplicationId', 'SequenceNumber'] as const;

/** A message's attributes as Lambda puts them in a record (binary values in base64). */
function recordAttributesOf(message: Message): SQSRecord['messageAttributes'] {
  const attributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    attributes[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined
        ? {}
        : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return attributes;
}

export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const fifo: Partial<Record<(typeof FIFO_RECORD_ATTRIBUTES)[number], string>> = {};
  for (const name of FIFO_RECORD_ATTRIBUTES) {
    const value = attributes[name];
    if (value !== undefined) fifo[name] = value;
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...fifo,
    },
    messageAttributes: recordAttributesOf(message),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/** How long a receive loop waits for its invocation before it hands it off and receives again. */
export const HAND_OFF_AFTER_MS = 100;

/** A batch a poller gathered, and the messages received beyond it (they start its next batch). */
interface Gathered {
  messages: Message[];
  carried: Message[];
  /** Whether the receive for a new batch returned nothing (the queue looked empty). */
  idle: boolean;
}

export class QueuePoller {
  private running = false;
  private readonly abort = new AbortController();
  private readonly loops = new Set<Promise<void>>();
  private readonly slots: Semaphore;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly clock: PollerClock;
  private readonly batchingWindowMs: number;
  private readonly initialPollers: number;
  private lastGrowth = 0;
  private readonly totals = { receives: 0, emptyReceives: 0, invocations: 0, messages: 0 };
  private pollerCount = 0;
  private peakPollers = 0;

  constructor(private readonly options: PollerOptions) {
    this.slots = new Semaphore(options.maxConcurrency);
    this.clock = options.clock ?? REAL_POLLER_CLOCK;
    this.batchingWindowMs = options.batchingWindowMs ?? 0;
    this.initialPollers = options.initialPollers ?? INITIAL_POLLERS;
    const { batchSize } = options;
    const maxWindowMs = LAMBDA_SQS_LIMITS.maxBatchingWindowSeconds * 1000;
    if (options.fifo === true && this.batchingWindowMs !== LAMBDA_FIFO_LIMITS.batchingWindowSeconds * 1000) {
      throw new RangeError(
        `a FIFO queue's event source takes no batching window, as on Lambda (got batchingWindowMs ${this.batchingWindowMs})`,
      );
    }
    if (!(this.batchingWindowMs >= 0 && this.batchingWindowMs <= maxWindowMs)) {
      throw new RangeError(
        `batchingWindowMs must be from 0 to ${maxWindowMs} (got ${this.batchingWindowMs})`,
      );
    }
    const maxBatchSize =
      options.fifo === true
        ? LAMBDA_FIFO_LIMITS.maxBatchSize
        : this.batchingWindowMs >= 1000
          ? LAMBDA_SQS_LIMITS.maxBatchSize
          : LAMBDA_SQS_LIMITS.maxBatchSizeWithoutWindow;
    if (!(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= maxBatchSize)) {
      throw new RangeError(
        `batchSize must be an integer from 1 to ${maxBatchSize} ${options.fifo === true ? 'from a FIFO queue' : `with a batching window of ${this.batchingWindowMs} ms`} (got ${batchSize})`,
      );
    }
    const waitProblem = receiveWaitProblem(
      options.waitTimeSeconds ?? LOCAL_RECEIVE_WAIT_SECONDS,
      'waitTimeSeconds',
    );
    if (waitProblem !== undefined) throw new RangeError(waitProblem);
    if (!(Number.isInteger(this.initialPollers) && this.initialPollers >= 1)) {
      throw new RangeError(`initialPollers must be an integer of at least 1 (got ${this.initialPollers})`);
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastGrowth = this.clock.now();
    for (let i = 0; i < this.initialPollers; i += 1) this.addPoller();
  }

  /** Stops receiving and waits for invocations in progress to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    // A poller waiting for a slot gets one when an invocation ends, sees the stop and gives it
    // back; none is added once stopping.
    await Promise.all(this.loops);
    // The pollers add no invocation once they have ended; wait for those still running.
    await Promise.all(this.inFlight);
  }

  /** Messages handled and deleted so far (a running count). */
  completed = 0;

  /** Invocations in flight now. */
  get invocations(): number {
    return this.inFlight.size;
  }

  /** Pollers running now. */
  get pollers(): number {
    return this.pollerCount;
  }

  /** Receives, invocations and messages so far, and the pollers now and at most. */
  counts(): PollerCounts {
    return { ...this.totals, pollers: this.pollerCount, peakPollers: this.peakPollers };
  }

  private addPoller(): void {
    this.pollerCount += 1;
    this.peakPollers = Math.max(this.peakPollers, this.pollerCount);
    // On AWS the event source mapping receives and deletes with the consuming function's role:
    // the pollers run as that function, so their SQS calls are checked against its policy.
    const loop = runAsFunction(this.options.fnKey, () => this.loop()).finally(() => {
      this.loops.delete(loop);
    });
    this.loops.add(loop);
  }

  /** One more poller after a full receive: at most one per growth interval, never above maxConcurrency. */
  private grow(): void {
    if (!this.running || this.pollerCount >= this.options.maxConcurrency) return;
    const now = this.clock.now();
    if (now - this.lastGrowth < POLLER_GROWTH_INTERVAL_MS) return;
    this.lastGrowth = now;
    this.addPoller();
  }

  private async loop(): Promise<void> {
    let countedOff = false;
    try {
      countedOff = await this.poll();
    } finally {
      if (!countedOff) this.pollerCount -= 1;
    }
  }

  /** Polls until stopped (false), or until it shrinks the pollers by itself (true: counted off). */
  private async poll(): Promise<boolean> {
    let carried: Message[] = [];
    while (this.running || carried.length > 0) {
      // A slot is taken before a receive, so messages are received only when an invocation can start.
      const release = await this.slots.acquire();
      if (!this.running && carried.length === 0) {
        release();
        return false;
      }
      const gathered = await this.gather(carried);
      carried = gathered.carried;
      if (gathered.messages.length === 0) {
        release();
        // The queue looked empty: one poller fewer, down to the initial count (counted off here,
        // before another poller checks the count).
        if (gathered.idle && this.running && this.pollerCount > this.initialPollers) {
          this.pollerCount -= 1;
          return true;
        }
        continue;
      }
      // A batch received while stopping is still invoked; `stop` waits for it.
      const invocation = this.invoke(gathered.messages)
        .catch((error: unknown) =>
          this.options.logger.error('invocation failed', { error: (error as Error).message }),
        )
        .finally(() => {
          this.inFlight.delete(invocation);
          release();
        });
      this.inFlight.add(invocation);
      // Like one of Lambda's pollers: wait for the invocation, so the next receive gathers what
      // arrived meanwhile (fuller batches, fewer invocations), but hand a slow one off after
      // `handOffAfterMs` and receive again, so a hanging webhook never holds up the queue.
      await withTimeout(invocation, this.options.handOffAfterMs ?? HAND_OFF_AFTER_MS);
    }
    return false;
  }

  /**
   * One batch: the messages carried over from the last, then receives until the batch is full,
   * its window has passed (at once without a window) or the payload limit is reached.
   */
  private async gather(carriedOver: Message[]): Promise<Gathered> {
    const { batchSize } = this.options;
    const batch: Message[] = [];
    let bytes = 0;
    /** Adds what fits; returns the rest. */
    const take = (messages: Message[]): Message[] => {
      for (const [index, message] of messages.entries()) {
        const size = recordBytes(message, this.options.queueArn);
        const fits =
          batch.length < batchSize &&
          (batch.length === 0 || bytes + size <= LAMBDA_SQS_LIMITS.maxPayloadBytes);
        if (!fits) return messages.slice(index);
        batch.push(message);
        bytes += size;
      }
      return [];
    };
    const carried = take(carriedOver);
    if (carried.length > 0 || !this.running) return { messages: batch, carried, idle: false };
    let startedAt = batch.length > 0 ? this.clock.now() : undefined;
    if (startedAt !== undefined && this.batchingWindowMs === 0)
      return { messages: batch, carried, idle: false };
    const waitSeconds = this.options.waitTimeSeconds ?? LOCAL_RECEIVE_WAIT_SECONDS;
    while (this.running) {
      let leftMs = Number.POSITIVE_INFINITY;
      if (startedAt !== undefined) {
        leftMs = this.batchingWindowMs - (this.clock.now() - startedAt);
        if (leftMs <= 0) break;
      }
      const asked = Math.min(SQS_LIMITS.maxBatchEntries, batchSize - batch.length);
      // Wall-clock time, as the queue stamps messages with.
      const receivedFrom = Date.now();
      const received = await this.receive(asked, waitSeconds);
      // A full receive: more may be waiting. Messages that were there before a receive for a new
      // batch was made: no poller was free to take them.
      if (received.length === asked || (startedAt === undefined && sentBefore(received, receivedFrom))) {
        this.grow();
      }
      // Receives that do not wait would spin on an empty queue: a pause (within the window).
      if (received.length === 0 && waitSeconds === 0) {
        await this.clock.sleep(Math.min(SHORT_POLL_PAUSE_MS, leftMs), this.abort.signal);
      }
      if (startedAt === undefined) {
        if (received.length === 0) return { messages: [], carried: [], idle: true };
        startedAt = this.clock.now();
      }
      const rest = take(received);
      if (rest.length > 0 || batch.length >= batchSize || this.batchingWindowMs === 0) {
        return { messages: batch, carried: rest, idle: false };
      }
    }
    return { messages: batch, carried: [], idle: false };
  }

  /** One receive; nothing when it fails or the poller is stopping. */
  private async receive(maxMessages: number, waitSeconds: number): Promise<Message[]> {
    const { sqs, queueUrl, logger } = this.options;
    this.totals.receives += 1;
    let messages: Message[] = [];
    try {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: maxMessages,
          WaitTimeSeconds: waitSeconds,
          MessageSystemAttributeNames: ['All'],
          // Lambda hands a function every message attribute (an archive copy rides on one).
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.abort.signal },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (this.running) {
        logger.error('receive failed; polling again shortly', { queueUrl, error: (error as Error).message });
        await this.clock.sleep(1000, this.abort.signal);
      }
    }
    if (messages.length === 0) this.totals.emptyReceives += 1;
    return messages;
  }

  private async invoke(messages: Message[]): Promise<void> {
    const { sqs, queueUrl, logger, fn } = this.options;
    const event: SQSEvent = {
      Records: messages.map((message) => toSqsRecord(message, this.options.queueArn)),
    };
    this.totals.invocations += 1;
    this.totals.messages += messages.length;
    const started = Date.now();
    let failed: Set<string>;
    try {
      const response = await this.options.handler(event, lambdaContext(fn));
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      // Like Lambda: a thrown error fails the whole batch; the messages return after the visibility timeout.
      logger.error('handler failed; the whole batch will be received again', {
        queueUrl,
        error: (error as Error).message,
      });
      failed = new Set(messages.map((message) => message.MessageId ?? ''));
    }
    const durationMs = Date.now() - started;
    if (durationMs > fn.timeoutSeconds * 1000) {
      logger.warn('invocation ran past the function timeout; Lambda would have stopped it', { durationMs });
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    this.completed += done.length;
    for (let start = 0; start < done.length; start += 10) {
      try {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.slice(start, start + 10).map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle ?? '',
            })),
          }),
        );
      } catch (error) {
        logger.error('delete failed; those messages will be processed again', {
          error: (error as Error).message,
        });
      }
    }
    this.options.onInvocation?.({
      function: this.options.fnKey,
      source: queueUrl,
      records: messages.length,
      failed: failed.size,
      durationMs,
    });
  }
}

/** Whether any of `messages` was sent before `epochMs` (by its `SentTimestamp`). */
const sentBefore = (messages: readonly Message[], epochMs: number): boolean =>
  messages.some((message) => Number(message.Attributes?.SentTimestamp ?? Number.POSITIVE_INFINITY) < epochMs);

/** The bytes a message adds to the invocation's event: its record, as JSON. */
const recordBytes = (message: Message, queueArn: string): number =>
  Buffer.byteLength(JSON.stringify(toSqsRecord(message, queueArn)));
