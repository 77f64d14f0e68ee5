/**
 * What is done to one event subscription, classic and namespace: its message log and resend,
 * health, enable, pause and resume, validation, test events, signing secrets, replays, recovery
 * and dead letters.
 *
 * Classic and namespace subscriptions share the handlers of these routes (`messageLogOperations`,
 * `healthOperations`... called with both prefixes), so both are described from one list of
 * suffixes; only `validate` answers a different document (the subscription's own).
 */
import { z } from 'zod';
import { HEALTH_STATES } from '../../domain/health';
import {
  DEAD_LETTER_REASONS,
  DELIVERY_LOG_MODES,
  DELIVERY_OUTCOMES,
  DROP_REASONS,
  PROVISIONING_STATES,
} from '../../domain/model';
import { REPLAY_STATES } from '../../domain/replays';
import { MAX_REPLAY_KEYS } from '../../management/dead-letters';
import { DEFAULT_LOG_PAGE, MAX_LOG_PAGE, resendBodySchema } from '../../management/message-log-routes';
import { recoverBodySchema } from '../../management/recover-routes';
import { replayBodySchema } from '../../management/replay-routes';
import { rotateBodySchema } from '../../management/signing-routes';
import { TEST_EVENT_TYPE } from '../../management/test-event-routes';
import { isoTime, listOf, type OperationSpec, type OperationSpecs, ok, optionalJson } from '../spec';
import {
  endpointValidationDocumentSchema,
  namespaceSubscriptionDocumentSchema,
  subscriptionDocumentSchema,
} from './subscriptions';

const MESSAGE_LOG = ['Message log'];
const HEALTH = ['Endpoint health'];
const SUBSCRIPTIONS = ['Event subscriptions'];
const REPLAYS = ['Replays'];
const DEAD_LETTERS = ['Dead letters'];

/** A time the routes read with `parseWindow`: ISO 8601, or a date meaning its start in UTC. */
const windowTime = (what: string) =>
  z.string().meta({
    description: `${what}: an ISO 8601 time (\`2026-11-22T10:00:00Z\`, or with an offset) or a date (\`2026-11-22\`, its start in UTC).`,
  });

// ---- Message log -------------------------------------------------------------------------------

/**
 * The deliveries route's query. The route reads its parameters by hand (`messageLogOperations`,
 * `parseHistoryWindow`, `parseTop`), not with a zod schema: this describes what it takes.
 */
const deliveriesQuerySchema = z.object({
  eventId: z
    .string()
    .optional()
    .meta({ description: "One event's deliveries; without it, a page of the log, newest first." }),
  since: windowTime('Where the window starts (inclusive); default 24 hours before `until`').optional(),
  until: windowTime('Where the window ends (exclusive); default now').optional(),
  top: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LOG_PAGE)
    .optional()
    .meta({
      description: `Deliveries a page lists at least (whole hours are listed), default ${DEFAULT_LOG_PAGE}. Not with \`eventId\`.`,
    }),
});

/** One attempt of a delivery, as the message log shows it. */
const attemptDocumentSchema = z.object({
  attempt: z.number().int().meta({ description: '1-based.' }),
  time: isoTime,
  outcome: z.enum([...DELIVERY_OUTCOMES, 'Delivered', 'NotAttempted'] as const),
  httpStatus: z.number().int().optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
  response: z.string().optional().meta({ description: "The first KiB of the endpoint's answer body." }),
});

/** One delivery of an event, with its attempts. */
export const deliveryDocumentSchema = z
  .object({
    eventId: z.string(),
    deliveryId: z.string(),
    publishTime: isoTime,
    status: z.enum(['Retrying', 'DeadLettered', 'Dropped', 'Delivered', 'NotDelivered']),
    reason: z
      .enum(DROP_REASONS)
      .optional()
      .meta({ description: 'Why it was dead-lettered or dropped (with those statuses only).' }),
    nextAttemptTime: isoTime.optional().meta({ description: 'While it is `Retrying`.' }),
    resendOf: z.string().optional().meta({ description: 'The delivery this one sends again.' }),
    eventLogged: z
      .boolean()
      .meta({ description: "Whether the log holds the event's text (so it can be resent)." }),
    attempts: z.array(attemptDocumentSchema),
  })
  .meta({ id: 'Delivery' });

