/**
 * Job messages of format 1, written byte for byte as the builds before the delivery target wrote
 * them: the writers below are those of `shared/queue/job-codec.ts` at the parent of commit
 * 97d0d5e (`git show 97d0d5e^:shared/queue/job-codec.ts`), kept here unchanged but for their
 * names and the size limits, which tests don't need. Only tests write this format now: the
 * release reads it (`shared/domain/job-format-1.ts`, `shared/delivery/job-upgrade.ts`) and never
 * writes it.
 */
import type { DeliveryItem, EndedDelivery } from '../../shared/domain/delivery';
import type { DeadLetterFormat, DeliveryProfileName } from '../../shared/domain/model';
import { sqsSafeJson } from '../../shared/queue/job-codec';

/** What every format-1 job named: the topic as storage keys it, and the subscription. */
export interface FormatOneEnvelope {
  /** A classic topic's name, or `<namespace>/<topic>`. */
  topic: string;
  subscription: string;
  subscriptionUid?: string;
  subscriptionVersion?: number;
  dueAt?: number;
}

/** The envelope of ended deliveries in format 1: also where and how to write them. */
export interface FormatOneEndedEnvelope extends Omit<FormatOneEnvelope, 'dueAt'> {
  deliveryProfile: DeliveryProfileName;
  deadLetter: { container: string; format: DeadLetterFormat };
}

const endedFields = (envelope: FormatOneEnvelope | FormatOneEndedEnvelope): string =>
  'deadLetter' in envelope
    ? `"deliveryProfile":${JSON.stringify(envelope.deliveryProfile)},"deadLetter":${JSON.stringify(envelope.deadLetter)},`
    : '';

const envelopeHead = (
  envelope: FormatOneEnvelope | FormatOneEndedEnvelope,
  kind: 'items' | 'ended',
): string =>
  `{"v":1,${kind === 'ended' ? `"kind":"ended",${endedFields(envelope)}` : ''}"topic":${JSON.stringify(envelope.topic)},"subscription":${JSON.stringify(envelope.subscription)}${
    envelope.subscriptionUid === undefined
      ? ''
      : `,"subscriptionUid":${JSON.stringify(envelope.subscriptionUid)}`
  }${
    envelope.subscriptionVersion === undefined ? '' : `,"subscriptionVersion":${envelope.subscriptionVersion}`
  }${'dueAt' in envelope && envelope.dueAt !== undefined ? `,"dueAt":${Math.ceil(envelope.dueAt)}` : ''},"${kind}":[`;

const body = (head: string, entries: readonly unknown[]): string =>
  `${head}${entries.map((entry) => sqsSafeJson(JSON.stringify(entry))).join(',')}]}`;

/** A delivery job (published, retried or hopped), all its items in one message. */
export const formatOneDeliveryBody = (envelope: FormatOneEnvelope, items: readonly DeliveryItem[]): string =>
  body(envelopeHead(envelope, 'items'), items);

/** Ended deliveries on their way to the dead-letter step, all in one message. */
export const formatOneEndedBody = (
  envelope: FormatOneEndedEnvelope,
  ended: readonly EndedDelivery[],
): string => body(envelopeHead(envelope, 'ended'), ended);

/** One subscription of a format-1 fan-out: its envelope without the topic, and what it matched. */
export interface FormatOneFanOutDestination extends Omit<FormatOneEnvelope, 'topic' | 'dueAt'> {
  matched: readonly number[];
}

/** A publish's fan-out. */
export function formatOneFanOutBody(
  topic: string,
  items: readonly DeliveryItem[],
  targets: readonly FormatOneFanOutDestination[],
): string {
  const job = {
    v: 1,
    kind: 'fanout',
    topic,
    items: [...items],
    targets: targets.map(({ subscription, subscriptionUid, subscriptionVersion, matched }) => ({
      subscription,
      ...(subscriptionUid === undefined ? {} : { subscriptionUid }),
      ...(subscriptionVersion === undefined ? {} : { subscriptionVersion }),
      matched: [...matched],
    })),
  };
  return sqsSafeJson(JSON.stringify(job));
}

/** The message that stood for a fan-out stored under `key` in the fan-out bucket. */
export const formatOneStoredFanOutBody = (topic: string, key: string, bytes: number): string =>
  sqsSafeJson(JSON.stringify({ v: 1, kind: 'stored-fanout', topic, key, bytes }));

/** A validation handshake, as the management API queued it. */
export const formatOneValidationBody = (job: {
  topic: string;
  subscription: string;
  subscriptionUid?: string;
  code: string;
  validationUrl: string;
}): string => sqsSafeJson(JSON.stringify({ v: 1, kind: 'validate', ...job }));
