/**
 * Where a subscription's events go, as stored: a webhook (its URL, custom headers, signing
 * secrets, endpoint auth, batch settings and rate limit) or an AWS resource (its type and ARN, a
 * role to assume). Part of the domain model (`model.ts` re-exports it).
 */
import { z } from 'zod';

/**
 * A custom header sent with every delivery request (the original's delivery attribute mapping).
 * A secret static value is kept sealed (see `shared/platform/sealing.ts`): it is opened only to
 * send it, never shown by the management API, logged or written to dead letters.
 */
export const deliveryAttributeMappingSchema = z.union([
  z
    .object({ name: z.string(), type: z.literal('Static'), isSecret: z.literal(false), value: z.string() })
    .readonly(),
  z
    .object({
      name: z.string(),
      type: z.literal('Static'),
      isSecret: z.literal(true),
      sealedValue: z.string(),
    })
    .readonly(),
  /** `sourceField`: a dotted path into the event as this subscription receives it. */
  z.object({ name: z.string(), type: z.literal('Dynamic'), sourceField: z.string() }).readonly(),
]);
export type DeliveryAttributeMapping = z.infer<typeof deliveryAttributeMappingSchema>;

/**
 * A subscription's signing secrets (Standard Webhooks), each sealed like a secret header value:
 * the first is the current one; the others are earlier ones still honoured until `expiresAt`
 * (epoch ms) after a rotation, every request then carrying a signature by each.
 */
export const signingSchema = z.object({
  secrets: z
    .array(
      z.object({
        /** `whsec_<base64>` (v1), or `whsk_<base64 Ed25519 seed>` (v1a), sealed. */
        sealed: z.string(),
        /** A v1a key's public key (`whpk_<base64>`), which receivers verify with: not a secret. */
        publicKey: z.string().optional(),
        createdAt: z.number(),
        expiresAt: z.number().optional(),
      }),
    )
    .min(1),
});
export type Signing = z.infer<typeof signingSchema>;

/** The AWS services a SigV4-signed delivery may be addressed to. */
export const SIGV4_SERVICES = ['execute-api', 'lambda'] as const;

/**
 * How requests authenticate to the endpoint (`shared/delivery/endpoint-auth.ts`): an OAuth 2.0
 * access token got with the client credentials grant (the client secret sealed like a secret
 * header value), or an AWS SigV4 signature made with the delivery function's own credentials.
 */
export const deliveryAuthSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('OAuth2ClientCredentials'),
    /**
     * The token URL as parsed; without its query string and fragment when those are sealed in
     * `sealedTokenQuery`, as an endpoint URL's are (`shared/delivery/sealed-endpoint.ts`).
     */
    tokenUrl: z.string(),
    /** The token URL's query string and fragment, sealed; absent when it has none (or was stored before). */
    sealedTokenQuery: z.string().optional(),
    clientId: z.string(),
    /** The client secret, sealed. */
    sealedClientSecret: z.string(),
    scope: z.string().optional(),
  }),
  z.object({
    type: z.literal('AwsSigV4'),
    service: z.enum(SIGV4_SERVICES),
    /** Absent: read from the endpoint's host name, else the stack's own region. */
    region: z.string().optional(),
  }),
]);
export type DeliveryAuth = z.infer<typeof deliveryAuthSchema>;

/**
 * A webhook's own TLS settings (`shared/delivery/rules/endpoint-tls.ts`): a client certificate
 * presented when the endpoint asks for one, its private key sealed like a secret header value,
 * and CA certificates trusted for this endpoint beside the public ones (or instead of them).
 */
export const endpointTlsSchema = z.object({
  /** The client certificate and its chain (PEM), the leaf first: public, but only summarized when shown. */
  clientCertificate: z.string().optional(),
  /** The client certificate's private key (PEM), sealed. */
  sealedClientKey: z.string().optional(),
  /** CA certificates (a PEM bundle) trusted for this endpoint. */
  caCertificates: z.string().optional(),
  /** `false`: only `caCertificates` are trusted; absent: the public CAs too. */
  trustPublicCas: z.literal(false).optional(),
});
export type EndpointTls = z.infer<typeof endpointTlsSchema>;

/**
 * The window `maxDeliveriesPerSecond` counts requests in: one second. The delivery rules spread
 * each window's requests over it (`shared/delivery/rules/rate-limit.ts`); the shared budget keeps
 * one counter per subscription and window (`shared/storage/rate-budget.ts`).
 */
export const RATE_WINDOW_MS = 1000;