const searchedSchema = z.object({ since: isoTime, until: isoTime });

/** `GET .../deliveries?eventId=`: one event's deliveries. */
const deliveryLookupSchema = z
  .object({
    value: z.array(deliveryDocumentSchema),
    searched: searchedSchema,
    truncated: z.boolean(),
    note: z.string().optional().meta({ description: 'Why nothing was found, when nothing was.' }),
  })
  .meta({ id: 'DeliveryLookup' });

/** `GET .../deliveries` without `eventId`: a page of the log. */
const deliveryLogPageSchema = z
  .object({
    deliveryLog: z.enum(DELIVERY_LOG_MODES),
    value: z.array(deliveryDocumentSchema),
    searched: searchedSchema,
    nextUntil: isoTime
      .optional()
      .meta({ description: 'When older deliveries may follow: the next page is `until=<nextUntil>`.' }),
  })
  .meta({ id: 'DeliveryLogPage' });

const resendAnswerSchema = z
  .object({
    eventId: z.string(),
    deliveryId: z.string().meta({ description: 'The new delivery.' }),
    resendOf: z.string().meta({ description: 'The delivery sent again.' }),
    header: z.string().meta({ description: 'The header the endpoint receives saying so.' }),
  })
  .meta({ id: 'Resend' });

// ---- Endpoint health ---------------------------------------------------------------------------

/** What the subscription's backlog holds (`null` when it holds nothing). */
const heldSchema = z.object({
  events: z.number().int(),
  oldestPublishedAt: isoTime.nullable(),
  until: isoTime.optional().meta({ description: 'The next wake, when there is one.' }),
  state: z.enum(['Holding', 'Draining', 'Waiting']),
});

export const healthDocumentSchema = z
  .object({
    state: z.enum(HEALTH_STATES),
    probationUntil: isoTime.nullable(),
    consecutiveFailures: z.number().int(),
    lastOutcome: z.enum([...DELIVERY_OUTCOMES, 'Delivered'] as const).nullable(),
    lastFailureAt: isoTime.nullable(),
    lastSuccessAt: isoTime.nullable(),
    endpointUrl: z.string().meta({ description: 'The endpoint, without query string or fragment.' }),
    failingSince: isoTime.nullable(),
    disabledAt: isoTime.nullable(),
    disabledReason: z.enum(['Gone', 'FailingTooLong']).nullable(),
    pausedAt: isoTime.nullable(),
    held: heldSchema.nullable(),
    provisioningState: z.enum(PROVISIONING_STATES),
    endpointValidation: endpointValidationDocumentSchema.optional(),
    warnings: z
      .array(
        z.object({
          code: z.enum(['ClientCertificateExpiring', 'ClientCertificateExpired']),
          message: z.string(),
          expiresTime: isoTime,
          daysLeft: z.number().int().meta({ description: 'Whole days left; negative once expired.' }),
        }),
      )
      .optional()
      .meta({ description: 'Present when the client certificate expires within 30 days, or has.' }),
  })
  .meta({ id: 'SubscriptionHealth' });

// ---- Signing secrets ---------------------------------------------------------------------------

/** What a receiver verifies with: a v1 secret, or a v1a key's public key. */
const verifyWith = {
  v1: { scheme: z.literal('v1'), secret: z.string().meta({ description: '`whsec_...`' }) },
  v1a: { scheme: z.literal('v1a'), publicKey: z.string().meta({ description: '`whpk_...`' }) },
};

const previousSecretSchema = z.discriminatedUnion('scheme', [
  z.object({ ...verifyWith.v1, validUntil: isoTime }),
  z.object({ ...verifyWith.v1a, validUntil: isoTime }),
]);

const signingSecretsSchema = z
  .discriminatedUnion('scheme', [
    z.object({ ...verifyWith.v1, createdTime: isoTime, previousSecrets: z.array(previousSecretSchema) }),
    z.object({ ...verifyWith.v1a, createdTime: isoTime, previousSecrets: z.array(previousSecretSchema) }),
  ])
  .meta({ id: 'SigningSecrets' });

// ---- Test events -------------------------------------------------------------------------------

