/**
 * Event subscriptions, classic and namespace: create, read, list, delete, full URL. The documents
 * are those of `shared/management/resource-documents.ts` (`subscriptionDocument` and its parts)
 * and `namespaceSubscriptionDocument` (`namespace-schema.ts`); their parts are exported for the
 * routes that answer them too (`subscription-actions.ts`).
 */
import { z } from 'zod';
import { TOPIC_PROFILE } from '../../delivery/rules/profiles';
import { SIGNING_SCHEMES } from '../../delivery/signing';
import {
  ADVANCED_FILTER_OPERATORS,
  DELIVERY_LOG_MODES,
  EVENT_DELIVERY_SCHEMAS,
  PROVISIONING_STATES,
  RESOURCE_ENDPOINT_TYPES,
  SIGV4_SERVICES,
} from '../../domain/model';
import { namespaceSubscriptionBodySchema } from '../../management/namespace-schema';
import { subscriptionBodySchema } from '../../management/subscription-schema';
import { createdOrUpdated, isoTime, listOf, type OperationSpecs, ok } from '../spec';
import { systemDataSchema } from './topics';

const SUBSCRIPTIONS = ['Event subscriptions'];
const NAMESPACE_SUBSCRIPTIONS = ['Namespace event subscriptions'];

/** An ISO 8601 duration (`PT10S`, `PT1H`, `P1DT12H`). */
const isoDuration = z.string().meta({ description: 'An ISO 8601 duration, such as PT10S, PT1H or P5D.' });

// ---- destination ------------------------------------------------------------------------------

/** A custom delivery header (a resource's message attribute) as shown: a secret value never is. */
export const deliveryAttributeMappingDocumentSchema = z
  .discriminatedUnion('type', [
    z.object({
      name: z.string(),
      type: z.literal('Static'),
      properties: z.union([
        z.object({ value: z.string(), isSecret: z.literal(false) }),
        z.object({
          value: z
            .null()
            .meta({ description: 'A secret value is never shown: give it again with every PUT.' }),
          isSecret: z.literal(true),
        }),
      ]),
    }),
    z.object({
      name: z.string(),
      type: z.literal('Dynamic'),
      properties: z.object({
        sourceField: z.string().meta({ description: 'A dotted path into the event, such as data.tenant.' }),
      }),
    }),
  ])
  .meta({ id: 'DeliveryAttributeMapping' });

/** Standard Webhooks signing as shown: never a secret (`getSigningSecret` reads them). */
export const signingDocumentSchema = z
  .object({
    enabled: z.literal(true),
    scheme: z.enum(SIGNING_SCHEMES).meta({ description: '`v1` (HMAC-SHA256) or `v1a` (Ed25519).' }),
    publicKey: z
      .string()
      .optional()
      .meta({ description: "The v1a key's public key (`whpk_...`), which receivers verify with; v1a only." }),
    secretCreatedTime: isoTime,
    previousSecretsValidUntil: z
      .array(isoTime)
      .meta({ description: 'Until when each earlier secret still signs, after a rotation.' }),
  })
  .meta({ id: 'Signing' });

/** How requests authenticate to the endpoint, as shown: never the client secret. */
export const endpointAuthDocumentSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('OAuth2ClientCredentials'),
      tokenUrl: z.string().meta({
        description: 'The token URL without its query string and fragment (`getFullUrl` shows it whole).',
      }),
      clientId: z.string(),
      scope: z.string().optional(),
      clientSecret: z.null().meta({ description: 'Never shown.' }),
    }),
    z.object({
      type: z.literal('AwsSigV4'),
      service: z.enum(SIGV4_SERVICES),
      region: z
        .string()
        .optional()
        .meta({ description: "Absent: the endpoint host's region, else the stack's." }),
    }),
  ])
  .meta({ id: 'EndpointAuth' });

/** A certificate as shown: never the certificate itself. Sent back, it keeps the stored one. */
const certificateSummarySchema = z
  .object({
    sha256Fingerprint: z.string().meta({ description: 'SHA-256 of the certificate, `AB:CD:...`.' }),
    subject: z.string(),
    issuer: z.string(),
    validFromTime: isoTime,
    expiresTime: isoTime,
  })
  .meta({ id: 'CertificateSummary' });

