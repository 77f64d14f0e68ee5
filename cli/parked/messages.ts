/** A parked message summarized for showing: its times, its size and the job its body carries. */
import type { Message } from '@aws-sdk/client-sqs';
import { topicIdOf } from '../../shared/domain/names';

/** Event ids shown per message. */
export const EVENT_IDS_SHOWN = 3;

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
  /** A FIFO queue's message: its group (one subscription's key), whose messages go in order. */
  group?: string;
  bytes: number;
  /** Absent when the body is not a delivery job (shown by size only). */
  job?: ParkedJob;
}

/** Read loosely: a parked message may be parked precisely because it is malformed. */
const eventIdOf = (item: unknown) => {
  const id = (item as { eventId?: unknown } | null)?.eventId;
  return typeof id === 'string' ? id : '?';
};

/**
 * The topic and subscription a job names: its `target` (`{"v":2,"target":{"topic":{..},
 * "subscription":..},..}`), or the loose fields of the first format (`{"v":1,"topic":..,
 * "subscription":..}`): builds that refused that format parked such messages when they were
 * deployed over them, and this release reads them again once they are redriven.
 */
function jobOwner(json: Record<string, unknown>): { topic: string; subscription: string } | undefined {
  const { v } = json;
  if (v === 1) {
    const { topic, subscription } = json;
    return typeof topic === 'string' && typeof subscription === 'string'
      ? { topic, subscription }
      : undefined;
  }
  // The job schema loads with the first job read, not with the program (see `cli/program.ts`).
  const { deliveryTargetSchema, JOB_FORMAT_VERSION } =
    require('../../shared/domain/delivery') as typeof import('../../shared/domain/delivery');
  if (v !== JOB_FORMAT_VERSION) return undefined;
  const parsed = deliveryTargetSchema.pick({ topic: true, subscription: true }).safeParse(json.target);
  return parsed.success
    ? { topic: topicIdOf(parsed.data.topic), subscription: parsed.data.subscription }
    : undefined;
}

/**
 * A summary of a message body: a job's owner and events (`"items":[..]`, or `"kind":"ended"` with
 * `"ended":[{"item":..}]`), or nothing for anything else.
 */
export function summarizeJob(body: string): ParkedJob | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const job = jobOwner(json as Record<string, unknown>);
  if (job === undefined) return undefined;
  const { kind, items, ended } = json as Record<string, unknown>;
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

/** A received message as `parked list` shows it. */
export function describeMessage(message: Message): ParkedMessage {
  const body = message.Body ?? '';
  const attributes = message.Attributes ?? {};
  const sentAt = isoTime(attributes.SentTimestamp);
  const firstReceivedAt = isoTime(attributes.ApproximateFirstReceiveTimestamp);
  const receiveCount = Number(attributes.ApproximateReceiveCount);
  const group = attributes.SequenceNumber === undefined ? undefined : attributes.MessageGroupId;
  const job = summarizeJob(body);
  return {
    messageId: message.MessageId ?? '?',
    ...(sentAt === undefined ? {} : { sentAt }),
    ...(firstReceivedAt === undefined ? {} : { firstReceivedAt }),
    ...(Number.isInteger(receiveCount) ? { receiveCount } : {}),
    ...(group === undefined ? {} : { group }),
    bytes: Buffer.byteLength(body, 'utf8'),
    ...(job === undefined ? {} : { job }),
  };
}