const testEventAnswerSchema = z
  .object({ eventId: z.string(), deliveryId: z.string(), eventType: z.literal(TEST_EVENT_TYPE) })
  .meta({ id: 'TestEvent' });

// ---- Replays from the archive ------------------------------------------------------------------

export const replayDocumentSchema = z
  .object({
    id: z.string(),
    state: z.enum(REPLAY_STATES),
    since: isoTime,
    until: isoTime,
    eventTypes: z.array(z.string()).optional().meta({ description: 'Absent: every type.' }),
    eventsFound: z.number().int(),
    eventsQueued: z.number().int(),
    eventsDelivered: z.number().int(),
    reason: z.string().optional().meta({ description: 'Why it failed or who cancelled it.' }),
    createdAt: isoTime,
    lastModifiedAt: isoTime,
  })
  .meta({ id: 'Replay' });

// ---- Recovery ----------------------------------------------------------------------------------

const recoveryAnswerSchema = z
  .object({
    since: isoTime,
    until: isoTime,
    dryRun: z.boolean(),
    eventsQueued: z.number().int(),
    dropped: z.object({
      deliveries: z.number().int(),
      eventsQueued: z.number().int(),
      alreadyRecovered: z.number().int(),
      matched: z.number().int(),
      withoutText: z.number().int(),
      filteredOut: z.number().int(),
    }),
    deadLetters: z
      .object({
        blobsSelected: z.number().int(),
        recordsMatched: z.number().int(),
        eventsQueued: z.number().int(),
        blobsSkipped: z.number().int(),
        failedKeys: z.array(z.string()),
      })
      .nullable()
      .meta({ description: '`null` for a subscription without a dead-letter destination.' }),
    nextUntil: isoTime
      .optional()
      .meta({ description: 'When the range holds more: the next call goes on with `until=<nextUntil>`.' }),
  })
  .meta({ id: 'Recovery' });

// ---- Dead letters ------------------------------------------------------------------------------

/**
 * The dead-letter list's query. The route reads it by hand (`parseWindow`, `parseTime`), not with
 * a zod schema: this describes what it takes.
 */
const deadLettersQuerySchema = z.object({
  since: windowTime('Blobs written at or after').optional(),
  until: windowTime('Blobs written before').optional(),
  page: windowTime('The `nextPage` of the page before').optional(),
});

/** The blob route's query, read by hand: `key` is required. */
const deadLetterBlobQuerySchema = z.object({
  key: z.string().min(1).meta({ description: 'A blob key from the dead-letter list.' }),
});

const deadLetterListSchema = z
  .object({
    value: z.array(
      z.object({
        key: z.string(),
        writtenAt: isoTime,
        bytes: z.number().int(),
        replayedAt: isoTime.optional().meta({ description: 'Its last replay, if it was replayed.' }),
      }),
    ),
    nextPage: isoTime.optional().meta({ description: 'When older blobs may follow: `?page=<nextPage>`.' }),
  })
  .meta({ id: 'DeadLetterList' });

const deadLetterBlobSchema = z
  .object({
    key: z.string(),
    replayedAt: isoTime.optional(),
    records: z.array(
      z.record(z.string(), z.unknown()).meta({
        description:
          "A dead-letter record exactly as stored: the event with the dead-letter fields of the subscription's format.",
      }),
    ),
  })
  .meta({ id: 'DeadLetterBlob' });

/**
 * The dead-letter replay body. The route parses it in stages (`parseReplayRequest`: the fields,
 * the window, the keys, then the reasons and flags), with no one zod schema of the whole body:
 * this describes what it takes.
 */
const deadLetterReplayBodySchema = z
  .strictObject({
    since: windowTime('Blobs written at or after').nullish(),
    until: windowTime('Blobs written before').nullish(),
    keys: z
      .array(z.string().min(1))
      .min(1)
      .max(MAX_REPLAY_KEYS)
      .nullish()
      .meta({ description: 'Exactly these blobs, instead of a window.' }),
    reason: z
      .union([z.enum(DEAD_LETTER_REASONS), z.array(z.enum(DEAD_LETTER_REASONS)).min(1)])
      .nullish()
      .meta({ description: 'Only records dead-lettered for these reasons (default: all).' }),
    dryRun: z.boolean().nullish().meta({ description: 'Count only: queue nothing, mark nothing.' }),
    force: z.boolean().nullish().meta({ description: 'Replay blobs replayed before too.' }),
  })
  .meta({ id: 'DeadLetterReplayRequest' });

