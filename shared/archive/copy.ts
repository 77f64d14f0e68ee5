/**
 * The archive copy of one publish: every event a topic with an archive accepted, as it is
 * delivered, with the publish's id and time. The publish function gzips it onto the publish's
 * own SQS message as a binary message attribute (`ARCHIVE_ATTRIBUTE`, `queue/sqs-job-queue.ts`), so keeping a copy
 * costs no request of its own; the function that receives the message forwards the copies of its
 * whole batch to the archive queue in one message per topic (`forward.ts`), whose consumer writes
 * them into segments (`writer.ts`, `storage/archive.ts`).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';

export const archivedEventSchema = z.object({
  /** The event's position in its publish: with the publish id, what names it in the archive. */
  index: z.number().int().nonnegative(),
  eventId: z.string(),
  dataVersion: z.string(),
  /** The event as its subscriptions are sent it. */
  json: z.string(),
});
export type ArchivedEvent = z.infer<typeof archivedEventSchema>;

export const archiveCopySchema = z.object({
  /** The topic's id (`<topic>` or `<namespace>/<topic>`). */
  topic: z.string().min(1),
  /** When the topic was made: a topic made again under the same name starts an archive of its own. */
  topicCreatedAt: z.string().min(1),
  publishId: z.string().min(1),
  /** Epoch ms the publish was accepted: what replays select by. */
  publishedAt: z.number(),
  /** The publish request's `traceparent`, when it gave a valid one. */
  traceparent: z.string().optional(),
  events: z.array(archivedEventSchema),
});
export type ArchiveCopy = z.infer<typeof archiveCopySchema>;

/** A copy as it travels: gzipped JSON. */
export const packArchiveCopy = (copy: ArchiveCopy): Buffer => gzipSync(JSON.stringify(copy));

/** A travelling copy read back; throws naming what is wrong when it is not one. */
export function unpackArchiveCopy(packed: Uint8Array): ArchiveCopy {
  let json: unknown;
  try {
    json = JSON.parse(gunzipSync(packed).toString('utf8'));
  } catch (error) {
    throw new Error(`an archive copy is not gzipped JSON: ${(error as Error).message}`);
  }
  const parsed = archiveCopySchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `an archive copy is malformed: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
