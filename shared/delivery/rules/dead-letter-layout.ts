/**
 * Dead letters as pure functions: where a blob goes (its key) and what a record in it says.
 * The writer (`shared/delivery/dead-letter.ts`) and the operator tools (listing, showing,
 * replaying) all use these, so the layout is decided in one place.
 */
import type {
  DeadLetterFormat,
  DeadLetterReason,
  DeliveryOutcome,
  EventDeliverySchema,
} from '../../domain/model';

export type { DeadLetterFormat } from '../../domain/model';

import { objectMembers, objectText } from '../../platform/json-text';
import type { DeliveryProfile } from './profiles';

/** Whose dead letters a blob holds: a classic topic's subscription, or a namespace topic's. */
export type DeadLetterScope =
  | { readonly kind: 'topic'; readonly subscription: string }
  | {
      readonly kind: 'namespace';
      readonly namespace: string;
      readonly topic: string;
      readonly subscription: string;
    };

/**
 * The record format of a subscription's dead letters, the one rule for it: the namespace envelope
 * when its profile uses the namespace layout, otherwise the subscription's delivery schema.
 */
export const deadLetterFormatOf = (
  profile: { readonly deadLetter: Pick<DeliveryProfile['deadLetter'], 'layout'> },
  subscription: { readonly eventDeliverySchema: EventDeliverySchema },
): DeadLetterFormat =>
  profile.deadLetter.layout === 'namespace' ? 'namespace' : subscription.eventDeliverySchema;

/**
 * The delivery schema of a subscription whose dead letters are in `format`, the other way round
 * from {@link deadLetterFormatOf}: the format itself, but for the namespace envelope, whose
 * subscriptions deliver CloudEvents only. (Ended jobs of format 1 carried the record format, not
 * the schema; the event a record holds depends on no more than this.)
 */
export const deliverySchemaOfFormat = (format: DeadLetterFormat): EventDeliverySchema =>
  format === 'namespace' ? 'CloudEventSchemaV1_0' : format;

/**
 * Whose dead letters they are, by record format: a namespace record's subscription is one of a
 * namespace topic (`namespaceTopic`: the parts of its `<namespace>/<topic>` id, as
 * `splitNamespaceTopicId` gives them); any other format's is a classic topic's. Throws for a
 * namespace format without a namespace topic.
 */
export function deadLetterScopeOf(
  format: DeadLetterFormat,
  namespaceTopic: { readonly namespace: string; readonly topic: string } | undefined,
  subscription: string,
): DeadLetterScope {
  if (format !== 'namespace') return { kind: 'topic', subscription };
  if (namespaceTopic === undefined) {
    throw new TypeError(`namespace dead letters need a namespace topic (<namespace>/<topic>)`);
  }
  return {
    kind: 'namespace',
    namespace: namespaceTopic.namespace,
    topic: namespaceTopic.topic,
    subscription,
  };
}

/** The key prefix under which a scope's blobs are, ending in `/`. */
export function deadLetterPrefix(container: string, scope: DeadLetterScope): string {
  return scope.kind === 'topic'
    ? `${container}/${scope.subscription.toUpperCase()}/`
    : `${container}/${scope.namespace}/${scope.topic}/${scope.subscription}/`;
}

/**
 * A blob's key: `<container>/<SUBSCRIPTION>/<yyyy>/<M>/<d>/<H>/<uuid>.json` for classic topics,
 * `<container>/<namespace>/<topic>/<subscription>/<yyyy>/<M>/<d>/<H>/<uuid>.json` for namespace
 * topics; UTC, month, day and hour not zero-padded.
 */
export function deadLetterKey(
  container: string,
  scope: DeadLetterScope,
  writtenAt: number,
  uuid: string,
): string {
  const at = new Date(writtenAt);
  const folders = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours()].join('/');
  return `${deadLetterPrefix(container, scope)}${folders}/${uuid}.json`;
}

