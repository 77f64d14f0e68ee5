/**
 * Counts the AWS requests a topic's archive adds, with an SDK middleware of its own on the local
 * stack's clients (beside the request counter's, `aws-counter.ts`, which bills SQS requests by
 * their bodies only): the archive queue's sends (by the function that made them: the delivery
 * function's forwards, the publish function's own sends), its receives and deletes, the 64 KiB
 * chunks the archive copies add to the delivery queue's sends and receives (SQS bills a message's
 * attributes as payload too), the segments written to the archive bucket (their gzipped
 * bytes and the events they hold), and the segments a replay's pages read back from it (the
 * delivery function's reads and listings). Requests are counted whether they succeed or fail.
 */
import { gunzipSync } from 'node:zlib';
import { currentFunction } from '../local/current-function';
import type { AwsClients } from '../shared/platform/aws';
import { sqsBilledChunks } from './aws-counter';

/** One SQS message's attributes as the SDK carries them. */
type MessageAttributes = Record<
  string,
  { DataType?: string; StringValue?: string; BinaryValue?: Uint8Array }
>;

/**
 * The bytes of a message's attributes as SQS counts them towards the message's size: each one's
 * name, data type and value (a binary value's raw bytes).
 */
export function attributeBytes(attributes: MessageAttributes | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(attributes ?? {})) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value.DataType ?? '', 'utf8');
    if (value.StringValue !== undefined) bytes += Buffer.byteLength(value.StringValue, 'utf8');
    if (value.BinaryValue !== undefined) bytes += value.BinaryValue.byteLength;
  }
  return bytes;
}

/** One message of a send or a receive: its body and its attributes. */
export interface MeteredMessage {
  body: string | undefined;
  attributes?: MessageAttributes | undefined;
}

/**
 * The billed chunks of one request carrying `messages`, and those its messages' attributes add
 * (the chunks with the attributes less those of the bodies alone).
 */
export function chunksOf(messages: readonly MeteredMessage[]): {
  chunks: number;
  addedByAttributes: number;
  bodyBytes: number;
  attributeBytes: number;
} {
  let body = 0;
  let attributes = 0;
  for (const message of messages) {
    body += Buffer.byteLength(message.body ?? '', 'utf8');
    attributes += attributeBytes(message.attributes);
  }
  const chunks = sqsBilledChunks(body + attributes);
  return {
    chunks,
    addedByAttributes: chunks - sqsBilledChunks(body),
    bodyBytes: body,
    attributeBytes: attributes,
  };
}

/** Sends to the archive queue by one function. */
export interface SendCounts {
  requests: number;
  messages: number;
  bytes: number;
  chunks: number;
  /** Seconds the calls took, summed (the function waits for each). */
  seconds: number;
}

export interface ArchiveCounts {
  /** The delivery function's forwards of its batches' copies. */
  forwards: SendCounts;
  /** The publish function's own sends of copies that had no message to ride on. */
  publishSends: SendCounts;
  /** Anything else sending to the archive queue (none expected). */
  otherSends: SendCounts;
  /** ReceiveMessage on the archive queue: those that returned messages, and the empty ones. */
  receives: { requests: number; empty: number; messages: number; bytes: number; chunks: number };
  /** DeleteMessageBatch (and DeleteMessage) on the archive queue: requests and messages deleted. */
  deletes: { requests: number; messages: number };
  /** The delivery queue's sends and receives, and the chunks the copies on them add. */
  deliveryQueue: {
    sends: number;
    receives: number;
    /** Messages sent carrying a copy, and the copies' attribute bytes. */
    messagesWithCopy: number;
    copyBytes: number;
    sendChunksAdded: number;
    receiveChunksAdded: number;
  };
  /** PutObject on the archive bucket: segments, their gzipped bytes, the events they hold. */
  segments: { puts: number; bytes: number; events: number; failed: number };
  /**
   * The delivery function's requests to the archive bucket (a replay's pages): GetObject (a
   * segment read) and the gzipped bytes it returned, and ListObjectsV2 (a page's next segment).
   */
  segmentReads: { gets: number; bytes: number; listings: number };
  /** SQS send requests the publish function made, to any queue. */
  publishFunctionSends: number;
}

