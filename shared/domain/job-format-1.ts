/**
 * Job format 1, frozen: the queued shapes as the builds before the delivery target wrote them
 * (the parent of commit 97d0d5e; no release wrote it, 0.1.0 already writes format 2). Every job
 * named its subscription by loose fields: `topic` (the topic as storage keys it, a name or
 * `<namespace>/<topic>`), `subscription`, and optionally `subscriptionUid`, `subscriptionVersion`
 * and `dueAt`; ended jobs also carried the subscription's `deliveryProfile` and `deadLetter` place.
 * Format 2 carries a whole delivery target instead (`delivery.ts`).
 *
 * Such messages may still be queued when a release of format 2 is deployed, so they are still
 * read: `queue/job-codec.ts` reads them with these schemas, and `delivery/job-upgrade.ts` turns
 * each into the job of the current format. Nothing writes this format any more, and these schemas
 * never change: a later format gets a frozen file of its own in the same way.
 *
 * The events inside (delivery items, ended deliveries) are read with the current schemas: format
 * 2 changed only the envelope, and every field items gained since is optional.
 */
import { z } from 'zod';
import { deliveryItemSchema, endedDeliverySchema } from './delivery';
import { DEAD_LETTER_FORMATS, DELIVERY_PROFILE_NAMES } from './model';

/** The version format-1 messages carry (`"v":1`). */
export const FORMAT_1_VERSION = 1;
const formatVersion = z.literal(FORMAT_1_VERSION);

/** What every format-1 job named: the topic as storage keys it, and the subscription. */
const owner = {
  v: formatVersion,
  /** A classic topic's name, or a namespace topic's `<namespace>/<topic>`. */
  topic: z.string().min(1),
  subscription: z.string().min(1),
};

/** Events for one subscription that are due at the same time (published, retried, hopped). */
export const formatOneDeliveryJobSchema = z.object({
  ...owner,
  kind: z.literal('deliver').optional(),
  /** The subscription's `uid` when the job was made; another uid means it was deleted. */
  subscriptionUid: z.string().optional(),
  /** The subscription version the job was made for. */
  subscriptionVersion: z.number().optional(),
  /** Epoch ms before which nothing in the job may be attempted; absent means now. */
  dueAt: z.number().optional(),
  items: z.array(deliveryItemSchema).min(1),
});
export type FormatOneDeliveryJob = z.infer<typeof formatOneDeliveryJobSchema>;

/** Ended deliveries on their way to the dead-letter step, with where and how to write them. */
export const formatOneEndedJobSchema = z.object({
  ...owner,
  kind: z.literal('ended'),
  subscriptionUid: z.string().optional(),
  subscriptionVersion: z.number().optional(),
  /** The subscription's delivery profile (its dead-letter timing). */
  deliveryProfile: z.enum(DELIVERY_PROFILE_NAMES),
  /** The dead-letter container and record format. */
  deadLetter: z.object({ container: z.string().min(1), format: z.enum(DEAD_LETTER_FORMATS) }),
  ended: z.array(endedDeliverySchema).min(1),
});
export type FormatOneEndedJob = z.infer<typeof formatOneEndedJobSchema>;

/** A subscription's endpoint validation handshake. */
export const formatOneValidationJobSchema = z.object({
  ...owner,
  kind: z.literal('validate'),
  subscriptionUid: z.string().optional(),
  code: z.string().min(1),
  validationUrl: z.string().min(1),
});
export type FormatOneValidationJob = z.infer<typeof formatOneValidationJobSchema>;

/** One subscription of a fan-out, and the indexes of the fan-out's events it matched. */
export const formatOneFanOutTargetSchema = z.object({
  subscription: z.string().min(1),
  subscriptionUid: z.string().optional(),
  subscriptionVersion: z.number().optional(),
  matched: z.array(z.number().int().min(0)).min(1),
});
export type FormatOneFanOutTarget = z.infer<typeof formatOneFanOutTargetSchema>;

/** One publish's events for several subscriptions, each event once. */
export const formatOneFanOutJobSchema = z
  .object({
    v: formatVersion,
    kind: z.literal('fanout'),
    topic: z.string().min(1),
    items: z.array(deliveryItemSchema).min(1),
    targets: z.array(formatOneFanOutTargetSchema).min(1),
  })
  .superRefine((job, context) => {
    for (const [t, target] of job.targets.entries()) {
      for (const index of target.matched) {
        if (index >= job.items.length) {
          context.addIssue({
            code: 'custom',
            path: ['targets', t, 'matched'],
            message: `index ${index} is beyond the ${job.items.length} items`,
          });
        }
      }
    }
  });
export type FormatOneFanOutJob = z.infer<typeof formatOneFanOutJobSchema>;

/** A fan-out too large for one message, stored whole in the fan-out bucket under `key`. */
export const formatOneStoredFanOutJobSchema = z.object({
  v: formatVersion,
  kind: z.literal('stored-fanout'),
  topic: z.string().min(1),
  key: z.string().min(1),
  bytes: z.number().int().min(0),
});
export type FormatOneStoredFanOutJob = z.infer<typeof formatOneStoredFanOutJobSchema>;

/** Every kind format 1 had, by name (a job without `kind` is a `deliver` job). */
export const FORMAT_1_SCHEMAS = {
  deliver: formatOneDeliveryJobSchema,
  validate: formatOneValidationJobSchema,
  fanout: formatOneFanOutJobSchema,
  'stored-fanout': formatOneStoredFanOutJobSchema,
  ended: formatOneEndedJobSchema,
} as const;

/** A format-1 job's kind. */
export type FormatOneKind = keyof typeof FORMAT_1_SCHEMAS;

/** Any job of format 1. */
export type FormatOneJob = z.infer<(typeof FORMAT_1_SCHEMAS)[FormatOneKind]>;
