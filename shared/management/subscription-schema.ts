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
  type RetryLimits,
  retryLimitsOf,
  type SubscriptionFilter,
} from '../domain/model';
import { isoDurationOfSeconds, isoDurationSeconds } from '../platform/iso-duration';
import { validateFilter } from '../publish/filter';
import { LABEL_LIMITS } from '../sessions/scope';
import { type DestinationInput, destinationInputOf, destinationSchema } from './destination-schema';
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

/** A storage-blob dead-letter destination, as both kinds of subscription take it. */
export const deadLetterDestinationSchema = z.strictObject(
  {
    endpointType: z.literal('StorageBlob', { error: "must be 'StorageBlob'" }),
    properties: z.strictObject(
      {
        blobContainerName: z.string({ error: 'is required' }).regex(CONTAINER_NAME.pattern, {
          error: `must be ${CONTAINER_NAME.min} to ${CONTAINER_NAME.max} lower-case letters, digits and single hyphens, starting and ending with a letter or digit`,
        }),
        resourceId: z.string().max(1024, { error: 'is at most 1024 characters' }).optional(),
      },
      { error: 'is required' },
    ),
  },
  { error: 'is required' },
);

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
        expirationTimeUtc: expirationTimeSchema,
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
}

/** The event type filter as stored: absent (every type) for none, null or `All`. */
const includedEventTypesOf = (
  types: string[] | null | undefined,
): Pick<SubscriptionFilter, 'includedEventTypes'> =>
  types === undefined || types === null || types.some((type) => type.toLowerCase() === 'all')
    ? {}
    : { includedEventTypes: types };

/** A parsed dead-letter destination as stored. */
export const deadLetterOf = (
  dead: z.infer<typeof deadLetterDestinationSchema> | null | undefined,
): Pick<SubscriptionInput, 'deadLetter'> =>
  dead === undefined || dead === null
    ? {}
    : {
        deadLetter: {
          container: dead.properties.blobContainerName,
          ...(dead.properties.resourceId === undefined ? {} : { resourceId: dead.properties.resourceId }),
        },
      };

export function parseSubscriptionBody(body: unknown, options: { allowHttp: boolean }): SubscriptionInput {
  const parsed = subscriptionBodySchema(TOPIC_PROFILE, options.allowHttp).safeParse(body);
  if (!parsed.success) throw invalidBody(parsed.error, 'event subscription');
  const { properties } = parsed.data;
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
    ...deadLetterOf(properties.deadLetterDestination),
    ...expirationOf(properties.expirationTimeUtc),
  };
}
