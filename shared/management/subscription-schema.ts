/**
 * The subscription request body (ARM-shaped, as the original service takes it) and the pieces both
 * kinds of subscription take: the filter, the retry policy, the message log, expiry and the
 * dead-letter destination (the destination is `destination-schema.ts`), each turned into the
 * subscription input as stored.
 */

import { z } from 'zod';
import { type DeliveryProfile, TOPIC_PROFILE } from '../delivery/rules/profiles';
import {
  DELIVERY_LOG_MODES,
  type DeadLetterDestination,
  type DeliveryLogMode,
  EVENT_DELIVERY_SCHEMAS,
  isOrderedKeyPath,
  ORDERED_KEY_RULE,
  type RetryLimits,
  retryLimitsOf,
  type SubscriptionFilter,
} from '../domain/model';
import { badRequest } from '../http/errors';
import { isoDurationOfSeconds, isoDurationSeconds } from '../platform/iso-duration';
import { validateFilter } from '../publish/filter';
import { LABEL_LIMITS } from '../sessions/scope';
import {
  type DestinationInput,
  destinationInputOf,
  destinationSchema,
  externalIdSchema,
  roleArnSchema,
} from './destination-schema';
import { intInRange, invalidBody } from './request-body';

/** Subscriptions one topic may hold (the original service's quota). */
export const MAX_SUBSCRIPTIONS_PER_TOPIC = 500;

/** The original's storage container rule; the container is the top-level key prefix of dead letters. */
export const CONTAINER_NAME = {
  min: 3,
  max: 63,
  pattern: /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/,
} as const;

/**
 * `expirationTimeUtc`: an ISO 8601 date or date-time, UTC when it names no offset (as the
 * original reads it); `null` clears it. Stored as `toISOString`. Whether it lies in the future is
 * checked when the subscription is saved (`saveSubscription`), against the stack's clock.
 */
export const expirationTimeSchema = z
  .union([z.iso.datetime({ offset: true, local: true }), z.iso.date()], {
    error:
      'must be an ISO 8601 date or date-time, such as 2027-01-31 or 2027-01-31T12:00:00Z (UTC when it names no offset)',
  })
  .transform((value) => {
    const zoned = value.length > 10 && !/(?:Z|[+-]\d{2}:\d{2})$/i.test(value) ? `${value}Z` : value;
    return new Date(Date.parse(zoned)).toISOString();
  })
  .nullable()
  .optional();

/** A parsed expiration time as stored: absent for none or `null`. */
export const expirationOf = (time: string | null | undefined): Pick<SubscriptionInput, 'expirationTime'> =>
  time === undefined || time === null ? {} : { expirationTime: time };

/**
 * An S3 bucket's ARN as a dead-letter `resourceId` takes it (`arn:aws:s3:::<bucket>`): a bucket
 * name as S3 allows it, 3 to 63 lower-case letters, digits, dots and hyphens.
 */
const BUCKET_ARN = /^arn:(aws|aws-cn|aws-us-gov):s3:::([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])$/;

/** The bucket a dead-letter `resourceId` names, or `undefined` when it is no S3 bucket ARN. */
export const bucketOfResourceId = (resourceId: string): string | undefined =>
  BUCKET_ARN.exec(resourceId)?.[2];

/**
 * A storage-blob dead-letter destination, as both kinds of subscription take it. `resourceId`
 * names the bucket: an S3 bucket ARN is a bucket of the team's own (one the deployer allows,
 * `deadLetterBuckets`), reached with `roleArn` when it is in another account; any id that is not
 * an ARN (an Azure storage account id, say) is kept and shown, and the stack's bucket is used.
 */
