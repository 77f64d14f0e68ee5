/**
 * The sources topics take events from, as the functions' configuration names them (`ENV.sources`,
 * set by the construct's `topic.addSource` and by `gridwire start --source`): which queue, which
 * topic, and what its messages hold. What is done with their messages is
 * `shared/publish/sources.ts`.
 */
import { z } from 'zod';

/** Messages the publish function takes from a source queue at once (one receive's worth). */
export const SOURCE_BATCH_SIZE = 10;

/**
 * Receives of a message of a queue the stack makes for a source (a bus source's on AWS, a missing
 * queue locally) before its dead-letter queue takes it.
 */
export const SOURCE_MAX_RECEIVES = 5;

/** What a source's messages hold. */
export const SOURCE_FORMATS = ['topic', 'eventBridge'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** A queue a topic takes its events from, as the functions' configuration names it. */
export const sourceSchema = z.object({
  /** The source's name: metrics and logs name it (the queue's name, or `<bus>/<rule>`). */
  name: z.string().min(1),
  /** The kind the deployer declared: a queue of theirs, or a bus whose rule feeds a queue of the stack's. */
  kind: z.enum(['sqs', 'eventBridge']),
  /** The queue's ARN (an SQS record's `eventSourceARN`). */
  queueArn: z.string().min(1),
  /** The topic its events are published to (`<namespace>/<topic>` is not taken: classic topics only). */
  topic: z.string().min(1),
  format: z.enum(SOURCE_FORMATS),
  /** A bus source's bus and event pattern, for documents. */
  bus: z.string().optional(),
  eventPattern: z.string().optional(),
});
export type SourceDefinition = z.infer<typeof sourceSchema>;

/** The sources setting (`ENV.sources`): a JSON array of {@link SourceDefinition}; empty or absent: none. */
export function parseSources(name: string, text: string | undefined): SourceDefinition[] {
  if (text === undefined || text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${name}: is not JSON (an array of sources)`);
  }
  const parsed = z.array(sourceSchema).safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `${name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
