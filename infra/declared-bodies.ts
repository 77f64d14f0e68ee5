/**
 * The subscriptions declared in code as the admin API's request bodies: their props, and each
 * part of the body built from them and checked as the API checks it, so a mistake fails the
 * synth naming the prop rather than the deployment. Classic (`declared-resources.ts`) and
 * namespace (`declared-namespaces.ts`) subscriptions share them.
 */
import { type Duration, Token } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { describeRange, isInRange, type SettingRange } from '../shared/config/runtime';
import type { DeliveryProfile } from '../shared/delivery/rules/profiles';
import { RATE_LIMITS } from '../shared/delivery/rules/rate-limit';
import { eventTypeNameProblem } from '../shared/domain/event-types';
import {
  ARCHIVE_RETENTION_IN_DAYS,
  DEDUPLICATION_WINDOW_IN_MINUTES,
  isOrderedKeyPath,
  ORDERED_KEY_RULE,
  UNKNOWN_EVENT_TYPES,
  type UnknownEventTypes,
} from '../shared/domain/model';
import { isValidName, NAME_RULES, type NameKind } from '../shared/domain/names';
import {
  DECLARED_VALIDATION_MODES,
  DEFAULT_DECLARED_VALIDATION,
  type DeclaredValidationMode,
  MAX_VALIDATION_WAIT_SECONDS,
  VALIDATION_WAIT_SECONDS,
} from '../shared/management/declared-resources';
import { parseEventTypeBody } from '../shared/management/event-type-schema';
import {
  CONTAINER_NAME,
  disableAfterSchema,
  labelsSchema,
  retryScheduleSchema,
} from '../shared/management/subscription-schema';
import {
  authBody,
  type DeclaredEndpointAuth,
  type DeclaredEndpointTls,
  tlsBody,
} from './declared-credentials';
import type { DeclaredDestination } from './destinations';
import { BUCKET_ARN_PREFIX, deadLetterBucketOf } from './pipeline/dead-letter-buckets';