export const deadLetterDestinationSchema = z
  .strictObject(
    {
      endpointType: z.literal('StorageBlob', { error: "must be 'StorageBlob'" }),
      properties: z.strictObject(
        {
          blobContainerName: z.string({ error: 'is required' }).regex(CONTAINER_NAME.pattern, {
            error: `must be ${CONTAINER_NAME.min} to ${CONTAINER_NAME.max} lower-case letters, digits and single hyphens, starting and ending with a letter or digit`,
          }),
          resourceId: z.string().max(1024, { error: 'is at most 1024 characters' }).optional(),
          roleArn: roleArnSchema.optional(),
          externalId: externalIdSchema.optional(),
        },
        { error: 'is required' },
      ),
    },
    { error: 'is required' },
  )
  .superRefine(({ properties }, ctx) => {
    const { resourceId, roleArn, externalId } = properties;
    const bucket = resourceId === undefined ? undefined : bucketOfResourceId(resourceId);
    if (resourceId?.startsWith('arn:') === true && bucket === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'resourceId'],
        message:
          "must be the ARN of an S3 bucket, arn:aws:s3:::<bucket> (3 to 63 lower-case letters, digits, dots and hyphens), or an id that is not an ARN (kept, and the stack's bucket used)",
      });
    }
    if (roleArn !== undefined && bucket === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'roleArn'],
        message:
          "is assumed to write to the bucket in resourceId: give resourceId as arn:aws:s3:::<bucket>, or leave roleArn out (the stack's own bucket needs no role)",
      });
    }
    if (externalId !== undefined && roleArn === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'externalId'],
        message: 'is sent when the role in roleArn is assumed: give roleArn too, or leave externalId out',
      });
    }
  });

/**
 * The managed identity the original writes dead letters with, as both kinds of subscription take
 * it: `SystemAssigned` is the stack's own role; `UserAssigned` names, in
 * `userAssignedIdentity`, the IAM role to assume (a dead-letter destination's `roleArn`).
 */
export const deadLetterIdentitySchema = z
  .strictObject(
    {
      type: z.enum(['SystemAssigned', 'UserAssigned'], {
        error:
          "must be 'SystemAssigned' (the stack's own role) or 'UserAssigned' (the IAM role in userAssignedIdentity)",
      }),
      userAssignedIdentity: roleArnSchema.optional(),
    },
    {
      error:
        'must be {"type": "SystemAssigned"} or {"type": "UserAssigned", "userAssignedIdentity": "<IAM role ARN>"}',
    },
  )
  .superRefine((identity, ctx) => {
    if ((identity.type === 'UserAssigned') !== (identity.userAssignedIdentity !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['userAssignedIdentity'],
        message:
          identity.type === 'UserAssigned'
            ? 'is required with type UserAssigned: the ARN of the IAM role to assume'
            : 'is for type UserAssigned only',
      });
    }
  });

/**
 * A dead-letter destination with the identity it is written with (`deadLetterWithResourceIdentity`
 * of classic subscriptions, `deadLetterDestinationWithResourceIdentity` of namespace ones).
 */
export const deadLetterWithIdentitySchema = z
  .strictObject(
    {
      deadLetterDestination: deadLetterDestinationSchema,
      identity: deadLetterIdentitySchema.optional(),
    },
    { error: 'must be {"identity": {...}, "deadLetterDestination": {...}}' },
  )
  .superRefine(({ identity, deadLetterDestination }, ctx) => {
    const role = deadLetterDestination.properties.roleArn;
    const assumed = identity?.userAssignedIdentity;
    if (assumed !== undefined && role !== undefined && role !== assumed) {
      ctx.addIssue({
        code: 'custom',
        path: ['identity', 'userAssignedIdentity'],
        message: 'names another role than deadLetterDestination.properties.roleArn: give one of them',
      });
    }
    if (
      assumed !== undefined &&
      bucketOfResourceId(deadLetterDestination.properties.resourceId ?? '') === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['identity', 'userAssignedIdentity'],
        message:
          "is assumed to write to the bucket in deadLetterDestination.properties.resourceId: give it as arn:aws:s3:::<bucket>, or use type SystemAssigned (the stack's own bucket)",
      });
    }
  });

