/** Where a subscription's dead letters are, and which keys are its blobs. */
import { type DeadLetterFormat, deadLetterPrefix } from '../../delivery/rules/dead-letter-layout';
import { deadLetterScopeOfTarget, deliveryTargetOf } from '../../delivery/target';
import type { Subscription } from '../../domain/model';
import { badRequest } from '../../http/errors';

/** Where a subscription's dead letters are and how their records are written. */
export interface DeadLetterPlace {
  prefix: string;
  format: DeadLetterFormat;
}

/**
 * The subscription's dead-letter place, from its delivery target as the writer has it: the record
 * format and the key layout of that format. 400
 * naming the field when the subscription has no dead-letter destination.
 */
export function deadLetterPlace(subscription: Subscription): DeadLetterPlace {
  const target = deliveryTargetOf(subscription);
  const deadLetter = target.deadLetter;
  if (deadLetter === undefined) {
    throw badRequest(
      `properties.deadLetterDestination: the event subscription '${subscription.name}' has no dead-letter destination, so it has no dead letters.`,
    );
  }
  return {
    prefix: deadLetterPrefix(deadLetter.container, deadLetterScopeOfTarget({ ...target, deadLetter })),
    format: deadLetter.format,
  };
}

/** What follows the prefix in a blob key: `<yyyy>/<M>/<d>/<H>/<name>.json`. */
const BLOB_KEY_TAIL = /^\d{4}\/\d{1,2}\/\d{1,2}\/\d{1,2}\/[^/]+\.json$/;

/**
 * Whether `key` has the shape of a blob key under the place's prefix. The folders are checked
 * too: a namespace `shop` writes under `<container>/shop/...`, which a classic subscription
 * `SHOP` would otherwise take for its own prefix.
 */
export const isBlobKey = (place: DeadLetterPlace, key: string): boolean =>
  key.startsWith(place.prefix) && BLOB_KEY_TAIL.test(key.slice(place.prefix.length));

/** A blob key of this subscription; 400 naming `field` otherwise. */
export function checkKey(place: DeadLetterPlace, key: string, field: string): string {
  if (!isBlobKey(place, key)) {
    throw badRequest(
      `${field}: '${key}' is not a dead-letter blob of this event subscription (its keys are '${place.prefix}<yyyy>/<M>/<d>/<H>/<name>.json').`,
    );
  }
  return key;
}
