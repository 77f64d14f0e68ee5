/**
 * Delivery jobs: how events for one subscription are packed into SQS message bodies, and read
 * back. Packing many events per message is what keeps SQS requests per event far below one.
 */
import { z } from 'zod';
import { SQS_LIMITS } from '../config/resources';
import { type DeliveryItem, type DeliveryJob, isDeliveryOutcome } from '../domain/model';

/**
 * Target size of one job message. SQS bills each 64 KiB of payload as a request, so larger
 * messages don't save requests; 256 KiB keeps ten messages (one Lambda batch) well inside the
 * 6 MB invocation payload while packing hundreds of typical events per message.
 */
export const JOB_TARGET_BYTES = 256 * 1024;

/** Room kept for a job's envelope and an item's delivery state around the event itself. */
export const JOB_ENVELOPE_RESERVE_BYTES = 2048;

/** The largest event (serialized) that fits in a job message on its own. */
export const MAX_QUEUED_EVENT_BYTES = SQS_LIMITS.maxMessageBytes - JOB_ENVELOPE_RESERVE_BYTES;

export interface JobEnvelope {
  topic: string;
  subscription: string;
  dueAt?: number;
}

const envelopeHead = (envelope: JobEnvelope): string =>
  `{"v":1,"topic":${JSON.stringify(envelope.topic)},"subscription":${JSON.stringify(envelope.subscription)}${
    envelope.dueAt === undefined ? '' : `,"dueAt":${Math.round(envelope.dueAt)}`
  },"items":[`;

/**
 * Packs items into job message bodies of at most `targetBytes` each (UTF-8). An item bigger than
 * the target still goes, alone in its message; one that can't fit SQS's limit at all throws
 * (publish rejects such events up front, so this is a guard, not a path).
 */
export function packJobs(
  envelope: JobEnvelope,
  items: readonly DeliveryItem[],
  targetBytes = JOB_TARGET_BYTES,
): string[] {
  const head = envelopeHead(envelope);
  const headBytes = Buffer.byteLength(head, 'utf8') + 2; // "]}"
  const bodies: string[] = [];
  let parts: string[] = [];
  let size = headBytes;
  for (const item of items) {
    const text = JSON.stringify(item);
    const itemBytes = Buffer.byteLength(text, 'utf8');
    if (headBytes + itemBytes > SQS_LIMITS.maxMessageBytes) {
      throw new RangeError(
        `delivery item ${item.deliveryId} needs ${headBytes + itemBytes} bytes; an SQS message holds at most ${SQS_LIMITS.maxMessageBytes}`,
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

const itemSchema = z.object({
  deliveryId: z.string().min(1),
  event: z.looseObject({ id: z.string() }),
  attempts: z.number().int().min(0),
  publishedAt: z.number(),
  lastOutcome: z.string().refine(isDeliveryOutcome).optional(),
  lastHttpStatus: z.number().int().optional(),
  lastAttemptAt: z.number().optional(),
});

const jobSchema = z.object({
  v: z.literal(1),
  topic: z.string().min(1),
  subscription: z.string().min(1),
  dueAt: z.number().optional(),
  items: z.array(itemSchema).min(1),
});

/** Reads a job message body; throws with the reason when it isn't one. */
export function parseJob(body: string): DeliveryJob {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new Error(`delivery job is not JSON: ${(error as Error).message}`);
  }
  const parsed = jobSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `delivery job is malformed at ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data as DeliveryJob;
}