/** What a dead letter says about the delivery, beside the event. */
export interface DeadLetterFacts {
  readonly reason: DeadLetterReason;
  readonly deliveryAttempts: number;
  /** Absent when no attempt was made (the TTL ran out before the first). */
  readonly lastDeliveryOutcome?: DeliveryOutcome;
  /** Epoch ms the event was accepted. */
  readonly publishTime: number;
  /** Epoch ms the last attempt started; absent when none was made. */
  readonly lastDeliveryAttemptTime?: number;
}

/** The facts under their record names, in the order the original writes them. */
const FACT_NAMES = {
  camel: [
    'deadLetterReason',
    'deliveryAttempts',
    'lastDeliveryOutcome',
    'publishTime',
    'lastDeliveryAttemptTime',
  ],
  lower: [
    'deadletterreason',
    'deliveryattempts',
    'lastdeliveryoutcome',
    'publishtime',
    'lastdeliveryattempttime',
  ],
  /** The `deadLetterProperties` of a namespace record. */
  namespace: ['deadletterreason', 'deliveryattempts', 'deliveryresult', 'publishutc', 'deliveryattemptutc'],
} as const;

/**
 * Whether the events in records of `format` are CloudEvents (lower-case attribute names, a
 * `source` instead of the topic): CloudEvents subscriptions' records and namespace records.
 */
export const recordsHoldCloudEvents = (format: DeadLetterFormat): boolean =>
  format === 'CloudEventSchemaV1_0' || format === 'namespace';

const factNamesOf = (format: DeadLetterFormat): readonly string[] =>
  format === 'namespace'
    ? FACT_NAMES.namespace
    : format === 'CloudEventSchemaV1_0'
      ? FACT_NAMES.lower
      : FACT_NAMES.camel;

/**
 * The name a record of `format` gives the dead-letter reason (inside `deadLetterProperties` for
 * namespace records).
 */
export const reasonNameOf = (format: DeadLetterFormat): string => factNamesOf(format)[0] as string;

/**
 * A dead letter's time as the original writes it: UTC with seven fractional digits
 * (`2020-08-13T17:18:14.0265758Z`). Gridwire's clock counts milliseconds, so the last four are 0.
 */
export const recordTime = (epochMs: number): string => new Date(epochMs).toISOString().replace(/Z$/, '0000Z');

/**
 * How namespace records state the dead-letter reason: a sentence, as the original's namespace
 * page shows (`"Maximum delivery attempts was exceeded."`). The other formats write the name.
 */
export const NAMESPACE_REASON_SENTENCES: Readonly<Record<DeadLetterReason, string>> = {
  MaxDeliveryAttemptsExceeded: 'Maximum delivery attempts was exceeded.',
  TimeToLiveExceeded: 'Event time to live was exceeded.',
  NonRetriableOutcome: 'The destination gave an answer that is not retried.',
  EndpointDisabled: 'The destination was disabled.',
};

/**
 * How namespace records state the last delivery's result (`deliveryresult`): a sentence, as the
 * namespace page shows for an attempt that got no answer (`"Event was not acknowledged nor
 * rejected."`). Every outcome has one, so a record never falls back to a bare name.
 */
export const NAMESPACE_RESULT_SENTENCES: Readonly<Record<DeliveryOutcome, string>> = {
  NotFound: 'The destination was not found.',
  Disabled: 'The destination has disabled receiving events.',
  Full: 'The destination is full.',
  Unauthorized: 'The destination answered that the delivery is unauthorized.',
  BadRequest: 'The destination answered that the request is bad.',
  TimedOut: 'Event was not acknowledged nor rejected.',
  Busy: 'The destination was busy.',
  PayloadTooLarge: 'The event was too large for the destination.',
  Probation: 'The destination was on probation; delivery was not attempted.',
  Canceled: 'The delivery was canceled.',
  Aborted: 'The delivery was aborted.',
  SocketError: 'A network error occurred during delivery.',
  ResolutionError: "The destination's name could not be resolved.",
  Delivering: 'The event was being delivered.',
  SessionQueueNotSupported: 'The destination requires sessions.',
  Forbidden: 'The destination forbade the delivery.',
  InvalidAzureFunctionDestination: 'The destination is not a valid function.',
  GenericError: 'The destination answered with a failure.',
};

