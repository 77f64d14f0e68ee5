/**
 * The resource documents the management API returns (ARM-shaped, as the original service shows
 * them): topic, subscription and its parts, endpoint health and what its backlog holds. A secret
 * is never shown.
 */

import type { SourceDefinition } from '../config/sources';
import { batchPolicyOf } from '../delivery/rules/batching';
import { caSummaries, certificateSummary, leafOf } from '../delivery/rules/endpoint-tls';
import { provisioningStateOf } from '../delivery/rules/handshake';
import { healthState } from '../delivery/rules/health';
import type { BacklogState } from '../domain/backlog';
import type { EndpointHealth } from '../domain/health';
import {
  DEFAULT_DISABLE_AFTER_MS,
  type DeadLetterDestination,
  type DeliveryAttributeMapping,
  type DeliveryAuth,
  type Destination,
  type EndpointTls,
  type InputSchemaMapping,
  isWebhook,
  type RetryLimits,
  retryPolicyOf,
  type Signing,
  type Subscription,
  type SubscriptionFilter,
  type Topic,
} from '../domain/model';
import { topicResourceId } from '../domain/names';
import { isoDurationOfSeconds } from '../platform/iso-duration';
import type { BacklogOverview } from '../storage/backlog';

/** `systemData` of a resource document. */
export const systemData = (resource: { createdAt: string; updatedAt: string }) => ({
  createdAt: resource.createdAt,
  lastModifiedAt: resource.updatedAt,
});

/** A mapping as the management API shows it (the original's ARM shape). */
export const inputSchemaMappingDocument = (mapping: InputSchemaMapping) => ({
  inputSchemaMappingType: 'Json',
  properties: mapping,
});

/** A stored filter as the management API shows it (`includedEventTypes` null for every type). */
export const filterDocument = (filter: SubscriptionFilter) => ({
  ...filter,
  includedEventTypes: filter.includedEventTypes ?? null,
});

/** The topic as the management API returns it. */
export function topicDocument(
  topic: Omit<Topic, 'keys'>,
  baseUrl: string,
  /** The stack's sources: those of this topic are shown. */
  sources: readonly SourceDefinition[] = [],
) {
  const own = sources.filter((source) => source.topic.toLowerCase() === topic.name.toLowerCase());
  return {
    id: topicResourceId(topic.name),
    name: topic.name,
    type: 'Microsoft.EventGrid/topics',
    tags: topic.tags,
    properties: {
      provisioningState: 'Succeeded',
      endpoint: `${baseUrl}/topics/${topic.name}/api/events`,
      inputSchema: topic.inputSchema,
      ...(topic.inputSchemaMapping === undefined
        ? {}
        : { inputSchemaMapping: inputSchemaMappingDocument(topic.inputSchemaMapping) }),
      deduplicationWindowInMinutes: topic.deduplicationWindowInMinutes ?? 0,
      archive: topic.archive ?? null,
      validateEvents: topic.validateEvents ?? false,
      unknownEventTypes: topic.unknownEventTypes ?? 'allow',
      // Present when the stack brings events into the topic from queues or buses (`addSource`).
      ...(own.length === 0 ? {} : { sources: own.map(sourceDocument) }),
    },
    systemData: systemData(topic),
  };
}

/** A topic's source as shown: its kind, name, queue and format, and a bus source's bus and pattern. */
export const sourceDocument = (source: SourceDefinition) => ({
  kind: source.kind,
  name: source.name,
  queueArn: source.queueArn,
  format: source.format,
  ...(source.bus === undefined ? {} : { bus: source.bus }),
  ...(source.eventPattern === undefined ? {} : { eventPattern: JSON.parse(source.eventPattern) as unknown }),
});

/** The endpoint URL without query string or fragment, which may carry secrets. */
export function endpointBaseUrl(endpointUrl: string): string {
  const url = new URL(endpointUrl);
  return `${url.origin}${url.pathname}`;
}

/** A mapping as the management API shows it: a secret value is never shown, sealed or not. */
export function deliveryAttributeMappingDocument(mapping: DeliveryAttributeMapping) {
  if (mapping.type === 'Dynamic') {
    return { name: mapping.name, type: 'Dynamic', properties: { sourceField: mapping.sourceField } };
  }
  return {
    name: mapping.name,
    type: 'Static',
    properties: mapping.isSecret
      ? { value: null, isSecret: true }
      : { value: mapping.value, isSecret: false },
  };
}

/** The destination as shown: its type, and its properties. */
export const destinationDocument = (destination: Destination) => ({
  endpointType: destination.endpointType,
  properties: destinationPropertiesDocument(destination),
});