const emptySends = (): SendCounts => ({ requests: 0, messages: 0, bytes: 0, chunks: 0, seconds: 0 });

export const emptyArchiveCounts = (): ArchiveCounts => ({
  forwards: emptySends(),
  publishSends: emptySends(),
  otherSends: emptySends(),
  receives: { requests: 0, empty: 0, messages: 0, bytes: 0, chunks: 0 },
  deletes: { requests: 0, messages: 0 },
  deliveryQueue: {
    sends: 0,
    receives: 0,
    messagesWithCopy: 0,
    copyBytes: 0,
    sendChunksAdded: 0,
    receiveChunksAdded: 0,
  },
  segments: { puts: 0, bytes: 0, events: 0, failed: 0 },
  segmentReads: { gets: 0, bytes: 0, listings: 0 },
  publishFunctionSends: 0,
});

type Handler = (args: { input: unknown }) => Promise<{ output: unknown }>;
interface MiddlewareStack {
  add(
    middleware: (next: Handler, context: { commandName?: string }) => Handler,
    options: { step: 'initialize'; name: string },
  ): void;
  remove(name: string): boolean;
}

const MIDDLEWARE = 'gridwire-bench-archive-meter';

interface SqsInput {
  QueueUrl?: string;
  Entries?: Array<{ MessageBody?: string; MessageAttributes?: MessageAttributes }>;
  MessageBody?: string;
  MessageAttributes?: MessageAttributes;
}
interface SqsOutput {
  Messages?: Array<{ Body?: string; MessageAttributes?: MessageAttributes }>;
}

