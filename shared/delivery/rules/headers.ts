/**
 * The headers of a delivery request as pure rules: the service's own (`aeg-*`, content type) and
 * the subscription's custom ones (static values, and dynamic values read from each event).
 * Values that cannot travel in a header are left out, never sent broken.
 */
import type { DeliveryItem } from '../../domain/delivery';
import type { DeliveryAttributeMapping, DeliveryAuth, EventDeliverySchema } from '../../domain/model';
import { objectMembers } from '../../platform/json-text';

export const USER_AGENT = 'Gridwire/0.1';

/** CloudEvents subscriptions get their events as a batch (a JSON array), as the original sends them. */
export const CLOUD_EVENTS_BATCH_CONTENT_TYPE = 'application/cloudevents-batch+json; charset=utf-8';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Characters HTTP allows in a header value (RFC 9110 field-value: no controls but tab, Latin-1). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Event ids and data versions longer than this are left out of the headers (servers cap the header block). */
export const MAX_ECHOED_HEADER_CHARS = 1024;
/** A custom header value's limit (the original's), in bytes. */
export const MAX_CUSTOM_HEADER_BYTES = 4096;

/** Whether `value` can travel as a header value of at most `maxBytes` (Latin-1: one byte a character). */
export const isSendableHeaderValue = (value: string, maxBytes: number): boolean =>
  value.length <= maxBytes && HEADER_VALUE.test(value);

/**
 * Whether a custom header would pass for the credentials `auth` puts on a request: any auth's
 * `Authorization`, and with SigV4 every `X-Amz-*` header too (the signature's date, content hash
 * and session token). A second copy beside Gridwire's own (`X-Amz-Date` and `x-amz-date` are two
 * keys to a sender) would reach the endpoint twice, and which one it reads is not ours to choose.
 * Refused when a subscription is written (`shared/management/stored-destination.ts`), dropped
 * before credentials are added (`shared/delivery/endpoint-auth.ts`).
 */
export function forgesAuthHeader(authType: DeliveryAuth['type'], name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'authorization' || (authType === 'AwsSigV4' && lower.startsWith('x-amz-'));
}

/**
 * A custom header ready to send: a static value (a secret one already opened), or a dynamic one
 * still to be read from each event along `path`.
 */
export type CustomHeader =
  | { readonly name: string; readonly kind: 'static'; readonly value: string }
  | { readonly name: string; readonly kind: 'dynamic'; readonly path: readonly string[] };

/**
 * A subscription's mappings as headers to send. `open` gives a secret's value (it is called only
 * for secret static values).
 */
export async function customHeadersOf(
  mappings: readonly DeliveryAttributeMapping[],
  open: (sealed: string) => Promise<string>,
): Promise<CustomHeader[]> {
  return Promise.all(
    mappings.map(async (mapping): Promise<CustomHeader> => {
      if (mapping.type === 'Dynamic') {
        return { name: mapping.name, kind: 'dynamic', path: mapping.sourceField.split('.') };
      }
      const value = mapping.isSecret ? await open(mapping.sealedValue) : mapping.value;
      return { name: mapping.name, kind: 'static', value };
    }),
  );
}

/**
 * A subscription's mappings as headers, secret ones left out (never opened): what its dead
 * letters may show (`customDeliveryProperties` of namespace records).
 */
export const nonSecretCustomHeaders = (mappings: readonly DeliveryAttributeMapping[]): CustomHeader[] =>
  mappings.flatMap((mapping): CustomHeader[] => {
    if (mapping.type === 'Dynamic') {
      return [{ name: mapping.name, kind: 'dynamic', path: mapping.sourceField.split('.') }];
    }
    return mapping.isSecret ? [] : [{ name: mapping.name, kind: 'static', value: mapping.value }];
  });

/**
 * The value at a dotted path in an event's JSON text, as header text: a string as itself, a
 * number or boolean as written. `undefined` when the path is missing, or leads to null, an object
 * or an array (the original sends only string, number and boolean values). The last occurrence
 * of a repeated member wins, as for `JSON.parse`.
 */
export function valueAtPath(eventJson: string, path: readonly string[]): string | undefined {
  let text = eventJson;
  for (const segment of path) {
    if (!text.startsWith('{')) return undefined;
    const member = objectMembers(text).findLast((candidate) => candidate.name === segment);
    if (member === undefined) return undefined;
    text = member.value;
  }
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text === 'true' || text === 'false' || /^-?\d/.test(text)) return text;
  return undefined;
}

/**
 * The custom header values for one event (as the subscription receives it). A dynamic value that
 * is missing, not a string, number or boolean, or cannot travel in a header (a line break,
 * characters beyond Latin-1, over 4096 bytes) sends no header.
 */
export function customHeaderValues(
  headers: readonly CustomHeader[],
  eventText: string,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const header of headers) {
    const value = header.kind === 'static' ? header.value : valueAtPath(eventText, header.path);
    if (value !== undefined && isSendableHeaderValue(value, MAX_CUSTOM_HEADER_BYTES))
      values[header.name] = value;
  }
  return values;
}

/**
 * The header that marks a resend: the id of the delivery it sends again, or `deadletter:<blob key>`
 * for an event replayed from a dead letter.
 */
export const RESEND_HEADER = 'gridwire-resend-of';

/** The header of a request whose events are all replayed from their topic's archive: `archive`. */
export const REPLAY_HEADER = 'gridwire-replay-of';

/**
 * The service's headers for a request carrying `items` (all with the same attempt count).
 * `aeg-delivery-count` is the number of earlier attempts (0 on the first); `aeg-output-event-id`
 * and `aeg-data-version` are sent for a single event only, and only when they can travel in a
 * header (the body always carries them), and so is `gridwire-resend-of` on a resend. A CloudEvent has a data version only when it carries the
 * `dataversion` extension.
 */
export function systemHeaders(
  subscription: { readonly name: string; readonly eventDeliverySchema: EventDeliverySchema },
  items: readonly Pick<DeliveryItem, 'attempts' | 'eventId' | 'dataVersion' | 'resendOf' | 'replayOf'>[],
): Record<string, string> {
  const first = items[0];
  if (first === undefined) throw new RangeError('a delivery request needs at least one event');
  const cloudEvents = subscription.eventDeliverySchema === 'CloudEventSchemaV1_0';
  const headers: Record<string, string> = {
    'content-type': cloudEvents ? CLOUD_EVENTS_BATCH_CONTENT_TYPE : JSON_CONTENT_TYPE,
    'user-agent': USER_AGENT,
    'aeg-event-type': 'Notification',
    'aeg-subscription-name': subscription.name.toUpperCase(),
    'aeg-delivery-count': String(first.attempts),
    'aeg-metadata-version': '1',
  };
  if (items.every(({ replayOf }) => replayOf !== undefined))
    headers[REPLAY_HEADER] = first.replayOf as string;
  if (items.length === 1) {
    if (
      (!cloudEvents || first.dataVersion !== '') &&
      isSendableHeaderValue(first.dataVersion, MAX_ECHOED_HEADER_CHARS)
    ) {
      headers['aeg-data-version'] = first.dataVersion;
    }
    if (isSendableHeaderValue(first.eventId, MAX_ECHOED_HEADER_CHARS))
      headers['aeg-output-event-id'] = first.eventId;
    // A resend is queued alone, so it travels alone: the header names the delivery it repeats.
    if (first.resendOf !== undefined && isSendableHeaderValue(first.resendOf, MAX_ECHOED_HEADER_CHARS)) {
      headers[RESEND_HEADER] = first.resendOf;
    }
  }
  return headers;
}