/**
 * A subscription's filter as both kinds of subscription take it (`filter` on classic ones,
 * `filtersConfiguration` on namespace ones): checked by the filter rules themselves
 * (`validateFilter`), so what is accepted is exactly what the fan-out can compile. A violation
 * is a 400 naming the field, the index and the limit.
 */
export const subscriptionFilterSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return;
    const violation = validateFilter(value);
    if (violation !== undefined) {
      ctx.addIssue({ code: 'custom', path: violation.field.split('.'), message: violation.message });
    }
  })
  .optional();

/** The filter as stored: the event type list as {@link includedEventTypesOf} keeps it, the rest as given. */
export function filterOf(raw: unknown): SubscriptionFilter {
  if (raw === undefined || raw === null) return {};
  const { includedEventTypes, ...rest } = raw as SubscriptionFilter & {
    includedEventTypes?: string[] | null;
  };
  const defined = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined && value !== null),
  );
  return { ...includedEventTypesOf(includedEventTypes), ...defined } as SubscriptionFilter;
}

/**
 * `retryPolicy.retrySchedule`: the subscription's own schedule, ISO 8601 durations (`PT10S`,
 * `PT1M`, `PT1H`), the last repeating; each within the profile's bounds, as milliseconds.
 */
export function retryScheduleSchema(profile: DeliveryProfile) {
  const { minStepMs, maxStepMs, maxSteps } = profile.limits.retrySchedule;
  const bounds = `from ${isoDurationOfSeconds(minStepMs / 1000)} to ${isoDurationOfSeconds(maxStepMs / 1000)}`;
  return z
    .array(z.string({ error: 'must be an ISO 8601 duration such as PT10S, PT1M or PT1H' }), {
      error: 'must be an array of ISO 8601 durations such as ["PT10S", "PT1M", "PT10M", "PT1H"]',
    })
    .min(1, { error: 'must hold at least one step' })
    .max(maxSteps, { error: `may hold at most ${maxSteps} steps` })
    .transform((steps, ctx) => {
      const stepsMs: number[] = [];
      for (const [index, step] of steps.entries()) {
        const seconds = isoDurationSeconds(step);
        if (seconds === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [index],
            message: `must be an ISO 8601 duration such as PT10S, PT1M or PT1H (got '${step}')`,
          });
          return z.NEVER;
        }
        if (seconds * 1000 < minStepMs || seconds * 1000 > maxStepMs) {
          ctx.addIssue({ code: 'custom', path: [index], message: `must be ${bounds} (got ${step})` });
          return z.NEVER;
        }
        stepsMs.push(seconds * 1000);
      }
      return stepsMs;
    });
}

/** The bounds of `disableAfterFailingFor`: an hour to 30 days. */
export const DISABLE_AFTER_LIMITS = { minMs: 3_600_000, maxMs: 30 * 86_400_000 } as const;

/**
 * `properties.disableAfterFailingFor`: how long the endpoint may fail every attempt before the
 * subscription is disabled, an ISO 8601 duration from PT1H to P30D (as ms), or `null` for never
 * (0); absent: the default (5 days).
 */