/** The destination's properties as shown: batch settings always, as delivery reads them. */
export function destinationPropertiesDocument(destination: Destination) {
  const mappings = destination.deliveryAttributeMappings ?? [];
  const { maxEventsPerBatch, preferredBatchSizeInKilobytes } = batchPolicyOf(destination);
  // What every destination shows: batching, custom delivery attributes and the rate limit.
  const settings = {
    maxEventsPerBatch,
    preferredBatchSizeInKilobytes,
    ...(mappings.length === 0
      ? {}
      : { deliveryAttributeMappings: mappings.map(deliveryAttributeMappingDocument) }),
    ...(destination.maxDeliveriesPerSecond === undefined
      ? {}
      : { maxDeliveriesPerSecond: destination.maxDeliveriesPerSecond }),
  };
  if (!isWebhook(destination)) {
    return {
      resourceArn: destination.resourceArn,
      ...settings,
      ...(destination.invocationType === undefined ? {} : { invocationType: destination.invocationType }),
      ...(destination.partitionKeyField === undefined
        ? {}
        : { partitionKeyField: destination.partitionKeyField }),
      ...(destination.roleArn === undefined ? {} : { roleArn: destination.roleArn }),
      // Shown as any setting: an external id tells requests apart, it grants nothing on its own.
      ...(destination.externalId === undefined ? {} : { externalId: destination.externalId }),
    };
  }
  return {
    endpointBaseUrl: endpointBaseUrl(destination.endpointUrl),
    ...settings,
    ...(destination.signing === undefined ? {} : { signing: signingDocument(destination.signing) }),
    ...(destination.auth === undefined ? {} : { auth: authDocument(destination.auth) }),
    ...(destination.tls === undefined ? {} : { tls: tlsDocument(destination.tls) }),
  };
}

/**
 * TLS settings as shown: the client certificate's summary (fingerprint, names, validity), never
 * the certificate or its key (`null`, as a client secret is shown), and each CA certificate's
 * summary. Sent back, the summaries keep what they stand for.
 */
export function tlsDocument(tls: EndpointTls) {
  return {
    ...(tls.clientCertificate === undefined
      ? {}
      : { clientCertificate: certificateSummary(leafOf(tls.clientCertificate)), clientKey: null }),
    ...(tls.caCertificates === undefined ? {} : { caCertificates: caSummaries(tls.caCertificates) }),
    trustPublicCas: tls.trustPublicCas !== false,
  };
}

/**
 * Endpoint auth as shown: never the client secret (`null`, as a secret header value is shown),
 * and the token URL without its query string and fragment, which may carry secrets (as
 * `endpointBaseUrl`; one stored before they were sealed is cut the same way).
 */
export function authDocument(auth: DeliveryAuth) {
  if (auth.type === 'AwsSigV4') return auth;
  const { sealedClientSecret: _sealed, sealedTokenQuery: _query, ...client } = auth;
  return { ...client, tokenUrl: endpointBaseUrl(auth.tokenUrl), clientSecret: null };
}

/**
 * Signing as shown: that it is on, since when, and the earlier secrets still honoured; never a
 * secret (`getSigningSecret` reads them).
 */
export const signingDocument = (signing: Signing) => ({
  enabled: true,
  scheme: signing.secrets[0]?.publicKey === undefined ? 'v1' : 'v1a',
  ...(signing.secrets[0]?.publicKey === undefined ? {} : { publicKey: signing.secrets[0].publicKey }),
  secretCreatedTime: new Date((signing.secrets[0] as Signing['secrets'][number]).createdAt).toISOString(),
  previousSecretsValidUntil: signing.secrets
    .slice(1)
    .map((secret) => new Date(secret.expiresAt ?? 0).toISOString()),
});

/** A dead-letter destination as shown. */
export const deadLetterDocument = (deadLetter: DeadLetterDestination) => ({
  endpointType: 'StorageBlob',
  properties: {
    blobContainerName: deadLetter.container,
    ...(deadLetter.resourceId === undefined ? {} : { resourceId: deadLetter.resourceId }),
    ...(deadLetter.roleArn === undefined ? {} : { roleArn: deadLetter.roleArn }),
    ...(deadLetter.externalId === undefined ? {} : { externalId: deadLetter.externalId }),
  },
});

/**
 * `provisioningState` at `nowMs`, and while the endpoint has not agreed (or once it did), how its
 * validation stands. The code is never shown: only the endpoint receives it.
 */
export function provisioningProperties(subscription: Subscription, nowMs: number) {
  const validation = subscription.validation;
  return {
    provisioningState: provisioningStateOf(subscription, nowMs),
    ...(validation === undefined
      ? {}
      : {
          endpointValidation: {
            startedAt: new Date(validation.startedAt).toISOString(),
            ...(validation.validatedAt === undefined
              ? { validationUrlExpiresAt: new Date(validation.expiresAt).toISOString() }
              : { validatedAt: new Date(validation.validatedAt).toISOString() }),
            ...(validation.handshakeError === undefined || validation.validatedAt !== undefined
              ? {}
              : { handshakeError: validation.handshakeError }),
          },
        }),
  };
}