/** A declared webhook subscription of a topic, in the admin API's terms. */
export interface DeclaredSubscriptionProps extends DeclaredWebhookProps {
  /** 1 to 30 (default 30), as the `topic` profile allows. */
  readonly maxDeliveryAttempts?: number;
  /** 1 to 1440 (default 1440), as the `topic` profile allows. */
  readonly eventTimeToLiveInMinutes?: number;
  readonly eventDeliverySchema?: 'EventGridSchema' | 'CloudEventSchemaV1_0' | 'CustomInputSchema';
  /**
   * Further subscription properties, as the admin API's body names them (`advancedFilters`,
   * `deadLetterDestination`, `deliveryAttributeMappings`...), merged over the ones above.
   */
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** Throws naming the rule when `name` is not a valid name of its kind. */
export const checkName = (kind: NameKind, name: string): void => {
  if (!isValidName(kind, name)) {
    const rule = NAME_RULES[kind];
    throw new Error(
      `The ${kind} name '${name}' is not valid: ${rule.min} to ${rule.max} letters, digits and hyphens.`,
    );
  }
};

/** Checks a numeric prop against its range, naming the field and the limit. */
export const checkRange = (field: string, value: number | undefined, range: SettingRange): void => {
  if (value !== undefined && !isInRange(value, range)) {
    throw new Error(`${field} must be ${describeRange(range)} (got ${value}).`);
  }
};

/**
 * A declared topic's de-duplication window (classic or namespace) as the body's properties name
 * it, checked against {@link DEDUPLICATION_WINDOW_IN_MINUTES} as the API checks it; nothing when
 * not given (the API's default, off).
 */
export function deduplicationWindowBody(minutes: number | undefined): {
  deduplicationWindowInMinutes?: number;
} {
  checkRange('deduplicationWindowInMinutes', minutes, {
    min: DEDUPLICATION_WINDOW_IN_MINUTES.min,
    max: DEDUPLICATION_WINDOW_IN_MINUTES.max,
    integer: true,
  });
  return minutes === undefined ? {} : { deduplicationWindowInMinutes: minutes };
}

/**
 * A declared topic's archive as the body's properties name it (`archive: {retentionInDays}`),
 * checked against {@link ARCHIVE_RETENTION_IN_DAYS} as the API checks it; nothing when not given
 * (no archive). A namespace topic's retention may be left out (`archive: {}`): the API takes the
 * topic's `eventRetentionInDays`.
 */
export function archiveBody(
  archive: { readonly retentionInDays?: number } | undefined,
  retentionRequired: boolean,
): { archive?: { retentionInDays?: number } } {
  if (archive === undefined || archive === null) return {};
  const days = (archive as { retentionInDays?: unknown }).retentionInDays;
  if (days === undefined && !retentionRequired) return { archive: {} };
  const range = { min: ARCHIVE_RETENTION_IN_DAYS.min, max: ARCHIVE_RETENTION_IN_DAYS.max, integer: true };
  if (typeof days !== 'number' || !isInRange(days, range)) {
    const got = typeof days === 'string' ? JSON.stringify(days) : String(days);
    throw new Error(`archive.retentionInDays must be ${describeRange(range)} (got ${got}).`);
  }
  return { archive: { retentionInDays: days } };
}

/** What a declared webhook subscription has in common, classic or of a namespace topic. */
export interface DeclaredWebhookProps {
  /**
   * Labels of the subscription (`tenant=acme`): at most 20, each 1 to 128 characters. A portal
   * session scoped to labels sees the subscriptions that carry all of them.
   */
  readonly labels?: readonly string[];
  /**
   * The webhook's HTTPS URL; it must answer the validation handshake. Give this or
   * `destination`.
   */
  readonly endpointUrl?: string;
  /**
   * An AWS resource to deliver to instead of a webhook (`Destination.sqs(queue)`...): the
   * delivery function is granted to send to it, and the stack allows it.
   */
  readonly destination?: DeclaredDestination;
  readonly includedEventTypes?: readonly string[];
  readonly subjectBeginsWith?: string;
  readonly subjectEndsWith?: string;
  readonly maxEventsPerBatch?: number;
  readonly preferredBatchSizeInKilobytes?: number;
  /**
   * Whether the deployment waits for the endpoint to agree to receive (the validation handshake):
   * - `'async'` (default): the subscription is created and the deployment goes on; the endpoint
   *   is asked at once and, while it has not agreed, receives nothing. The outcome shows in the
   *   subscription's `provisioningState` (`gridwire subscription show`), in `gridwire health`,
   *   and, when the endpoint refuses or can't be reached, in the `EndpointValidationFailCount`
   *   metric and the `endpointValidationFailed` alarm. An endpoint that is not there yet can be
   *   validated later through its validation URL, or by deploying again with a change.
   * - `'wait'`: the subscription is reported created only once its endpoint agreed; one that has
   *   not by `validationWaitSeconds` fails the deployment (and a first create rolls back).
   */
  readonly validation?: DeclaredValidationMode;
  /**
   * With `validation: 'wait'`, seconds the deployment waits for the endpoint to agree (default
   * {@link VALIDATION_WAIT_SECONDS}, at most {@link MAX_VALIDATION_WAIT_SECONDS}).
   */
  readonly validationWaitSeconds?: number;
  /**
   * Requests per second the endpoint is sent at most, across all workers (1 to 10,000; a batch is
   * one request); the rest are held, not failed. Default: no limit of its own.
   */
  readonly maxDeliveriesPerSecond?: number;
  /**
   * Sign every delivery (Standard Webhooks) with a secret the stack generates: `true` or `'v1'`
   * (HMAC-SHA256), `'v1a'` (an Ed25519 key: receivers verify with its public key). Read it with
   * `gridwire subscription signing-secret` or the admin API's `getSigningSecret`. A secret never
   * appears in the template.
   */
  readonly signing?: boolean | 'v1' | 'v1a';
  /**
   * The subscription's own retry schedule, the last step repeating (each 10 s to 12 h, at most
   * 30 steps, 10 for namespace subscriptions). Default: the profile's schedule.
   */
  readonly retrySchedule?: readonly Duration[];
  /**
   * Disable the subscription, with a `Gridwire.SubscriptionDisabled` notice, once its endpoint has
   * failed every attempt this long (1 hour to 30 days), or `'never'`. Default 5 days.
   */
  readonly disableAfterFailingFor?: Duration | 'never';
  /** What the message log keeps: `Failures` (default) or `All` deliveries. */
  readonly deliveryLog?: 'Failures' | 'All';
  /**
   * Deliver events with the same key one at a time, in the order they were accepted: `key` is
   * `'subject'`, or a dotted path of 1 to 8 member names into the event as delivered (such as
   * `'data.orderId'`). Default: no order kept.
   */
  readonly orderedDelivery?: DeclaredOrderedDelivery;
  /**
   * Credentials on every request (and on the validation handshake): an OAuth 2.0 client (its
   * secret read from Secrets Manager by the management function when the subscription is put,
   * never in the template), or SigV4 with the delivery function's own role.
   */
  readonly auth?: DeclaredEndpointAuth;
  /**
   * The endpoint's own TLS settings: a client certificate (PEM, in the template: it is public)
   * whose private key is read from Secrets Manager by the management function when the
   * subscription is put (never in the template), and CA certificates trusted for the endpoint.
   */
  readonly tls?: DeclaredEndpointTls;
  /**
   * Where the events whose delivery ended are written (the dead-letter destination): a container
   * (the top-level key prefix of its dead letters) in the stack's dead-letter bucket, or in a
   * bucket of your own (`bucket`), which declaring it allows and grants. Without it, ended events
   * are dropped.
   */
  readonly deadLetter?: DeclaredDeadLetter;
}

/** The key a declared subscription's events are delivered in order by. */
export interface DeclaredOrderedDelivery {
  /** `'subject'`, or a dotted path into the event as delivered (`'data.orderId'`). */
  readonly key: string;
}

/**
 * A declared subscription's ordered delivery as the body's properties name it
 * (`orderedDelivery: {key}`), its key checked against {@link ORDERED_KEY_RULE} as the API checks
 * it; nothing when not given (no order).
 */
export function orderedDeliveryBody(ordered: DeclaredOrderedDelivery | undefined): {
  orderedDelivery?: { key: string };
} {
  if (ordered === undefined) return {};
  const key = (ordered as { key?: unknown } | null)?.key;
  if (typeof key !== 'string' || !isOrderedKeyPath(key)) {
    throw new Error(`orderedDelivery.key must be ${ORDERED_KEY_RULE} (got ${JSON.stringify(key)}).`);
  }
  return { orderedDelivery: { key } };
}

/** Where a declared subscription's dead letters are written. */
export interface DeclaredDeadLetter {
  /** 3 to 63 lower-case letters, digits and single hyphens, beginning and ending with a letter or digit. */
  readonly container: string;
  /**
   * A bucket of your own instead of the stack's dead-letter bucket: the bucket, its name or its
   * `arn:aws:s3:::` ARN. Declaring it adds it to the pipeline's `deadLetterBuckets` and grants
   * the dead-letter and management functions to write and read it (its KMS key too).
   */
  readonly bucket?: s3.IBucket | string;
  /**
   * The ARN of a role of another account that may write to `bucket`, assumed to write there: the
   * functions are granted `sts:AssumeRole` on it, nothing on the bucket itself, and the bucket
   * is allowed with this role only. Its trust policy must name the dead-letter and management
   * functions' roles. Only with `bucket`.
   */
  readonly role?: string;
  /**
   * Sent as `ExternalId` when the role is assumed (what its trust policy asks for in
   * `sts:ExternalId`): 2 to 1224 characters, letters, digits and `_+=,.@:/-`. Not a secret: it is
   * in the template and shown with the subscription. Only with `role`.
   */
  readonly externalId?: string;
}

/** An external id as STS's `AssumeRole` takes it. */
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

/**
 * The dead-letter destination of a declared subscription, as the admin API's body names it
 * (`{endpointType: 'StorageBlob', properties: {blobContainerName, resourceId, roleArn,
 * externalId}}`), each part checked as the API checks it, and the bucket checked as the
 * `deadLetterBuckets` prop's entries are (one bucket, no pattern).
 */
export function deadLetterDestinationBody(deadLetter: DeclaredDeadLetter) {
  const { container, bucket, role, externalId } = deadLetter;
  if (typeof container !== 'string' || !CONTAINER_NAME.pattern.test(container)) {
    throw new Error(
      `deadLetter.container: '${String(container)}' must be ${CONTAINER_NAME.min} to ${CONTAINER_NAME.max} lower-case letters, digits and single hyphens, beginning and ending with a letter or digit.`,
    );
  }
  if (role !== undefined && bucket === undefined) {
    throw new Error(
      "deadLetter.role: is assumed to write to a bucket of your own; give bucket too (the stack's own bucket is written with the functions' own role).",
    );
  }
  if (externalId !== undefined && role === undefined) {
    throw new Error(
      'deadLetter.externalId: is sent when the role is assumed; give role too, or leave externalId out.',
    );
  }
  if (externalId !== undefined && !Token.isUnresolved(externalId) && !EXTERNAL_ID.test(externalId)) {
    throw new Error(
      `deadLetter.externalId: '${externalId}' must be 2 to 1224 characters, letters, digits and _+=,.@:/- (STS's rules for an external id).`,
    );
  }
  const allowed =
    bucket === undefined
      ? undefined
      : deadLetterBucketOf(
          role === undefined ? bucket : { bucket, role },
          role === undefined ? 'deadLetter.bucket' : 'deadLetter',
          false,
        );
  return {
    endpointType: 'StorageBlob',
    properties: {
      blobContainerName: container,
      ...(allowed === undefined ? {} : { resourceId: `${BUCKET_ARN_PREFIX}${allowed.name}` }),
      ...(role === undefined ? {} : { roleArn: role }),
      ...(externalId === undefined ? {} : { externalId }),
    },
  };
}

/**
 * The settings of `props` beyond the original's: the retry schedule (whose place in the body
 * differs between classic and namespace subscriptions) and the subscription-level properties,
 * each checked as the admin API checks it, so a mistake fails the synth naming the prop.
 */
export function webhookSettingsOf(
  props: DeclaredWebhookProps,
  profile: DeliveryProfile,
): { retrySchedule?: string[]; properties: Record<string, unknown> } {
  const retrySchedule = props.retrySchedule?.map((step) => step.toIsoString());
  if (retrySchedule !== undefined) {
    const parsed = retryScheduleSchema(profile).safeParse(retrySchedule);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `retrySchedule${issue?.path.map((part) => `[${String(part)}]`).join('') ?? ''} ${issue?.message}.`,
      );
    }
  }
  const disableAfter =
    props.disableAfterFailingFor === undefined
      ? undefined
      : props.disableAfterFailingFor === 'never'
        ? null
        : props.disableAfterFailingFor.toIsoString();
  if (typeof disableAfter === 'string' && !disableAfterSchema.safeParse(disableAfter).success) {
    throw new Error(
      `disableAfterFailingFor must be from 1 hour to 30 days, or 'never' (got ${disableAfter}).`,
    );
  }
  if (props.labels !== undefined) {
    const parsed = labelsSchema.safeParse([...props.labels]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(
        `labels${issue?.path.map((part) => `[${String(part)}]`).join('') ?? ''}: ${issue?.message} (got ${JSON.stringify(props.labels)}).`,
      );
    }
  }
  return {
    ...(retrySchedule === undefined ? {} : { retrySchedule }),
    properties: {
      ...(props.labels === undefined ? {} : { labels: [...props.labels] }),
      ...(disableAfter === undefined ? {} : { disableAfterFailingFor: disableAfter }),
      ...(props.deliveryLog === undefined ? {} : { deliveryLog: props.deliveryLog }),
      ...orderedDeliveryBody(props.orderedDelivery),
    },
  };
}