/** The delivery settings of every destination, a webhook's or a resource's. */
const deliverySettingsShape = {
  /** Output batching (either set turns it on; see `shared/delivery/rules/batching.ts`). */
  maxEventsPerBatch: z.number().optional(),
  preferredBatchSizeInKilobytes: z.number().optional(),
  /** Custom delivery headers (a resource's message attributes or fields), at most 10. */
  deliveryAttributeMappings: z.array(deliveryAttributeMappingSchema).optional(),
  /**
   * Requests (a resource's calls) per second the endpoint takes at most, across all workers
   * (`shared/delivery/rules/rate-limit.ts`); absent: no limit of its own.
   */
  maxDeliveriesPerSecond: z.number().optional(),
};

export const webhookDestinationSchema = z.object({
  endpointType: z.literal('WebHook'),
  /**
   * The endpoint URL as parsed (`URL.href`); without its query string and fragment when those are
   * sealed in `sealedQuery` (`shared/delivery/sealed-endpoint.ts`).
   */
  endpointUrl: z.string(),
  /** The endpoint URL's query string and fragment (`?...#...`), sealed; absent when it has none. */
  sealedQuery: z.string().optional(),
  ...deliverySettingsShape,
  /** Standard Webhooks signatures on every request (`shared/delivery/signing.ts`); absent: unsigned. */
  signing: signingSchema.optional(),
  /** How requests authenticate to the endpoint; absent: they carry no credentials of their own. */
  auth: deliveryAuthSchema.optional(),
  /** A client certificate and CAs of its own; absent: no client certificate, the public CAs. */
  tls: endpointTlsSchema.optional(),
});
export type WebhookDestination = z.infer<typeof webhookDestinationSchema>;

/** The AWS resources a subscription may deliver to instead of a webhook. */
export const RESOURCE_ENDPOINT_TYPES = [
  'AwsSqsQueue',
  'AwsSnsTopic',
  'AwsEventBridgeBus',
  'AwsLambdaFunction',
  'AwsKinesisStream',
] as const;
export type ResourceEndpointType = (typeof RESOURCE_ENDPOINT_TYPES)[number];

/**
 * An AWS resource destination (`shared/delivery/rules/resource-destinations.ts`): events arrive as
 * the service's own messages. Its delivery settings are a webhook's.
 */
export const resourceDestinationSchema = z.object({
  endpointType: z.enum(RESOURCE_ENDPOINT_TYPES),
  resourceArn: z.string(),
  ...deliverySettingsShape,
  /** A Lambda function's invocation: `Event` (asynchronous, the default) or `RequestResponse`. */
  invocationType: z.enum(['Event', 'RequestResponse']).optional(),
  /** A Kinesis record's partition key: this dotted path into the event as delivered; default its subject. */
  partitionKeyField: z.string().optional(),
  /** An IAM role the delivery function assumes to send (a resource in another account); absent: its own role. */
  roleArn: z.string().optional(),
  /** Sent as `ExternalId` when the role is assumed (the role's trust policy may ask for it); not a secret. */
  externalId: z.string().optional(),
});
export type ResourceDestination = z.infer<typeof resourceDestinationSchema>;

/** Where a subscription's events go: a webhook, or an AWS resource. */
export const destinationSchema = z.union([webhookDestinationSchema, resourceDestinationSchema]);
export type Destination = z.infer<typeof destinationSchema>;

/** Whether a destination is a webhook (every other kind is an AWS resource). */
export const isWebhook = (destination: Destination): destination is WebhookDestination =>
  destination.endpointType === 'WebHook';

/**
 * What a destination's health and validation are about: the webhook's URL (its base, the sealed
 * query string apart), or the resource's ARN.
 */
export const endpointIdOf = (destination: Destination): string =>
  isWebhook(destination) ? destination.endpointUrl : destination.resourceArn;

/** A destination's endpoint auth: a webhook's, when it has one (a resource has none). */
export const webhookAuthOf = (destination: Destination): DeliveryAuth | undefined =>
  isWebhook(destination) ? destination.auth : undefined;

/** A destination's TLS settings: a webhook's, when it has some. */
export const webhookTlsOf = (destination: Destination): EndpointTls | undefined =>
  isWebhook(destination) ? destination.tls : undefined;

/** A destination's signing: a webhook's, when it signs (a resource's messages are never signed). */
export const webhookSigningOf = (destination: Destination): Signing | undefined =>
  isWebhook(destination) ? destination.signing : undefined;