/** Events in a gzipped JSON Lines segment: its non-empty lines. */
export function segmentEvents(body: unknown): number {
  if (!(body instanceof Uint8Array)) return 0;
  return gunzipSync(body)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

export class ArchiveMeter {
  private counts = emptyArchiveCounts();
  private attached: Array<{ middlewareStack: unknown }> = [];

  constructor(
    private readonly where: { archiveQueueUrl: string; deliveryQueueUrl: string; archiveBucket: string },
  ) {}

  /** Starts counting the requests of the stack's SQS and S3 clients. */
  attach(clients: Pick<AwsClients, 'sqs' | 's3'>): void {
    this.add(clients.sqs, (operation, input, output, seconds) =>
      this.recordSqs(operation, input as SqsInput, output as SqsOutput | undefined, seconds),
    );
    this.add(clients.s3, (operation, input, output) => {
      const request = input as { Bucket?: string; Body?: unknown };
      if (request.Bucket !== this.where.archiveBucket) return;
      if (operation === 'GetObject' || operation === 'ListObjectsV2') {
        this.recordRead(operation, output as { ContentLength?: number } | undefined);
        return;
      }
      if (operation !== 'PutObject') return;
      const segments = this.counts.segments;
      segments.puts += 1;
      if (output === undefined) {
        segments.failed += 1;
        return;
      }
      segments.bytes += request.Body instanceof Uint8Array ? request.Body.byteLength : 0;
      segments.events += segmentEvents(request.Body);
    });
  }

  /** Stops counting (the middleware leaves the clients). */
  detach(): void {
    for (const client of this.attached) (client.middlewareStack as MiddlewareStack).remove(MIDDLEWARE);
    this.attached = [];
  }

  /** Events in the segments written since the last `take`. */
  peekSegmentEvents(): number {
    return this.counts.segments.events;
  }

  /** SQS send requests the publish function made since the last `take`. */
  peekPublishFunctionSends(): number {
    return this.counts.publishFunctionSends;
  }

  /** Counts so far, and start counting afresh. */
  take(): ArchiveCounts {
    const taken = this.counts;
    this.counts = emptyArchiveCounts();
    return taken;
  }

  /** A read of the archive bucket by the delivery function (a replay's page); others' are not counted. */
  private recordRead(
    operation: 'GetObject' | 'ListObjectsV2',
    output: { ContentLength?: number } | undefined,
  ) {
    if (currentFunction() !== 'delivery') return;
    const reads = this.counts.segmentReads;
    if (operation === 'ListObjectsV2') {
      reads.listings += 1;
      return;
    }
    reads.gets += 1;
    reads.bytes += output?.ContentLength ?? 0;
  }

  private add(
    client: { middlewareStack: unknown },
    record: (operation: string, input: unknown, output: unknown, seconds: number) => void,
  ): void {
    (client.middlewareStack as MiddlewareStack).add(
      (next, context) => async (args) => {
        const operation = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
        const started = performance.now();
        let result: { output: unknown };
        try {
          result = await next(args);
        } catch (error) {
          record(operation, args.input, undefined, (performance.now() - started) / 1000);
          throw error;
        }
        record(operation, args.input, result.output, (performance.now() - started) / 1000);
        return result;
      },
      { step: 'initialize', name: MIDDLEWARE },
    );
    this.attached.push(client);
  }

  private recordSqs(
    operation: string,
    input: SqsInput,
    output: SqsOutput | undefined,
    seconds: number,
  ): void {
    if ((operation === 'SendMessageBatch' || operation === 'SendMessage') && currentFunction() === 'publish')
      this.counts.publishFunctionSends += 1;
    const archive = input.QueueUrl === this.where.archiveQueueUrl;
    const delivery = input.QueueUrl === this.where.deliveryQueueUrl;
    if (!archive && !delivery) return;
    const sent: MeteredMessage[] =
      operation === 'SendMessageBatch'
        ? (input.Entries ?? []).map((entry) => ({
            body: entry.MessageBody,
            attributes: entry.MessageAttributes,
          }))
        : operation === 'SendMessage'
          ? [{ body: input.MessageBody, attributes: input.MessageAttributes }]
          : [];
    const received: MeteredMessage[] =
      operation === 'ReceiveMessage'
        ? (output?.Messages ?? []).map((message) => ({
            body: message.Body,
            attributes: message.MessageAttributes,
          }))
        : [];
    if (archive) {
      if (sent.length > 0) {
        const fn = currentFunction();
        const into =
          fn === 'delivery'
            ? this.counts.forwards
            : fn === 'publish'
              ? this.counts.publishSends
              : this.counts.otherSends;
        const billed = chunksOf(sent);
        into.requests += 1;
        into.messages += sent.length;
        into.bytes += billed.bodyBytes + billed.attributeBytes;
        into.chunks += billed.chunks;
        into.seconds += seconds;
      }
      if (operation === 'ReceiveMessage' && output !== undefined) {
        const receives = this.counts.receives;
        if (received.length === 0) receives.empty += 1;
        else {
          const billed = chunksOf(received);
          receives.requests += 1;
          receives.messages += received.length;
          receives.bytes += billed.bodyBytes + billed.attributeBytes;
          receives.chunks += billed.chunks;
        }
      }
      if (operation === 'DeleteMessageBatch' || operation === 'DeleteMessage') {
        this.counts.deletes.requests += 1;
        this.counts.deletes.messages +=
          operation === 'DeleteMessage' ? 1 : ((input as { Entries?: unknown[] }).Entries ?? []).length;
      }
      return;
    }
    const queue = this.counts.deliveryQueue;
    if (sent.length > 0) {
      const billed = chunksOf(sent);
      queue.sends += 1;
      queue.sendChunksAdded += billed.addedByAttributes;
      const withCopy = sent.filter((message) => Object.keys(message.attributes ?? {}).length > 0);
      queue.messagesWithCopy += withCopy.length;
      queue.copyBytes += withCopy.reduce((sum, message) => sum + attributeBytes(message.attributes), 0);
    }
    if (received.length > 0) {
      queue.receives += 1;
      queue.receiveChunksAdded += chunksOf(received).addedByAttributes;
    }
  }
}