/** The webhook destination of a declared subscription, as the admin API's body names it. */
export function webhookDestinationBody(props: DeclaredWebhookProps) {
  checkRange('maxDeliveriesPerSecond', props.maxDeliveriesPerSecond, { ...RATE_LIMITS, integer: true });
  // What both kinds of destination take: output batching and a rate limit.
  const batching = {
    ...(props.maxEventsPerBatch === undefined ? {} : { maxEventsPerBatch: props.maxEventsPerBatch }),
    ...(props.preferredBatchSizeInKilobytes === undefined
      ? {}
      : { preferredBatchSizeInKilobytes: props.preferredBatchSizeInKilobytes }),
    ...(props.maxDeliveriesPerSecond === undefined
      ? {}
      : { maxDeliveriesPerSecond: props.maxDeliveriesPerSecond }),
  };
  if ((props.endpointUrl === undefined) === (props.destination === undefined)) {
    throw new Error(
      'A declared subscription needs endpointUrl (a webhook) or destination (an AWS resource), one of the two.',
    );
  }
  if (props.destination !== undefined) {
    const webhookOnly = [
      props.signing === undefined ? undefined : 'signing',
      props.auth === undefined ? undefined : 'auth',
    ].filter((name) => name !== undefined);
    if (webhookOnly.length > 0) {
      throw new Error(`${webhookOnly.join(' and ')}: for webhooks only, not an AWS resource destination.`);
    }
    return {
      endpointType: props.destination.endpointType,
      properties: {
        resourceArn: props.destination.resourceArn,
        ...props.destination.properties,
        ...batching,
      },
    };
  }
  return {
    endpointType: 'WebHook',
    properties: {
      endpointUrl: props.endpointUrl,
      ...(props.signing === undefined || props.signing === false
        ? {}
        : { signing: { generate: true, ...(props.signing === 'v1a' ? { scheme: 'v1a' } : {}) } }),
      ...(props.auth === undefined ? {} : { auth: authBody(props.auth) }),
      ...(props.tls === undefined ? {} : { tls: tlsBody(props.tls) }),
      ...batching,
    },
  };
}

