/**
 * Counts the AWS requests the handlers really make, by service and operation, with an SDK
 * middleware on the clients the local stack uses. SQS requests are also counted in billed
 * 64 KiB chunks of payload, as SQS bills them, and by queue (those to FIFO queues, billed at
 * another price, also on their own); DynamoDB writes are counted in write units from the items'
 * sizes, and by the kind of item written (its partition key's prefix), and single-item reads by
 * the kind of item read.
 * Requests that fail are counted too: a conditional write that loses its race is still billed.
 */
import type { AwsClients } from '../shared/platform/aws';
import { keyKind, writeUnitsOf } from './dynamo-size';
import { PRICES } from './prices';

/** DynamoDB writes to one kind of item (`HEALTH`, `HISTORY`, `TOPIC`, ...). */
export interface WriteCounts {
  /** Requests that wrote at least one item of this kind. */
  requests: number;
  items: number;
  units: number;
}

export interface RequestCounts {
  /** `service:Operation` -> requests */
  requests: Record<string, number>;
  /** `service:Operation` -> requests that failed (included in `requests`). */
  failedRequests: Record<string, number>;
  /** SQS requests as billed (payload in 64 KiB chunks, at least one per request). */
  sqsBilledRequests: number;
  /** ReceiveMessage calls that returned nothing (polling overhead, not per-event work). */
  sqsEmptyReceives: number;
  /** SQS requests by queue name (the queue URL's last segment), empty receives left out. */
  sqsByQueue: Record<string, number>;
  /**
   * Of `sqsBilledRequests`, those to FIFO queues (names ending in `.fifo`), which SQS bills at
   * its FIFO price; their empty receives included, as there.
   */
  sqsFifoBilledRequests: number;
  /** Of `sqsEmptyReceives`, those from FIFO queues. */
  sqsFifoEmptyReceives: number;
  /** Requests to FIFO queues by operation (`SendMessageBatch`, ...), empty receives left out. */
  sqsFifoRequests: Record<string, number>;
  /** DynamoDB capacity units, counted from request shapes and item sizes. */
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  /** DynamoDB writes by kind of item. */
  dynamoWrites: Record<string, WriteCounts>;
  /** DynamoDB single-item reads (`GetItem`) by kind of item. */
  dynamoGets: Record<string, number>;
  /** Epoch ms of each write to an endpoint-health item, by partition key. */
  healthWriteTimes: Record<string, number[]>;
}

/** Billed SQS requests for one request carrying `bytes` of message bodies. */
export const sqsBilledChunks = (bytes: number): number =>
  Math.max(1, Math.ceil(bytes / PRICES.sqs.chunkBytes));
const bodyBytes = (bodies: Array<string | undefined>) =>
  bodies.reduce((sum, body) => sum + Buffer.byteLength(body ?? '', 'utf8'), 0);

type Handler = (args: { input: unknown }) => Promise<{ output: unknown }>;
interface MiddlewareStack {
  add(
    middleware: (next: Handler, context: { commandName?: string }) => Handler,
    options: { step: 'initialize'; name: string },
  ): void;
}

type Item = Record<string, unknown>;
interface WriteRequest {
  PutRequest?: { Item?: Item };
  DeleteRequest?: { Key?: Item };
}

/** The items one DynamoDB write request writes: kind and write units of each. */
export function dynamoWritesOf(
  operation: string,
  input: unknown,
): Array<{ kind: string; pk: unknown; units: number }> {
  const op = operation.replace(/Item$/, '');
  const request = input as { Item?: Item; Key?: Item; RequestItems?: Record<string, WriteRequest[]> };
  if (op === 'Put') {
    const item = request.Item ?? {};
    return [{ kind: keyKind(item.pk), pk: item.pk, units: writeUnitsOf(item) }];
  }
  // An update or delete is billed by the item's size, which the request does not show: one unit.
  if (op === 'Update' || op === 'Delete') {
    return [{ kind: keyKind(request.Key?.pk), pk: request.Key?.pk, units: 1 }];
  }
  if (op === 'BatchWrite') {
    return Object.values(request.RequestItems ?? {}).flatMap((requests) =>
      requests.map((entry) => {
        const item = entry.PutRequest?.Item;
        if (item !== undefined) return { kind: keyKind(item.pk), pk: item.pk, units: writeUnitsOf(item) };
        return { kind: keyKind(entry.DeleteRequest?.Key?.pk), pk: entry.DeleteRequest?.Key?.pk, units: 1 };
      }),
    );
  }
  return [];
}

