/**
 * Dead letters as pure functions: where a blob goes (its key) and what a record in it says.
 * The writer (`shared/delivery/dead-letter.ts`) and the operator tools (listing, showing,
 * replaying) all use these, so the layout is decided in one place.
 */
import type { DeadLetterFormat, DeadLetterReason, DeliveryOutcome } from '../../domain/model';

export type { DeadLetterFormat } from '../../domain/model';

import { objectMembers, objectText } from '../../platform/json-text';

/** Whose dead letters a blob holds: a classic topic's subscription, or a namespace topic's. */
export type DeadLetterScope =
  | { readonly kind: 'topic'; readonly subscription: string }
  | {
      readonly kind: 'namespace';
      readonly namespace: string;
      readonly topic: string;
      readonly subscription: string;
    };

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
} as const;

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
 * `{"deadLetterProperties": {...}, "event": {...}}`.
 */
export function deadLetterRecord(
  format: DeadLetterFormat,
  eventJson: string,
  facts: DeadLetterFacts,
): string {
  if (format === 'namespace') {
    return objectText([
      { name: 'deadLetterProperties', value: objectText(factMembers(FACT_NAMES.camel, facts)) },
      { name: 'event', value: eventJson },
    ]);
  }
  const names = format === 'CloudEventSchemaV1_0' ? FACT_NAMES.lower : FACT_NAMES.camel;
  return objectText([...objectMembers(eventJson), ...factMembers(names, facts)]);
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
  const names = new Set<string>(format === 'CloudEventSchemaV1_0' ? FACT_NAMES.lower : FACT_NAMES.camel);
  return objectText(objectMembers(recordJson).filter((member) => !names.has(member.name)));
}