/** The subscription as the management API returns it (the full endpoint URL only via getFullUrl). */
export function subscriptionDocument(subscription: Subscription, nowMs: number) {
  const topicId = topicResourceId(subscription.topic);
  return {
    id: `${topicId}/eventSubscriptions/${subscription.name}`,
    name: subscription.name,
    type: 'Microsoft.EventGrid/eventSubscriptions',
    properties: {
      topic: topicId,
      ...provisioningProperties(subscription, nowMs),
      destination: destinationDocument(subscription.destination),
      filter: filterDocument(subscription.filter),
      retryPolicy: retryPolicyDocument(subscription.retry),
      eventDeliverySchema: subscription.eventDeliverySchema,
      labels: subscription.labels,
      deliveryLog: subscription.deliveryLog ?? 'Failures',
      ...disableAfterDocument(subscription),
      ...(subscription.deadLetter === undefined
        ? {}
        : { deadLetterDestination: deadLetterDocument(subscription.deadLetter) }),
      ...expirationDocument(subscription),
      orderedDelivery: subscription.orderedDelivery ?? null,
    },
    systemData: systemData(subscription),
  };
}

/** The retry policy as shown: with `retrySchedule` (ISO 8601 durations) when the subscription has its own. */
export const retryPolicyDocument = (retry: RetryLimits) => ({
  ...retryPolicyOf(retry),
  ...retryScheduleDocument(retry),
});

/** `retrySchedule` as ISO 8601 durations, when the subscription has its own schedule. */
export const retryScheduleDocument = ({ scheduleMs }: Pick<RetryLimits, 'scheduleMs'>) =>
  scheduleMs === undefined
    ? {}
    : { retrySchedule: scheduleMs.map((ms) => isoDurationOfSeconds(Math.round(ms / 1000))) };

/** `disableAfterFailingFor` as shown: an ISO 8601 duration, or `null` for never. */
export const disableAfterDocument = ({
  disableAfterFailingForMs,
}: Pick<Subscription, 'disableAfterFailingForMs'>) => {
  const ms = disableAfterFailingForMs ?? DEFAULT_DISABLE_AFTER_MS;
  return { disableAfterFailingFor: ms === 0 ? null : isoDurationOfSeconds(Math.round(ms / 1000)) };
};

/** `expirationTimeUtc`, shown only when the subscription has one. */
export const expirationDocument = ({ expirationTime }: Pick<Subscription, 'expirationTime'>) =>
  expirationTime === undefined ? {} : { expirationTimeUtc: expirationTime };

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A backlog's state as the health document names it (an idle backlog holds nothing: `null`). */
const HELD_STATES = {
  holding: 'Holding',
  draining: 'Draining',
  waiting: 'Waiting',
} as const satisfies Record<Exclude<BacklogState, 'idle'>, string>;

/**
 * What the subscription's backlog holds, from its index: how many events (of the subscription's
 * current uid), the oldest one's publish time, the next wake (`until`, absent without one) and
 * what the backlog is doing. `null` when it holds nothing: no META, an idle one, or no events.
 */
export function heldDocument({ meta, summary }: BacklogOverview) {
  if (meta === undefined || meta.state === 'idle' || summary.events === 0) return null;
  return {
    events: summary.events,
    oldestPublishedAt: isoOrNull(summary.oldestPublishedAt),
    ...(meta.wakeAt === undefined ? {} : { until: new Date(meta.wakeAt).toISOString() }),
    state: HELD_STATES[meta.state],
  };
}

/**
 * An endpoint's health as the management API returns it. `health` is already the record about
 * the subscription's current endpoint (`currentHealth`); `probationUntil` is shown only while it
 * holds attempts back, and the endpoint URL without its query string, like `endpointBaseUrl`.
 * `held` is what the subscription's backlog holds (`heldDocument`).
 */
export function healthDocument(health: EndpointHealth, nowMs: number, backlog: BacklogOverview) {
  return {
    state: healthState(health, nowMs),
    probationUntil:
      health.probationUntil !== undefined && health.probationUntil > nowMs
        ? isoOrNull(health.probationUntil)
        : null,
    consecutiveFailures: health.consecutiveFailures,
    lastOutcome: health.lastOutcome ?? null,
    lastFailureAt: isoOrNull(health.lastFailureAt),
    lastSuccessAt: isoOrNull(health.lastSuccessAt),
    endpointUrl: endpointBaseUrl(health.endpointUrl),
    failingSince: isoOrNull(health.failingSince),
    disabledAt: isoOrNull(health.disabledAt),
    disabledReason: health.disabledAt === undefined ? null : (health.disabledReason ?? 'Gone'),
    pausedAt: isoOrNull(health.pausedAt),
    held: heldDocument(backlog),
  };
}

export type HealthDocument = ReturnType<typeof healthDocument>;