/** Whether a queue, by its name, is a FIFO queue (SQS requires FIFO queue names to end in `.fifo`). */
export const isFifoQueue = (name: string): boolean => name.endsWith('.fifo');

/** SQS operations the local stack itself makes (see `record`). */
export const LOCAL_STACK_ONLY: ReadonlySet<string> = new Set(['GetQueueAttributes']);

export class AwsRequestCounter {
  private counts: RequestCounts = AwsRequestCounter.empty();

  /**
   * @param unbilled SQS operations counted as requests but not billed as the functions' work: by
   * default the local stack's own queue-depth reads. A counter attached to one function's own
   * clients (a function process) bills every call, the publish function's backlog gate reads
   * included.
   */
  constructor(private readonly unbilled: ReadonlySet<string> = LOCAL_STACK_ONLY) {}

  static empty(): RequestCounts {
    return {
      requests: {},
      failedRequests: {},
      sqsBilledRequests: 0,
      sqsEmptyReceives: 0,
      sqsByQueue: {},
      sqsFifoBilledRequests: 0,
      sqsFifoEmptyReceives: 0,
      sqsFifoRequests: {},
      dynamoWriteUnits: 0,
      dynamoReadUnits: 0,
      dynamoWrites: {},
      dynamoGets: {},
      healthWriteTimes: {},
    };
  }

  attach(clients: AwsClients): void {
    this.attachClient('sqs', clients.sqs);
    this.attachClient('dynamodb', clients.dynamo);
    this.attachClient('s3', clients.s3);
  }

  /** Counts the requests of one more client (a resource destination's, say) as of `service`. */
  attachClient(service: 'sqs' | 'dynamodb' | 's3', client: { middlewareStack: unknown }): void {
    (client.middlewareStack as MiddlewareStack).add(
      (next, context) => async (args) => {
        const operation = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
        let result: { output: unknown };
        try {
          result = await next(args);
        } catch (error) {
          this.record(service, operation, args.input, undefined);
          throw error;
        }
        this.record(service, operation, args.input, result.output);
        return result;
      },
      { step: 'initialize', name: `gridwire-bench-counter-${service}` },
    );
  }

  /** Adds counts made elsewhere (a function running in a process of its own). */
  add(other: RequestCounts): void {
    const counts = this.counts;
    const sum = (into: Record<string, number>, from: Record<string, number>) => {
      for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
    };
    sum(counts.requests, other.requests);
    sum(counts.failedRequests, other.failedRequests);
    sum(counts.sqsByQueue, other.sqsByQueue);
    sum(counts.sqsFifoRequests, other.sqsFifoRequests);
    sum(counts.dynamoGets, other.dynamoGets);
    counts.sqsBilledRequests += other.sqsBilledRequests;
    counts.sqsEmptyReceives += other.sqsEmptyReceives;
    counts.sqsFifoBilledRequests += other.sqsFifoBilledRequests;
    counts.sqsFifoEmptyReceives += other.sqsFifoEmptyReceives;
    counts.dynamoWriteUnits += other.dynamoWriteUnits;
    counts.dynamoReadUnits += other.dynamoReadUnits;
    for (const [kind, writes] of Object.entries(other.dynamoWrites)) {
      const into = counts.dynamoWrites[kind] ?? { requests: 0, items: 0, units: 0 };
      counts.dynamoWrites[kind] = {
        requests: into.requests + writes.requests,
        items: into.items + writes.items,
        units: into.units + writes.units,
      };
    }
    for (const [pk, times] of Object.entries(other.healthWriteTimes)) {
      counts.healthWriteTimes[pk] = [...(counts.healthWriteTimes[pk] ?? []), ...times];
    }
  }