/** A webhook's own TLS settings as shown: summaries, never a certificate or key. */
export const endpointTlsDocumentSchema = z
  .object({
    clientCertificate: certificateSummarySchema
      .optional()
      .meta({ description: 'The client certificate presented when the endpoint asks for one.' }),
    clientKey: z.null().optional().meta({ description: 'Never shown; present with clientCertificate.' }),
    caCertificates: z
      .array(certificateSummarySchema)
      .optional()
      .meta({ description: 'CA certificates trusted for this endpoint.' }),
    trustPublicCas: z.boolean().meta({ description: '`false`: only caCertificates are trusted.' }),
  })
  .meta({ id: 'EndpointTls' });

/** What every destination shows: batching (always, as delivery reads it), headers, the rate limit. */
const deliverySettingsDocumentShape = {
  maxEventsPerBatch: z.number().int(),
  preferredBatchSizeInKilobytes: z.number().int(),
  deliveryAttributeMappings: z
    .array(deliveryAttributeMappingDocumentSchema)
    .min(1)
    .optional()
    .meta({ description: 'Present only when there are some.' }),
  maxDeliveriesPerSecond: z.number().int().optional().meta({ description: 'Absent: no limit of its own.' }),
};

export const webhookDestinationDocumentSchema = z
  .object({
    endpointType: z.literal('WebHook'),
    properties: z.object({
      endpointBaseUrl: z.string().meta({
        description: 'The endpoint URL without its query string and fragment (`getFullUrl` shows it whole).',
      }),
      ...deliverySettingsDocumentShape,
      signing: signingDocumentSchema.optional().meta({ description: 'Absent: requests are not signed.' }),
      auth: endpointAuthDocumentSchema
        .optional()
        .meta({ description: 'Absent: requests carry no credentials.' }),
      tls: endpointTlsDocumentSchema
        .optional()
        .meta({ description: 'Absent: no client certificate, the public CAs only.' }),
    }),
  })
  .meta({ id: 'WebhookDestination' });

export const resourceDestinationDocumentSchema = z
  .object({
    endpointType: z.enum(RESOURCE_ENDPOINT_TYPES),
    properties: z.object({
      resourceArn: z.string(),
      ...deliverySettingsDocumentShape,
      invocationType: z
        .enum(['Event', 'RequestResponse'])
        .optional()
        .meta({ description: "A Lambda function's invocation, when given (default `Event`)." }),
      partitionKeyField: z
        .string()
        .optional()
        .meta({ description: "A Kinesis record's partition key path, when given (default the subject)." }),
      roleArn: z.string().optional().meta({ description: 'The role assumed to send, when given.' }),
      externalId: z.string().optional().meta({ description: 'Sent when the role is assumed, when given.' }),
    }),
  })
  .meta({ id: 'ResourceDestination' });

/** Where a subscription's events go, as shown: a webhook or an AWS resource. */
export const destinationDocumentSchema = z
  .discriminatedUnion('endpointType', [webhookDestinationDocumentSchema, resourceDestinationDocumentSchema])
  .meta({ id: 'SubscriptionDestination' });

// ---- filter, retry, dead letters, validation ---------------------------------------------------

const filterKey = z
  .string()
  .meta({ description: 'A dotted path into the event as delivered (`data.color`, `subject`).' });

/**
 * One advanced filter as given: the operator's group says whether it has `value`, `values` or
 * neither. Members the filter rules do not read are kept as given.
 */
const advancedFilter = <const T extends readonly [string, ...string[]]>(
  operators: T,
  value: Record<string, z.ZodType>,
) => z.looseObject({ operatorType: z.enum(operators), key: filterKey, ...value });

export const advancedFilterDocumentSchema = z
  .union([
    advancedFilter(ADVANCED_FILTER_OPERATORS.numberSet, { values: z.array(z.number()) }),
    advancedFilter(ADVANCED_FILTER_OPERATORS.numberCompare, { value: z.number() }),
    advancedFilter(ADVANCED_FILTER_OPERATORS.numberRange, {
      values: z.array(z.tuple([z.number(), z.number()])),
    }),
    advancedFilter(ADVANCED_FILTER_OPERATORS.bool, { value: z.boolean() }),
    advancedFilter(ADVANCED_FILTER_OPERATORS.string, { values: z.array(z.string()) }),
    advancedFilter(ADVANCED_FILTER_OPERATORS.presence, {}),
  ])
  .meta({ id: 'AdvancedFilter' });

/** A filter as shown: the fields given (a null one dropped), `includedEventTypes` always. */
export const filterDocumentSchema = z
  .object({
    includedEventTypes: z
      .array(z.string())
      .nullable()
      .meta({ description: 'null: every event type (none given, null, or `All` among them).' }),
    subjectBeginsWith: z.string().optional(),
    subjectEndsWith: z.string().optional(),
    isSubjectCaseSensitive: z.boolean().optional(),
    enableAdvancedFilteringOnArrays: z.boolean().optional(),
    advancedFilters: z.array(advancedFilterDocumentSchema).optional(),
  })
  .meta({ id: 'SubscriptionFilter' });

