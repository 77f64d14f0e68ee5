/**
 * Dead-letter notices: the events Gridwire raises when it writes a dead-letter blob, so anyone can
 * be told that events were dead-lettered by subscribing to one topic, as the original tells those
 * who subscribe to its dead-letter storage. The topic is the stack's own
 * ({@link DEAD_LETTER_NOTICES}`.topic`, an Event Grid schema topic made with its first
 * subscription); publishers cannot write to it.
 *
 * A blob holds the dead letters of one subscription; it gets one notice per dead-letter reason
 * in it, each with the blob's key, the subscription, the reason and how many events it holds for
 * that reason. The notice's id is made of the blob key and the reason, so a notice sent twice is
 * recognisable as the same one.
 */
import type { TopicRef } from '../../domain/delivery';
import type { DeadLetterReason } from '../../domain/model';

export const DEAD_LETTER_NOTICES = {
  /** The system topic the notices are published to. */
  topic: 'gridwire-deadletters',
  eventType: 'Gridwire.DeadLettered',
  dataVersion: '1',
} as const;

/** Whether `topic` is the dead-letter notices' own topic (whose dead letters raise no notice). */
export const isDeadLetterNoticeTopic = (topic: TopicRef | string): boolean => {
  const name = typeof topic === 'string' ? topic : topic.namespace === undefined ? topic.name : undefined;
  return name !== undefined && name.toLowerCase() === DEAD_LETTER_NOTICES.topic;
};

/** What a notice says: `data` of a `Gridwire.DeadLettered` event. */
export interface DeadLetterNoticeData {
  /** The dead-letter container (the blob's top-level prefix). */
  container: string;
  /** The blob's key in the dead-letter bucket (it begins with the container). */
  blobKey: string;
  /** The bucket the blob is in, when the subscription names one (absent: the stack's own). */
  bucket?: string;
  /** The subscription's topic: a classic topic's name, or `<namespace>/<topic>`. */
  topic: string;
  subscription: string;
  reason: DeadLetterReason;
  /** Events in the blob dead-lettered for this reason. */
  count: number;
  /** When the blob was written (ISO). */
  deadLetteredAt: string;
}

/** A notice as an Event Grid event, ready to be published to the notices' topic. */
export interface DeadLetterNotice {
  id: string;
  eventType: typeof DEAD_LETTER_NOTICES.eventType;
  subject: string;
  eventTime: string;
  dataVersion: typeof DEAD_LETTER_NOTICES.dataVersion;
  data: DeadLetterNoticeData;
}

/** The subscription as a resource path, the notice's subject (filters can match a topic's by prefix). */
export const noticeSubject = (topic: TopicRef, subscription: string): string =>
  topic.namespace === undefined
    ? `/topics/${topic.name}/eventSubscriptions/${subscription}`
    : `/namespaces/${topic.namespace}/topics/${topic.name}/eventSubscriptions/${subscription}`;

/** The notices of one blob: one per reason, in the order the reasons first appear in it. */
export function deadLetterNotices(blob: {
  container: string;
  key: string;
  /** The bucket the subscription names, if any. */
  bucket?: string;
  topic: TopicRef;
  /** The topic as subscriptions name it (`topicIdOf`). */
  topicId: string;
  subscription: string;
  reasons: readonly DeadLetterReason[];
  writtenAt: number;
}): DeadLetterNotice[] {
  const counts = new Map<DeadLetterReason, number>();
  for (const reason of blob.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const deadLetteredAt = new Date(blob.writtenAt).toISOString();
  return [...counts].map(([reason, count]) => ({
    id: blob.bucket === undefined ? `${blob.key}#${reason}` : `${blob.bucket}/${blob.key}#${reason}`,
    eventType: DEAD_LETTER_NOTICES.eventType,
    subject: noticeSubject(blob.topic, blob.subscription),
    eventTime: deadLetteredAt,
    dataVersion: DEAD_LETTER_NOTICES.dataVersion,
    data: {
      container: blob.container,
      blobKey: blob.key,
      ...(blob.bucket === undefined ? {} : { bucket: blob.bucket }),
      topic: blob.topicId,
      subscription: blob.subscription,
      reason,
      count,
      deadLetteredAt,
    },
  }));
}