export const disableAfterSchema = z
  .string({ error: 'must be an ISO 8601 duration such as P5D or PT12H, or null for never' })
  .transform((text, ctx) => {
    const seconds = isoDurationSeconds(text);
    const ms = seconds === undefined ? undefined : seconds * 1000;
    if (ms === undefined || ms < DISABLE_AFTER_LIMITS.minMs || ms > DISABLE_AFTER_LIMITS.maxMs) {
      ctx.addIssue({
        code: 'custom',
        message: `must be an ISO 8601 duration from PT1H to P30D, or null for never (got '${text}')`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .nullable()
  .optional()
  .transform((ms) => (ms === null ? 0 : ms));

/**
 * `properties.orderedDelivery`: `{"key": "subject"}` or a dotted path into the event; events with
 * the same key are delivered one at a time, in the order they were accepted. `null` or absent: no order.
 */
export const orderedDeliverySchema = z
  .strictObject(
    {
      key: z
        .string({ error: `must be ${ORDERED_KEY_RULE}` })
        .refine(isOrderedKeyPath, { error: `must be ${ORDERED_KEY_RULE}` }),
    },
    { error: `must be an object such as {"key": "subject"}` },
  )
  .nullable()
  .optional();

/** The ordered delivery as stored: absent for none. */
export const orderedDeliveryOf = (
  ordered: z.infer<typeof orderedDeliverySchema>,
): Pick<SubscriptionInput, 'orderedDelivery'> =>
  ordered === undefined || ordered === null ? {} : { orderedDelivery: { key: ordered.key } };

/** `properties.deliveryLog`: what the message log keeps (optional). */
export const deliveryLogSchema = z
  .enum(DELIVERY_LOG_MODES, { error: `must be one of ${DELIVERY_LOG_MODES.join(', ')}` })
  .optional();

/**
 * `properties.labels`: at most `LABEL_LIMITS.count` labels, each 1 to `LABEL_LIMITS.length`
 * characters (a portal session's scope picks the subscriptions whose labels include its own).
 */
export const labelsSchema = z
  .array(
    z
      .string({ error: 'must be a list of strings, such as ["tenant=acme"]' })
      .min(1, `a label is 1 to ${LABEL_LIMITS.length} characters (this one is empty)`)
      .max(LABEL_LIMITS.length, `a label is 1 to ${LABEL_LIMITS.length} characters (this one is longer)`),
    { error: 'must be a list of strings, such as ["tenant=acme"]' },
  )
  .max(LABEL_LIMITS.count, `at most ${LABEL_LIMITS.count} labels`)
  .optional();

/** The subscription body (exported for tests that walk every field of an admin body). */
export function subscriptionBodySchema(profile: DeliveryProfile, allowHttp: boolean) {
  return z.strictObject({
    properties: z.strictObject(
      {
        destination: destinationSchema(allowHttp),
        filter: subscriptionFilterSchema,
        retryPolicy: z
          .strictObject({
            maxDeliveryAttempts: intInRange(profile.limits.maxDeliveryAttempts).optional(),
            eventTimeToLiveInMinutes: intInRange(profile.limits.eventTimeToLiveInMinutes).optional(),
            retrySchedule: retryScheduleSchema(profile).optional(),
          })
          .optional(),
        eventDeliverySchema: z
          .enum(EVENT_DELIVERY_SCHEMAS, { error: `must be one of ${EVENT_DELIVERY_SCHEMAS.join(', ')}` })
          .optional(),
        labels: labelsSchema,
        deliveryLog: deliveryLogSchema,
        disableAfterFailingFor: disableAfterSchema,
        deadLetterDestination: deadLetterDestinationSchema.nullable().optional(),
        deadLetterWithResourceIdentity: deadLetterWithIdentitySchema.nullable().optional(),
        expirationTimeUtc: expirationTimeSchema,
        orderedDelivery: orderedDeliverySchema,
      },
      { error: 'is required' },
    ),
  });
}

export interface SubscriptionInput extends DestinationInput {
  /** The whole filter as stored (event types, subject and advanced filters). */
  filter: SubscriptionFilter;
  /** Normalised once, here: `{ maxAttempts, ttlMs }`. */
  retry: RetryLimits;
  labels: string[];
  /** What the message log keeps; absent (not given): `Failures`. */
  deliveryLog?: DeliveryLogMode;
  /** `disableAfterFailingFor` in ms (0: never); absent (not given): the default. */
  disableAfterFailingForMs?: number;
  deadLetter?: DeadLetterDestination;
  /** As asked for; `deliverySchemaFor` (`delivery-schema.ts`) decides it against the topic. */
  eventDeliverySchema?: (typeof EVENT_DELIVERY_SCHEMAS)[number];
  /** `expirationTimeUtc` as an ISO time; absent when none. */
  expirationTime?: string;
  /** Events with the same key in order; absent: none. */
  orderedDelivery?: { key: string };
}

/** The event type filter as stored: absent (every type) for none, null or `All`. */
const includedEventTypesOf = (
  types: string[] | null | undefined,
): Pick<SubscriptionFilter, 'includedEventTypes'> =>
  types === undefined || types === null || types.some((type) => type.toLowerCase() === 'all')
    ? {}
    : { includedEventTypes: types };

/**
 * A parsed dead-letter destination as stored, with the role of its identity when it has one
 * (`UserAssigned`): the bucket an S3 ARN in `resourceId` names, and how to reach it.
 */
export const deadLetterOf = (
  dead: z.infer<typeof deadLetterDestinationSchema> | null | undefined,
  identity?: z.infer<typeof deadLetterIdentitySchema>,
): Pick<SubscriptionInput, 'deadLetter'> => {
  if (dead === undefined || dead === null) return {};
  const { blobContainerName, resourceId, externalId } = dead.properties;
  const bucket = resourceId === undefined ? undefined : bucketOfResourceId(resourceId);
  const roleArn = dead.properties.roleArn ?? identity?.userAssignedIdentity;
  return {
    deadLetter: {
      container: blobContainerName,
      ...(resourceId === undefined ? {} : { resourceId }),
      ...(bucket === undefined ? {} : { bucket }),
      ...(roleArn === undefined ? {} : { roleArn }),
      ...(externalId === undefined ? {} : { externalId }),
    },
  };
};

/** Where a classic subscription body gives its dead-letter destination, for error messages. */
export const classicDeadLetterField = (body: unknown): string =>
  (body as { properties?: { deadLetterWithResourceIdentity?: unknown } } | null)?.properties
    ?.deadLetterWithResourceIdentity
    ? 'properties.deadLetterWithResourceIdentity.deadLetterDestination'
    : 'properties.deadLetterDestination';

export function parseSubscriptionBody(body: unknown, options: { allowHttp: boolean }): SubscriptionInput {
  const parsed = subscriptionBodySchema(TOPIC_PROFILE, options.allowHttp).safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event subscription');
  const { properties } = parsed.data;
  if (
    properties.deadLetterDestination !== undefined &&
    properties.deadLetterDestination !== null &&
    properties.deadLetterWithResourceIdentity !== undefined &&
    properties.deadLetterWithResourceIdentity !== null
  ) {
    throw badRequest(
      'properties.deadLetterWithResourceIdentity: give either it or properties.deadLetterDestination, not both.',
    );
  }
  const limits = TOPIC_PROFILE.limits;
  return {
    ...destinationInputOf(properties.destination),
    filter: filterOf(properties.filter),
    retry: {
      ...retryLimitsOf({
        maxDeliveryAttempts:
          properties.retryPolicy?.maxDeliveryAttempts ?? limits.maxDeliveryAttempts.default,
        eventTimeToLiveInMinutes:
          properties.retryPolicy?.eventTimeToLiveInMinutes ?? limits.eventTimeToLiveInMinutes.default,
      }),
      ...(properties.retryPolicy?.retrySchedule === undefined
        ? {}
        : { scheduleMs: properties.retryPolicy.retrySchedule }),
    },
    labels: properties.labels ?? [],
    ...(properties.deliveryLog === undefined ? {} : { deliveryLog: properties.deliveryLog }),
    ...(properties.disableAfterFailingFor === undefined
      ? {}
      : { disableAfterFailingForMs: properties.disableAfterFailingFor }),
    ...(properties.eventDeliverySchema === undefined
      ? {}
      : { eventDeliverySchema: properties.eventDeliverySchema }),
    ...(properties.deadLetterWithResourceIdentity === undefined ||
    properties.deadLetterWithResourceIdentity === null
      ? deadLetterOf(properties.deadLetterDestination)
      : deadLetterOf(
          properties.deadLetterWithResourceIdentity.deadLetterDestination,
          properties.deadLetterWithResourceIdentity.identity,
        )),
    ...expirationOf(properties.expirationTimeUtc),
    ...orderedDeliveryOf(properties.orderedDelivery),
  };
}