/** The retry schedule, shown only when the subscription has its own. */
const retryScheduleDocument = z
  .array(isoDuration)
  .optional()
  .meta({ description: "The subscription's own schedule (the last step repeating); absent: the profile's." });

/** A classic subscription's retry policy as shown. */
export const retryPolicyDocumentSchema = z
  .object({
    maxDeliveryAttempts: z.number().int(),
    eventTimeToLiveInMinutes: z.number().int(),
    retrySchedule: retryScheduleDocument,
  })
  .meta({ id: 'RetryPolicy' });

/** A dead-letter destination as shown. */
export const deadLetterDocumentSchema = z
  .object({
    endpointType: z.literal('StorageBlob'),
    properties: z.object({
      blobContainerName: z.string(),
      resourceId: z.string().optional(),
      roleArn: z.string().optional(),
      externalId: z.string().optional(),
    }),
  })
  .meta({ id: 'DeadLetterDestination' });

/** How the endpoint's validation stands: waiting (until when, and why the handshake failed), or done. */
export const endpointValidationDocumentSchema = z
  .union([
    z.object({
      startedAt: isoTime,
      validationUrlExpiresAt: isoTime,
      handshakeError: z
        .string()
        .optional()
        .meta({ description: 'Why the automatic handshake did not validate, once it failed.' }),
    }),
    z.object({ startedAt: isoTime, validatedAt: isoTime }),
  ])
  .meta({ id: 'EndpointValidation' });

/** The members both kinds of subscription show alike. */
const commonPropertiesShape = {
  provisioningState: z.enum(PROVISIONING_STATES).meta({
    description:
      '`AwaitingManualAction` while a new webhook endpoint has not agreed and its validation URL is valid; `Failed` after.',
  }),
  endpointValidation: endpointValidationDocumentSchema
    .optional()
    .meta({ description: 'Present for a webhook whose endpoint was (or is to be) validated.' }),
  labels: z.array(z.string()),
  deliveryLog: z.enum(DELIVERY_LOG_MODES),
  disableAfterFailingFor: isoDuration.nullable().meta({
    description:
      'How long the endpoint may fail every attempt before the subscription is disabled; null: never.',
  }),
  expirationTimeUtc: isoTime.optional().meta({ description: 'Present only when the subscription expires.' }),
  orderedDelivery: z
    .object({ key: z.string() })
    .nullable()
    .meta({ description: 'Events with the same key are delivered one at a time, in order; null: no order.' }),
};

// ---- documents ---------------------------------------------------------------------------------

/** A classic event subscription as the management API shows it. */
export const subscriptionDocumentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.literal('Microsoft.EventGrid/eventSubscriptions'),
    properties: z.object({
      topic: z.string().meta({ description: "The topic's resource id." }),
      ...commonPropertiesShape,
      destination: destinationDocumentSchema,
      filter: filterDocumentSchema,
      retryPolicy: retryPolicyDocumentSchema,
      eventDeliverySchema: z.enum(EVENT_DELIVERY_SCHEMAS),
      deadLetterDestination: deadLetterDocumentSchema
        .optional()
        .meta({ description: 'Absent: ended deliveries are dropped.' }),
    }),
    systemData: systemDataSchema,
  })
  .meta({ id: 'Subscription' });

/** A namespace topic's push subscription as the management API shows it. */
export const namespaceSubscriptionDocumentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.literal('Microsoft.EventGrid/namespaces/topics/eventSubscriptions'),
    properties: z.object({
      ...commonPropertiesShape,
      deliveryConfiguration: z.object({
        deliveryMode: z.literal('Push'),
        push: z.object({
          maxDeliveryCount: z.number().int(),
          eventTimeToLive: isoDuration,
          retrySchedule: retryScheduleDocument,
          destination: destinationDocumentSchema,
          deadLetterDestinationWithResourceIdentity: z
            .object({ deadLetterDestination: deadLetterDocumentSchema })
            .optional()
            .meta({ description: 'Absent: ended deliveries are dropped.' }),
        }),
      }),
      eventDeliverySchema: z.literal('CloudEventSchemaV1_0'),
      filtersConfiguration: filterDocumentSchema,
    }),
    systemData: systemDataSchema,
  })
  .meta({ id: 'NamespaceSubscription' });

