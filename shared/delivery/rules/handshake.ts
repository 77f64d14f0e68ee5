/**
 * The endpoint validation handshake as rules: when a subscription needs one, what it sends, what
 * counts as the endpoint's consent, and the provisioning state that follows. Pure; the exchange
 * itself is in `shared/delivery/handshake.ts`.
 *
 * - Event Grid (and custom input) deliveries: one `Microsoft.EventGrid.SubscriptionValidationEvent`
 *   POSTed with `aeg-event-type: SubscriptionValidation`; consent is a 200 whose JSON body has
 *   `validationResponse` equal to `data.validationCode`, or later a GET of `data.validationUrl`.
 * - CloudEvents deliveries: the CloudEvents webhook handshake, an `OPTIONS` request with
 *   `WebHook-Request-Origin`; consent is a 200 whose `WebHook-Allowed-Origin` is that origin or
 *   `*`, or later a GET of the `WebHook-Request-Callback` URL.
 */
import type {
  EndpointValidation,
  EventDeliverySchema,
  ProvisioningState,
  Subscription,
} from '../../domain/model';
import type { EndpointTlsOptions } from './endpoint-tls';
import { JSON_CONTENT_TYPE, USER_AGENT } from './headers';

/** How long the validation URL validates, from the start of a validation (at time scale 1). */
export const VALIDATION_WINDOW_MS = 5 * 60_000;

/** The event type of the validation event. */
export const VALIDATION_EVENT_TYPE = 'Microsoft.EventGrid.SubscriptionValidationEvent';

/** The request rate Gridwire announces in the CloudEvents handshake (requests per minute, `*`: no limit). */
export const ANNOUNCED_REQUEST_RATE = '*';

/** Which handshake a subscription's endpoint gets. */
export type HandshakeKind = 'eventGrid' | 'cloudEvents';

export const handshakeKindOf = (schema: EventDeliverySchema): HandshakeKind =>
  schema === 'CloudEventSchemaV1_0' ? 'cloudEvents' : 'eventGrid';

/**
 * What a subscription's provisioning state is: `Succeeded` without a validation or once the
 * endpoint agreed, `AwaitingManualAction` while the validation URL still validates, `Failed`
 * after that.
 */
export function provisioningStateOf(
  subscription: Pick<Subscription, 'validation'>,
  nowMs: number,
): ProvisioningState {
  const validation = subscription.validation;
  if (validation === undefined || validation.validatedAt !== undefined) return 'Succeeded';
  return nowMs <= validation.expiresAt ? 'AwaitingManualAction' : 'Failed';
}

/**
 * How long events wait before looking again whether their subscription's new endpoint agreed
 * (the delivery engine holds a job this long; a backlog wakes again after it).
 */
export const UNVALIDATED_ENDPOINT_HOLD_MS = 60_000;

/** Whether events may be matched to (and delivered to) the subscription's endpoint. */
export const endpointAgreed = (subscription: Pick<Subscription, 'validation'>): boolean =>
  subscription.validation === undefined || subscription.validation.validatedAt !== undefined;

/**
 * The validation a subscription keeps or gets when it is written with `endpoint` (as stored: an
 * unchanged URL keeps its sealed query string, so equal URLs store equal): the current one while
 * the endpoint is the same; for a new subscription or another endpoint (another query string
 * included), a fresh one when validation is on (none when it is off).
 */
export function validationForWrite(
  existing: Pick<Subscription, 'validation' | 'destination'> | undefined,
  endpoint: { readonly endpointUrl: string; readonly sealedQuery?: string | undefined },
  fresh: () => EndpointValidation,
  validateEndpoints: boolean,
): EndpointValidation | undefined {
  if (
    existing !== undefined &&
    existing.destination.endpointType === 'WebHook' &&
    existing.destination.endpointUrl === endpoint.endpointUrl &&
    existing.destination.sealedQuery === endpoint.sealedQuery
  ) {
    return existing.validation;
  }
  return validateEndpoints ? fresh() : undefined;
}

