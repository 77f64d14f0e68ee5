/**
 * A publish's archive copy (topics with `archive`): the events the publish accepted, as they are
 * delivered, packed to ride on the publish's own message (`archive/copy.ts`), or sent to the
 * archive queue when there is no such message or the copy does not fit on it.
 */
import type { ArchiveCopy } from '../archive/copy';
import { sendArchiveCopies } from '../archive/forward';
import type { TopicRef } from '../domain/delivery';
import { topicIdOf } from '../domain/names';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer } from '../observability/metrics';
import type { JobQueue } from '../queue/sqs-job-queue';
import type { AcceptedEvent } from './publish-request';

/** The copy of a publish's accepted events: all but the repeats its de-duplication found. */
export function archiveCopyOf(
  topic: { readonly id: string; readonly createdAt: string },
  publishId: string,
  publishedAt: number,
  events: readonly AcceptedEvent[],
  repeats: ReadonlySet<number>,
  traceparent: string | undefined,
): ArchiveCopy {
  return {
    topic: topic.id,
    topicCreatedAt: topic.createdAt,
    publishId,
    publishedAt,
    ...(traceparent === undefined ? {} : { traceparent }),
    events: events.flatMap(({ eventId, dataVersion, json }, index) =>
      repeats.has(index) ? [] : [{ index, eventId, dataVersion, json }],
    ),
  };
}

export interface ArchivingDeps {
  queue: JobQueue;
  metrics: MetricBuffer;
  logger: LoggerLike;
}

/**
 * Sends a publish's archive copy to the archive queue. The events are accepted whatever happens
 * here: a copy that cannot be sent is counted as missing from the archive (`ArchiveMissedCount`,
 * which an alarm watches) and logged with its topic and events.
 */
export async function sendCopiesOf(
  deps: ArchivingDeps,
  topic: TopicRef,
  copies: readonly Buffer[],
  events: number,
): Promise<void> {
  try {
    await sendArchiveCopies(
      deps.queue,
      copies.map((copy) => ({ topic, copy: copy.toString('base64') })),
    );
  } catch (error) {
    const topicId = topicIdOf(topic);
    deps.metrics.count(METRIC.ArchiveMissedCount, events, { Topic: topicId });
    deps.logger.error('accepted events could not be queued for the archive', {
      topic: topicId,
      events,
      error: (error as Error).message,
    });
  }
}
