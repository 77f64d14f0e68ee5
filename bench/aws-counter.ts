/**
 * Counts the AWS requests the handlers really make, by service and operation, with an SDK
 * middleware on the clients the local stack uses. SQS requests are also counted in billed
 * 64 KiB chunks of payload, as SQS bills them.
 */
import type { AwsClients } from '../shared/platform/aws';
import { PRICES } from './prices';

export interface RequestCounts {
  /** `service:Operation` -> requests */
  requests: Record<string, number>;
  /** SQS requests as billed (payload in 64 KiB chunks, at least one per request). */
  sqsBilledRequests: number;
  /** ReceiveMessage calls that returned nothing (polling overhead, not per-event work). */
  sqsEmptyReceives: number;
  /** DynamoDB capacity units consumed, as reported for the requests. */
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
}

const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / PRICES.sqs.chunkBytes));
const bodyBytes = (bodies: Array<string | undefined>) =>
  bodies.reduce((sum, body) => sum + Buffer.byteLength(body ?? '', 'utf8'), 0);

type Handler = (args: { input: unknown }) => Promise<{ output: unknown }>;
interface MiddlewareStack {
  add(
    middleware: (next: Handler, context: { commandName?: string }) => Handler,
    options: { step: 'initialize'; name: string },
  ): void;
}

export class AwsRequestCounter {
  private counts: RequestCounts = AwsRequestCounter.empty();

  static empty(): RequestCounts {
    return {
      requests: {},
      sqsBilledRequests: 0,
      sqsEmptyReceives: 0,
      dynamoWriteUnits: 0,
      dynamoReadUnits: 0,
    };
  }

  attach(clients: AwsClients): void {
    const services: Array<[string, { middlewareStack: unknown }]> = [
      ['sqs', clients.sqs],
      ['dynamodb', clients.dynamo],
      ['s3', clients.s3],
    ];
    for (const [service, client] of services) {
      (client.middlewareStack as MiddlewareStack).add(
        (next, context) => async (args) => {
          const result = await next(args);
          this.record(
            service,
            String(context.commandName ?? 'Unknown').replace(/Command$/, ''),
            args.input,
            result.output,
          );
          return result;
        },
        { step: 'initialize', name: `gridwire-bench-counter-${service}` },
      );
    }
  }

  /** Counts so far, and start counting afresh. */
  take(): RequestCounts {
    const taken = this.counts;
    this.counts = AwsRequestCounter.empty();
    return taken;
  }

  private record(service: string, operation: string, input: unknown, output: unknown): void {
    const key = `${service}:${operation}`;
    this.counts.requests[key] = (this.counts.requests[key] ?? 0) + 1;
    if (service === 'sqs') {
      const req = input as { Entries?: Array<{ MessageBody?: string }>; MessageBody?: string };
      const res = output as { Messages?: Array<{ Body?: string }> };
      if (operation === 'SendMessageBatch')
        this.counts.sqsBilledRequests += chunks(bodyBytes((req.Entries ?? []).map((e) => e.MessageBody)));
      else if (operation === 'SendMessage')
        this.counts.sqsBilledRequests += chunks(bodyBytes([req.MessageBody]));
      else if (operation === 'ReceiveMessage') {
        const messages = res.Messages ?? [];
        if (messages.length === 0) this.counts.sqsEmptyReceives += 1;
        this.counts.sqsBilledRequests += chunks(bodyBytes(messages.map((m) => m.Body)));
      } else this.counts.sqsBilledRequests += 1;
    }
    if (service === 'dynamodb') {
      // dynalite does not report consumed capacity; count units from the request shape instead:
      // one write unit per written item (history items are under 1 KB), half a read unit per
      // eventually consistent read of an item under 4 KB, a whole one per strongly consistent read.
      const op = operation.replace(/Item$/, '');
      const writes =
        op === 'BatchWrite'
          ? Object.values((input as { RequestItems?: Record<string, unknown[]> }).RequestItems ?? {}).reduce(
              (n, items) => n + items.length,
              0,
            )
          : ['Put', 'Update', 'Delete'].includes(op)
            ? 1
            : 0;
      this.counts.dynamoWriteUnits += writes;
      const unit = (input as { ConsistentRead?: boolean }).ConsistentRead === true ? 1 : 0.5;
      if (op === 'Get') this.counts.dynamoReadUnits += unit;
      if (op === 'Query') {
        const items = (output as { Items?: unknown[] }).Items ?? [];
        this.counts.dynamoReadUnits += Math.max(unit, Math.ceil(items.length / 4) * unit);
      }
    }
  }
}