const factValues = (facts: DeadLetterFacts, format: DeadLetterFormat): (string | undefined)[] => {
  const sentences = format === 'namespace';
  const outcome = facts.lastDeliveryOutcome;
  return [
    JSON.stringify(sentences ? NAMESPACE_REASON_SENTENCES[facts.reason] : facts.reason),
    String(facts.deliveryAttempts),
    outcome === undefined
      ? undefined
      : JSON.stringify(sentences ? NAMESPACE_RESULT_SENTENCES[outcome] : outcome),
    JSON.stringify(recordTime(facts.publishTime)),
    facts.lastDeliveryAttemptTime === undefined
      ? undefined
      : JSON.stringify(recordTime(facts.lastDeliveryAttemptTime)),
  ];
};

/**
 * The dead-letter reason a record's reason field states: the name itself, or (namespace records)
 * its sentence; `undefined` for anything else.
 */
export function reasonOfStated(stated: string | undefined): DeadLetterReason | undefined {
  if (stated === undefined) return undefined;
  for (const [reason, sentence] of Object.entries(NAMESPACE_REASON_SENTENCES)) {
    if (stated === reason || stated === sentence) return reason as DeadLetterReason;
  }
  return undefined;
}

const factMembers = (format: DeadLetterFormat, facts: DeadLetterFacts) => {
  const names = factNamesOf(format);
  return factValues(facts, format).flatMap((value, index) =>
    value === undefined ? [] : [{ name: names[index] as string, value }],
  );
};

/**
 * One dead-letter record as JSON text. `eventJson` is the event as it was delivered; its members
 * and values are kept exactly. Event Grid and custom schema: the event plus `deadLetterReason`,
 * `deliveryAttempts`, `lastDeliveryOutcome`, `publishTime`, `lastDeliveryAttemptTime`;
 * CloudEvents: the same names in lower case; namespace topics:
 * `{"deadLetterProperties": {deadletterreason, deliveryattempts, deliveryresult, publishutc,
 * deliveryattemptutc}, "event": {...}, "customDeliveryProperties": {...}}`, the reason and the
 * result as sentences ({@link NAMESPACE_REASON_SENTENCES}), where
 * `customDeliveryProperties` are the subscription's non-secret custom header values for the event
 * (`{}` when none; the caller never passes secret ones). Other formats have no place for them.
 * Times have seven fractional digits in every format ({@link recordTime}).
 */
export function deadLetterRecord(
  format: DeadLetterFormat,
  eventJson: string,
  facts: DeadLetterFacts,
  customDeliveryProperties: Readonly<Record<string, string>> = {},
): string {
  if (format === 'namespace') {
    return objectText([
      { name: 'deadLetterProperties', value: objectText(factMembers(format, facts)) },
      { name: 'event', value: eventJson },
      {
        name: 'customDeliveryProperties',
        value: objectText(
          Object.entries(customDeliveryProperties).map(([name, value]) => ({
            name,
            value: JSON.stringify(value),
          })),
        ),
      },
    ]);
  }
  return objectText([...objectMembers(eventJson), ...factMembers(format, facts)]);
}

/** A blob's content: a JSON array of records. */
export const deadLetterBlob = (records: readonly string[]): string => `[${records.join(',')}]`;

/**
 * The event inside a record, as JSON text with the dead-letter fields taken out: what a replay
 * sends again.
 */
export function eventOfRecord(format: DeadLetterFormat, recordJson: string): string {
  if (format === 'namespace') {
    const event = objectMembers(recordJson).find((member) => member.name === 'event');
    if (event === undefined) throw new TypeError('the dead-letter record has no event');
    return event.value;
  }
  const names = new Set<string>(factNamesOf(format));
  return objectText(objectMembers(recordJson).filter((member) => !names.has(member.name)));
}