/** What `getFullUrl` answers. */
export const fullUrlsDocumentSchema = z
  .object({
    endpointUrl: z.string().meta({ description: 'The whole endpoint URL, its query string included.' }),
    tokenUrl: z.string().optional().meta({
      description: 'The whole OAuth 2.0 token URL; present only with OAuth2ClientCredentials auth.',
    }),
  })
  .meta({ id: 'SubscriptionFullUrls' });

// ---- operations ---------------------------------------------------------------------------------

/**
 * The bodies as the routes validate them; on AWS an endpoint URL is https only (a local stack
 * with http endpoints allowed takes http too, a check the schema does not show).
 */
const subscriptionBody = subscriptionBodySchema(TOPIC_PROFILE, false).meta({ id: 'SubscriptionRequest' });
const namespaceSubscriptionBody = namespaceSubscriptionBodySchema(false).meta({
  id: 'NamespaceSubscriptionRequest',
});

const deleted = {
  200: { description: 'Deleted.' },
  204: { description: 'There was no such subscription (or it had expired).' },
};

const PUT_DESCRIPTION =
  'Creates the subscription (201) or replaces its definition (200). A new webhook endpoint is asked to agree first when the stack validates endpoints (`provisioningState` `AwaitingManualAction` until it does). Secret header values, signing secrets and client secrets are sealed and never shown. 409: the subscription was changed by another request at the same time. 503: a secret was given and the stack has no key to seal it.';

const FULL_URL_DESCRIPTION =
  "The webhook's whole endpoint URL (documents show it without its query string), and an OAuth 2.0 client's whole token URL. 409: the subscription delivers to an AWS resource. 503: a query string is sealed and the stack has no key to open it.";

export const SUBSCRIPTION_OPERATIONS: OperationSpecs = {
  'GET /admin/topics/{topic}/eventSubscriptions': {
    summary: "List a topic's event subscriptions",
    tags: SUBSCRIPTIONS,
    answers: ok(
      'The subscriptions (expired ones are deleted and left out).',
      listOf(subscriptionDocumentSchema),
    ),
  },
  'PUT /admin/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Create or update an event subscription',
    description: `${PUT_DESCRIPTION} The dead-letter notices' topic (\`gridwire-deadletters\`) is made with its first subscription.`,
    tags: SUBSCRIPTIONS,
    body: subscriptionBody,
    answers: createdOrUpdated('subscription', subscriptionDocumentSchema),
    errors: [409, 413],
  },
  'GET /admin/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Show an event subscription',
    tags: SUBSCRIPTIONS,
    answers: ok('The subscription.', subscriptionDocumentSchema),
  },
  'DELETE /admin/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Delete an event subscription',
    tags: SUBSCRIPTIONS,
    answers: deleted,
  },
  'POST /admin/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl': {
    summary: "Show a subscription's full endpoint URL",
    description: FULL_URL_DESCRIPTION,
    tags: SUBSCRIPTIONS,
    answers: ok('The whole URLs.', fullUrlsDocumentSchema),
    errors: [409],
  },
  'GET /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions': {
    summary: "List a namespace topic's event subscriptions",
    tags: NAMESPACE_SUBSCRIPTIONS,
    answers: ok(
      'The subscriptions (expired ones are deleted and left out).',
      listOf(namespaceSubscriptionDocumentSchema),
    ),
  },
  'PUT /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Create or update a namespace event subscription',
    description: `${PUT_DESCRIPTION} \`eventTimeToLive\` may not exceed the topic's retention, and defaults to it.`,
    tags: NAMESPACE_SUBSCRIPTIONS,
    body: namespaceSubscriptionBody,
    answers: createdOrUpdated('subscription', namespaceSubscriptionDocumentSchema),
    errors: [409, 413],
  },
  'GET /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Show a namespace event subscription',
    tags: NAMESPACE_SUBSCRIPTIONS,
    answers: ok('The subscription.', namespaceSubscriptionDocumentSchema),
  },
  'DELETE /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}': {
    summary: 'Delete a namespace event subscription',
    tags: NAMESPACE_SUBSCRIPTIONS,
    answers: deleted,
  },
  'POST /admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}/getFullUrl': {
    summary: "Show a namespace subscription's full endpoint URL",
    description: FULL_URL_DESCRIPTION,
    tags: NAMESPACE_SUBSCRIPTIONS,
    answers: ok('The whole URLs.', fullUrlsDocumentSchema),
    errors: [409],
  },
};