const blobReplaySchema = z.object({
  key: z.string(),
  records: z.number().int().optional().meta({ description: 'Absent for a blob skipped unread.' }),
  otherTopic: z.number().int().optional(),
  matched: z.number().int().optional(),
  alreadyReplayed: z.number().int().optional(),
  queued: z.number().int(),
  marked: z.boolean().optional().meta({ description: 'Present only when events were queued.' }),
  replayedAt: isoTime.optional().meta({ description: 'Its previous replay, if any.' }),
  skipped: z.boolean(),
  replayingElsewhere: z.literal(true).optional(),
  failed: z.string().optional(),
});

const deadLetterReplayReportSchema = z
  .object({
    dryRun: z.boolean(),
    blobsSelected: z.number().int(),
    recordsMatched: z.number().int(),
    eventsQueued: z.number().int(),
    blobsSkipped: z.number().int(),
    skippedKeys: z.array(z.string()),
    notFound: z.array(z.string()),
    otherTopic: z.number().int(),
    blobsFailed: z.number().int(),
    failedKeys: z.array(z.string()),
    unmarkedKeys: z.array(z.string()),
    replayingElsewhereKeys: z.array(z.string()),
    notStarted: z.array(z.string()),
    blobs: z.array(blobReplaySchema),
  })
  .meta({ id: 'DeadLetterReplay' });

// ---- Both prefixes -----------------------------------------------------------------------------