  /** Counts so far, and start counting afresh. */
  take(): RequestCounts {
    const taken = this.counts;
    this.counts = AwsRequestCounter.empty();
    return taken;
  }

  /** Counts one request; `output` is undefined when it failed. */
  record(service: string, operation: string, input: unknown, output: unknown): void {
    const key = `${service}:${operation}`;
    this.counts.requests[key] = (this.counts.requests[key] ?? 0) + 1;
    if (output === undefined) this.counts.failedRequests[key] = (this.counts.failedRequests[key] ?? 0) + 1;
    // The local stack reads queue depths for its admission gate and `status` (Lambda and API
    // Gateway do their own on AWS): counted as requests, never billed as the functions' work.
    if (service === 'sqs' && !this.unbilled.has(operation)) {
      const req = input as {
        QueueUrl?: string;
        Entries?: Array<{ MessageBody?: string }>;
        MessageBody?: string;
      };
      const res = (output ?? {}) as { Messages?: Array<{ Body?: string }> };
      const empty =
        operation === 'ReceiveMessage' && output !== undefined && (res.Messages ?? []).length === 0;
      const queue = (req.QueueUrl ?? '?').split('/').at(-1) ?? '?';
      const fifo = isFifoQueue(queue);
      if (!empty) this.counts.sqsByQueue[queue] = (this.counts.sqsByQueue[queue] ?? 0) + 1;
      if (!empty && fifo)
        this.counts.sqsFifoRequests[operation] = (this.counts.sqsFifoRequests[operation] ?? 0) + 1;
      let billed = 1;
      if (operation === 'SendMessageBatch')
        billed = sqsBilledChunks(bodyBytes((req.Entries ?? []).map((e) => e.MessageBody)));
      else if (operation === 'SendMessage') billed = sqsBilledChunks(bodyBytes([req.MessageBody]));
      else if (operation === 'ReceiveMessage') {
        const messages = res.Messages ?? [];
        if (empty) this.counts.sqsEmptyReceives += 1;
        if (empty && fifo) this.counts.sqsFifoEmptyReceives += 1;
        billed = sqsBilledChunks(bodyBytes(messages.map((m) => m.Body)));
      }
      this.counts.sqsBilledRequests += billed;
      if (fifo) this.counts.sqsFifoBilledRequests += billed;
    }
    if (service === 'dynamodb') {
      // dynalite does not report consumed capacity; count units from the request instead: a put
      // by the item's size (1 KiB a unit), an update or delete one unit; half a read unit per
      // eventually consistent read of an item under 4 KB, a whole one per strongly consistent read.
      const writes = dynamoWritesOf(operation, input);
      const kinds = new Set<string>();
      for (const write of writes) {
        this.counts.dynamoWriteUnits += write.units;
        const counts = this.counts.dynamoWrites[write.kind] ?? { requests: 0, items: 0, units: 0 };
        this.counts.dynamoWrites[write.kind] = counts;
        counts.items += 1;
        counts.units += write.units;
        if (!kinds.has(write.kind)) counts.requests += 1;
        kinds.add(write.kind);
        if (write.kind === 'HEALTH') {
          const times = this.counts.healthWriteTimes[String(write.pk)] ?? [];
          times.push(Date.now());
          this.counts.healthWriteTimes[String(write.pk)] = times;
        }
      }
      const op = operation.replace(/Item$/, '');
      const unit = (input as { ConsistentRead?: boolean }).ConsistentRead === true ? 1 : 0.5;
      if (op === 'Get') {
        this.counts.dynamoReadUnits += unit;
        const kind = keyKind((input as { Key?: Item }).Key?.pk);
        this.counts.dynamoGets[kind] = (this.counts.dynamoGets[kind] ?? 0) + 1;
      }
      if (op === 'Query') {
        const items = ((output ?? {}) as { Items?: unknown[] }).Items ?? [];
        this.counts.dynamoReadUnits += Math.max(unit, Math.ceil(items.length / 4) * unit);
      }
    }
  }
}