/** The event type and subject filter of a declared subscription; `undefined` when it has none. */
export function filterBody(props: DeclaredWebhookProps): Record<string, unknown> | undefined {
  const filter = {
    ...(props.includedEventTypes === undefined ? {} : { includedEventTypes: [...props.includedEventTypes] }),
    ...(props.subjectBeginsWith === undefined ? {} : { subjectBeginsWith: props.subjectBeginsWith }),
    ...(props.subjectEndsWith === undefined ? {} : { subjectEndsWith: props.subjectEndsWith }),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * The properties that say whether a declared subscription's deployment waits for its endpoint,
 * and how long (checked first).
 */
export function validationWaitOf(props: DeclaredWebhookProps): Record<string, string> {
  const mode = props.validation ?? DEFAULT_DECLARED_VALIDATION;
  if (!DECLARED_VALIDATION_MODES.includes(mode)) {
    throw new Error(
      `validation must be ${DECLARED_VALIDATION_MODES.map((value) => `'${value}'`).join(' or ')} (got ${String(mode)}).`,
    );
  }
  if (mode === 'async') {
    if (props.validationWaitSeconds !== undefined) {
      throw new Error(
        "validationWaitSeconds applies only with validation: 'wait' (the deployment does not wait for the endpoint otherwise).",
      );
    }
    return { Validation: mode };
  }
  checkRange('validationWaitSeconds', props.validationWaitSeconds, {
    min: 0,
    max: MAX_VALIDATION_WAIT_SECONDS,
    integer: true,
  });
  return {
    Validation: mode,
    ValidationWaitSeconds: String(props.validationWaitSeconds ?? VALIDATION_WAIT_SECONDS),
  };
}

/** An event type of a declared topic's catalog (`topic.addEventType`), as the admin API takes it. */
export interface DeclaredEventTypeProps {
  /** The event type, e.g. `Order.Created` (letters, digits and `. _ - : + ~`, at most 128). */
  readonly name: string;
  /**
   * The JSON Schema (draft 2020-12) of its events' data: a topic with `validateEvents` refuses
   * events of this type whose data does not match it. Checked at synthesis as the API checks it.
   */
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly description?: string;
  /** An example of its events' data; it must match the schema. */
  readonly example?: unknown;
}

/**
 * An event type's `PUT` body, checked at synthesis as the management API checks it (the name's
 * rule, the limits, the schema's validity and the example's match): a mistake fails `cdk synth`
 * naming the type and the field, not the deployment.
 */
export function eventTypeBody(props: DeclaredEventTypeProps): Record<string, unknown> {
  const problem = eventTypeNameProblem(props.name);
  if (problem !== undefined)
    throw new Error(`addEventType: '${props.name}' is not an event type's name: ${problem}.`);
  const body = {
    ...(props.description === undefined ? {} : { description: props.description }),
    ...(props.schema === undefined ? {} : { schema: props.schema }),
    ...(props.example === undefined ? {} : { example: props.example }),
  };
  try {
    parseEventTypeBody(JSON.parse(JSON.stringify(body)));
  } catch (error) {
    throw new Error(`addEventType '${props.name}': ${(error as Error).message}`);
  }
  return body;
}

/** The event validation settings as the topic body names them, checked; nothing when not given. */
export function eventValidationBody(
  validateEvents: boolean | undefined,
  unknownEventTypes: UnknownEventTypes | undefined,
): { validateEvents?: boolean; unknownEventTypes?: UnknownEventTypes } {
  if (unknownEventTypes !== undefined && !UNKNOWN_EVENT_TYPES.includes(unknownEventTypes)) {
    throw new Error(
      `unknownEventTypes must be one of ${UNKNOWN_EVENT_TYPES.join(', ')} (got ${String(unknownEventTypes)}).`,
    );
  }
  return {
    ...(validateEvents === undefined ? {} : { validateEvents }),
    ...(unknownEventTypes === undefined ? {} : { unknownEventTypes }),
  };
}