/** The subscription's routes by method and suffix, `subscription` the document `validate` answers. */
function subscriptionActions(subscription: z.ZodType): Readonly<Record<string, OperationSpec>> {
  return {
    'GET /deliveries': {
      summary: "Look up an event's deliveries, or list the message log",
      description:
        "With `eventId`, that event's deliveries in the window; without it, a page of the log, newest first. What the log keeps follows the subscription's `deliveryLog`.",
      tags: MESSAGE_LOG,
      query: deliveriesQuerySchema,
      answers: ok(
        "The event's deliveries (with `eventId`), or a page of the log.",
        z.union([deliveryLookupSchema, deliveryLogPageSchema]),
      ),
    },
    'POST /resend': {
      summary: 'Resend a logged event',
      description:
        "Sends a logged event again to this subscription as a new delivery, if the subscription's filter as it is now lets it through.",
      tags: MESSAGE_LOG,
      body: resendBodySchema,
      answers: { 202: { description: 'Queued as a new delivery.', schema: resendAnswerSchema } },
      // 429: past the subscription's resends a minute (`call-limits.ts`), through the console too.
      errors: [409, 413, 429],
    },
    'POST /getSigningSecret': {
      summary: 'Show the signing secrets',
      description:
        'What receivers verify with: the current secret (or public key) and the earlier ones still honoured.',
      tags: SUBSCRIPTIONS,
      answers: ok('The secrets in force.', signingSecretsSchema),
      errors: [409],
    },
    'POST /rotateSigningSecret': {
      summary: 'Rotate the signing secret',
      description:
        'Makes a new secret current (given, or made) and keeps honouring the earlier ones for `keepPreviousForMinutes`.',
      tags: SUBSCRIPTIONS,
      body: optionalJson(rotateBodySchema),
      answers: ok('The secrets in force after the rotation.', signingSecretsSchema),
      errors: [409, 413],
    },
    'GET /health': {
      summary: "Show the endpoint's health",
      tags: HEALTH,
      answers: ok("The endpoint's health.", healthDocumentSchema),
    },
    'POST /enable': {
      summary: 'Enable the endpoint again',
      description:
        'Resets its health: healthy, out of probation, and taking deliveries again if it was disabled.',
      tags: HEALTH,
      answers: ok("The endpoint's health after the reset.", healthDocumentSchema),
    },
    'POST /pause': {
      summary: 'Pause deliveries',
      description: "The subscription's events are held, their time to live running, until it is resumed.",
      tags: HEALTH,
      answers: ok("The endpoint's health, paused.", healthDocumentSchema),
    },
    'POST /resume': {
      summary: 'Resume deliveries',
      tags: HEALTH,
      answers: ok("The endpoint's health, resumed.", healthDocumentSchema),
    },
    'POST /validate': {
      summary: "Start the endpoint's validation again",
      description:
        'For an endpoint that has not agreed: a new validation code and window, and the handshake sent again. An endpoint that agreed (or never had to) is left as it is.',
      tags: SUBSCRIPTIONS,
      answers: ok('The event subscription.', subscription),
      errors: [409],
    },
    'POST /sendTestEvent': {
      summary: 'Send a test event',
      description: `Sends one \`${TEST_EVENT_TYPE}\` event to this subscription only, as a new delivery; its filter is not applied.`,
      tags: SUBSCRIPTIONS,
      answers: { 202: { description: 'Queued.', schema: testEventAnswerSchema } },
      // 429: past the subscription's test events a minute (`call-limits.ts`), through the console too.
      errors: [429],
    },
    'POST /replays': {
      summary: "Replay events from the topic's archive",
      tags: REPLAYS,
      body: replayBodySchema,
      answers: { 202: { description: 'The replay, started.', schema: replayDocumentSchema } },
      errors: [409, 413],
    },
    'GET /replays': {
      summary: "List the subscription's replays",
      tags: REPLAYS,
      answers: ok('The replays.', listOf(replayDocumentSchema)),
    },
    'GET /replays/{replayId}': {
      summary: 'Show a replay',
      tags: REPLAYS,
      answers: ok('The replay.', replayDocumentSchema),
    },
    'DELETE /replays/{replayId}': {
      summary: 'Cancel a replay',
      tags: REPLAYS,
      answers: {
        200: { description: 'Cancelled.' },
        204: { description: 'The replay had ended already.' },
      },
    },
    'POST /recover': {
      summary: 'Recover failed deliveries',
      description:
        'Sends again, as new deliveries, the deliveries of the range that ended without success: dropped ones from the message log, dead-lettered ones from the dead letters.',
      tags: DEAD_LETTERS,
      body: recoverBodySchema,
      answers: ok('What was recovered (or, with `dryRun`, would be).', recoveryAnswerSchema),
      // 429: past the subscription's recoveries a minute (`call-limits.ts`), through the console too.
      errors: [413, 429],
    },
    'GET /deadLetters': {
      summary: "List the subscription's dead-letter blobs",
      tags: DEAD_LETTERS,
      query: deadLettersQuerySchema,
      answers: ok('A page of blobs, newest first.', deadLetterListSchema),
    },
    'GET /deadLetters/blob': {
      summary: 'Show a dead-letter blob',
      tags: DEAD_LETTERS,
      query: deadLetterBlobQuerySchema,
      answers: ok('The blob and its records.', deadLetterBlobSchema),
      // 422: the blob is not a JSON array of records.
      errors: [422],
    },
    'POST /deadLetters/replay': {
      summary: 'Replay dead letters',
      description:
        'Sends the events of dead-letter blobs (by keys or window) again as new deliveries, and marks the blobs replayed.',
      tags: DEAD_LETTERS,
      body: optionalJson(deadLetterReplayBodySchema),
      answers: ok('What the replay did (or, with `dryRun`, would do).', deadLetterReplayReportSchema),
      // 429: past the subscription's dead-letter replays a minute (`call-limits.ts`), through the console too.
      errors: [413, 429],
    },
  };
}

/** The routes under `prefix`, keyed as `shared/config/routes.ts` keys them. */
const underPrefix = (prefix: string, subscription: z.ZodType): OperationSpecs =>
  Object.fromEntries(
    Object.entries(subscriptionActions(subscription)).map(([key, spec]) => {
      const [method, suffix] = key.split(' ') as [string, string];
      return [`${method} ${prefix}${suffix}`, spec];
    }),
  );

export const SUBSCRIPTION_ACTION_OPERATIONS: OperationSpecs = {
  ...underPrefix('/admin/topics/{topic}/eventSubscriptions/{subscription}', subscriptionDocumentSchema),
  ...underPrefix(
    '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}',
    namespaceSubscriptionDocumentSchema,
  ),
};
