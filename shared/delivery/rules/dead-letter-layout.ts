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

const factValues = (facts: DeadLetterFacts): (string | undefined)[] => [
  JSON.stringify(facts.reason),
  String(facts.deliveryAttempts),
  facts.lastDeliveryOutcome === undefined ? undefined : JSON.stringify(facts.lastDeliveryOutcome),
  JSON.stringify(new Date(facts.publishTime).toISOString()),
  facts.lastDeliveryAttemptTime === undefined
    ? undefined
    : JSON.stringify(new Date(facts.lastDeliveryAttemptTime).toISOString()),
];

const factMembers = (names: readonly string[], facts: DeadLetterFacts) =>
  factValues(facts).flatMap((value, index) =>
    value === undefined ? [] : [{ name: names[index] as string, value }],
  );

/**
 * One dead-letter record as JSON text. `eventJson` is the event as it was delivered; its members
 * and values are kept exactly. Event Grid and custom schema: the event plus `deadLetterReason`,
 * `deliveryAttempts`, `lastDeliveryOutcome`, `publishTime`, `lastDeliveryAttemptTime`;
 * CloudEvents: the same names in lower case; namespace topics:
 * `{"deadLetterProperties": {deadletterreason, deliveryattempts, deliveryresult, publishutc,
 * deliveryattemptutc}, "event": {...}, "customDeliveryProperties": {...}}`, where
 * `customDeliveryProperties` are the subscription's non-secret custom header values for the event
 * (`{}` when none; the caller never passes secret ones). Other formats have no place for them.
 */
export function deadLetterRecord(
  format: DeadLetterFormat,
  eventJson: string,
  facts: DeadLetterFacts,
  customDeliveryProperties: Readonly<Record<string, string>> = {},
): string {
  if (format === 'namespace') {
    return objectText([
      { name: 'deadLetterProperties', value: objectText(factMembers(FACT_NAMES.namespace, facts)) },
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
  return objectText([...objectMembers(eventJson), ...factMembers(factNamesOf(format), facts)]);
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