/** A new validation of `endpointUrl` starting at `nowMs`, whose URL validates for `windowMs`. */
export const newValidation = (
  endpointUrl: string,
  code: string,
  nowMs: number,
  windowMs: number,
): EndpointValidation => ({ endpointUrl, code, startedAt: nowMs, expiresAt: nowMs + windowMs });

/** One handshake request. */
export interface HandshakeRequest {
  method: 'POST' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The subscription's own TLS settings, as deliveries use them; absent: none. */
  tls?: EndpointTlsOptions;
}

/** What the endpoint answered (only what the rules look at). */
export interface HandshakeAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
}

export interface HandshakeInput {
  kind: HandshakeKind;
  endpointUrl: string;
  subscriptionName: string;
  /** The topic's resource id, the validation event's `topic`. */
  topicId: string;
  code: string;
  validationUrl: string;
  /** Who asks, for `WebHook-Request-Origin` (the API's host). */
  origin: string;
  eventId: string;
  nowMs: number;
}

/** The request that asks the endpoint's consent. */
export function handshakeRequest(input: HandshakeInput): HandshakeRequest {
  if (input.kind === 'cloudEvents') {
    return {
      method: 'OPTIONS',
      url: input.endpointUrl,
      headers: {
        'user-agent': USER_AGENT,
        'webhook-request-origin': input.origin,
        'webhook-request-rate': ANNOUNCED_REQUEST_RATE,
        'webhook-request-callback': input.validationUrl,
      },
    };
  }
  const event = {
    id: input.eventId,
    topic: input.topicId,
    subject: '',
    data: { validationCode: input.code, validationUrl: input.validationUrl },
    eventType: VALIDATION_EVENT_TYPE,
    eventTime: new Date(input.nowMs).toISOString(),
    metadataVersion: '1',
    dataVersion: '2',
  };
  return {
    method: 'POST',
    url: input.endpointUrl,
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      'user-agent': USER_AGENT,
      'aeg-event-type': 'SubscriptionValidation',
      'aeg-subscription-name': input.subscriptionName.toUpperCase(),
      'aeg-delivery-count': '0',
      'aeg-metadata-version': '1',
      'aeg-data-version': '2',
    },
    body: JSON.stringify([event]),
  };
}

/**
 * Whether the answer is the endpoint's consent; otherwise why not, in words for the subscription's
 * owner (shown by the management API).
 */
export function judgeAnswer(
  input: Pick<HandshakeInput, 'kind' | 'code' | 'origin'>,
  answer: HandshakeAnswer,
): { agreed: true } | { agreed: false; reason: string } {
  if (answer.status !== 200) {
    return {
      agreed: false,
      reason:
        input.kind === 'cloudEvents'
          ? `The endpoint answered the OPTIONS handshake with HTTP ${answer.status}; consent is a 200 with WebHook-Allowed-Origin.`
          : `The endpoint answered the validation event with HTTP ${answer.status}; consent is a 200 with {"validationResponse": "<validationCode>"}.`,
    };
  }
  if (input.kind === 'cloudEvents') {
    const allowed = answer.headers['webhook-allowed-origin']?.trim();
    if (allowed === '*' || (allowed !== undefined && allowed.toLowerCase() === input.origin.toLowerCase())) {
      return { agreed: true };
    }
    return {
      agreed: false,
      reason:
        allowed === undefined
          ? 'The endpoint answered the OPTIONS handshake without WebHook-Allowed-Origin.'
          : `The endpoint allowed origin '${allowed.slice(0, 200)}', not '${input.origin}' or '*'.`,
    };
  }
  if (answer.body.trim() === '') {
    return {
      agreed: false,
      reason: 'The answer to the validation event has no validationResponse (its body is empty).',
    };
  }
  let response: unknown;
  try {
    response = JSON.parse(answer.body);
  } catch {
    return { agreed: false, reason: 'The answer to the validation event is not JSON.' };
  }
  const echoed =
    typeof response === 'object' && response !== null && !Array.isArray(response)
      ? (response as { validationResponse?: unknown }).validationResponse
      : undefined;
  if (echoed === input.code) return { agreed: true };
  return {
    agreed: false,
    reason:
      echoed === undefined
        ? 'The answer to the validation event has no validationResponse.'
        : 'The validationResponse in the answer is not the validationCode sent.',
  };
}
