/** What `gridwire subscription ...` prints for a person (`--json` prints the API's documents). */
import type { TopicRef } from '../admin-api';
import { table } from '../output';
import { noSubscriptions } from '../text';
import { bucketNameOf, isBucketArn } from './dead-letter-flags';

/** A subscription document as the API shows it, classic or namespace (the parts printed here). */
export interface SubscriptionDocument {
  name: string;
  properties: {
    provisioningState?: string;
    destination?: Destination;
    deliveryConfiguration?: {
      push?: {
        destination?: Destination;
        maxDeliveryCount?: number;
        eventTimeToLive?: string;
        deadLetterDestinationWithResourceIdentity?: { deadLetterDestination?: DeadLetter } | null;
      };
    };
    filter?: Filter;
    filtersConfiguration?: Filter;
    retryPolicy?: { maxDeliveryAttempts?: number; eventTimeToLiveInMinutes?: number };
    deadLetterDestination?: DeadLetter;
    eventDeliverySchema?: string;
    labels?: string[];
    expirationTimeUtc?: string;
    deliveryLog?: string;
    /** `null` when events are not kept in order (absent from an API older than the setting). */
    orderedDelivery?: { key: string } | null;
  };
}

interface Destination {
  properties?: {
    endpointBaseUrl?: string;
    /** An AWS resource destination's ARN. */
    resourceArn?: string;
    maxEventsPerBatch?: number;
    preferredBatchSizeInKilobytes?: number;
    maxDeliveriesPerSecond?: number;
    auth?: EndpointAuthDocument;
    /** Present when requests are signed (`signingDocument`): never a secret. */
    signing?: {
      enabled: boolean;
      scheme: string;
      secretCreatedTime?: string;
      previousSecretsValidUntil?: string[];
    };
    deliveryAttributeMappings?: Array<{ name: string; type: string; properties: Record<string, unknown> }>;
  };
}

interface Filter {
  includedEventTypes?: string[] | null;
  subjectBeginsWith?: string;
  subjectEndsWith?: string;
  isSubjectCaseSensitive?: boolean;
  advancedFilters?: Array<Record<string, unknown>>;
}

interface DeadLetter {
  properties?: {
    blobContainerName?: string;
    /** The bucket's ARN (`arn:aws:s3:::<name>`), or another id kept for familiarity (the stack's bucket). */
    resourceId?: string;
    /** A role assumed to write to the bucket, and the external id sent with it. */
    roleArn?: string;
    externalId?: string;
  };
}

/** The parts both kinds of document have, found where each kind keeps them. */
function partsOf(document: SubscriptionDocument) {
  const p = document.properties;
  const push = p.deliveryConfiguration?.push;
  return {
    destination: (push?.destination ?? p.destination)?.properties ?? {},
    filter: p.filtersConfiguration ?? p.filter ?? {},
    attempts: push?.maxDeliveryCount ?? p.retryPolicy?.maxDeliveryAttempts,
    ttl:
      push?.eventTimeToLive ??
      (p.retryPolicy?.eventTimeToLiveInMinutes === undefined
        ? undefined
        : `${p.retryPolicy.eventTimeToLiveInMinutes} min`),
    deadLetter: (
      push?.deadLetterDestinationWithResourceIdentity?.deadLetterDestination ?? p.deadLetterDestination
    )?.properties,
  };
}

const typesOf = (filter: Filter) =>
  filter.includedEventTypes === undefined || filter.includedEventTypes === null
    ? 'all'
    : filter.includedEventTypes.join(', ');

/** One subscription, a setting a line. */
export function formatSubscription(document: SubscriptionDocument): string {
  const { destination, filter, attempts, ttl, deadLetter } = partsOf(document);
  const p = document.properties;
  const lines: Array<[string, string | undefined]> = [
    ['name', document.name],
    ['state', p.provisioningState],
    ['endpoint', destination.endpointBaseUrl ?? destination.resourceArn],
    ['event types', typesOf(filter)],
    ['subject begins with', filter.subjectBeginsWith],
    ['subject ends with', filter.subjectEndsWith],
    [
      'advanced filters',
      filter.advancedFilters === undefined || filter.advancedFilters.length === 0
        ? undefined
        : filter.advancedFilters.map((one) => JSON.stringify(one)).join('; '),
    ],
    ['max delivery attempts', attempts === undefined ? undefined : String(attempts)],
    ['event time to live', ttl],
    [
      'batching',
      (destination.maxEventsPerBatch ?? 1) > 1
        ? `up to ${destination.maxEventsPerBatch} events, ${destination.preferredBatchSizeInKilobytes} KB`
        : 'off',
    ],
    [
      'rate limit',
      destination.maxDeliveriesPerSecond === undefined
        ? undefined
        : `${destination.maxDeliveriesPerSecond} requests per second`,
    ],
    ['endpoint auth', authLine(destination.auth)],
    ['signing', signingLine(destination.signing)],
    [
      'custom headers',
      destination.deliveryAttributeMappings?.map((mapping) => `${mapping.name} (${mapping.type})`).join(', '),
    ],
    ['delivery schema', p.eventDeliverySchema],
    ['dead letters', deadLetterLine(deadLetter)],
    ['ordered by', orderedByOf(document)],
    ['delivery log', p.deliveryLog],
    ['labels', p.labels === undefined || p.labels.length === 0 ? undefined : p.labels.join(', ')],
    ['expires', p.expirationTimeUtc],
  ];
  const shown = lines.filter((line): line is [string, string] => line[1] !== undefined && line[1] !== '');
  const width = Math.max(...shown.map(([label]) => label.length));
  return shown.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n');
}

/**
 * Where dead letters go: the container, in the stack's bucket or the one the subscription names
 * (an S3 bucket ARN as `resourceId`; another id is kept for familiarity only), and the role
 * assumed to write to it.
 */
function deadLetterLine(deadLetter: DeadLetter['properties']): string | undefined {
  if (deadLetter?.blobContainerName === undefined) return undefined;
  const id = deadLetter.resourceId;
  const bucket = isBucketArn(id) ? `bucket ${bucketNameOf(id)}` : "the stack's bucket";
  const role = deadLetter.roleArn
    ? `, through role ${deadLetter.roleArn}${deadLetter.externalId ? ` (external id ${deadLetter.externalId})` : ''}`
    : '';
  return `container ${deadLetter.blobContainerName} in ${bucket}${role}`;
}

/**
 * Whether requests are signed: the scheme (`v1`, a shared secret; `v1a`, a key pair), since when
 * the secret is in use, and how long earlier ones are still honoured.
 */
function signingLine(signing: NonNullable<Destination['properties']>['signing']): string | undefined {
  if (signing === undefined || !signing.enabled) return undefined;
  const scheme = signing.scheme === 'v1a' ? 'v1a (asymmetric, ed25519)' : 'v1 (shared secret)';
  const since = signing.secretCreatedTime === undefined ? '' : `, secret of ${signing.secretCreatedTime}`;
  const previous = signing.previousSecretsValidUntil ?? [];
  const earlier =
    previous.length === 0
      ? ''
      : `; ${previous.length} earlier secret${previous.length === 1 ? '' : 's'} honoured until ${previous.join(', ')}`;
  return `on, Standard Webhooks ${scheme}${since}${earlier}`;
}

const labelsOf = (document: SubscriptionDocument): string[] => document.properties.labels ?? [];

/** The key events are delivered in order by (`subject`, `data.orderId`), or `-` when they are not. */
const orderedByOf = (document: SubscriptionDocument): string =>
  document.properties.orderedDelivery?.key ?? '-';

/**
 * A topic's subscriptions, a line each; an ORDERED BY column when one of them keeps its events in
 * order, a LABELS column when one of them has labels.
 */
export function formatSubscriptionList(ref: TopicRef, documents: readonly SubscriptionDocument[]): string {
  if (documents.length === 0) {
    return noSubscriptions(ref);
  }
  const ordered = documents.some((document) => document.properties.orderedDelivery?.key !== undefined);
  const labelled = documents.some((document) => labelsOf(document).length > 0);
  return table(
    [
      'NAME',
      'STATE',
      'ENDPOINT',
      'EVENT TYPES',
      ...(ordered ? ['ORDERED BY'] : []),
      ...(labelled ? ['LABELS'] : []),
    ],
    documents.map((document) => {
      const { destination, filter } = partsOf(document);
      return [
        document.name,
        document.properties.provisioningState ?? '',
        destination.endpointBaseUrl ?? destination.resourceArn ?? '',
        typesOf(filter),
        ...(ordered ? [orderedByOf(document)] : []),
        ...(labelled ? [labelsOf(document).join(',') || '-'] : []),
      ];
    }),
  );
}

/** The endpoint auth as a subscription document shows it. */
interface EndpointAuthDocument {
  type: string;
  tokenUrl?: string;
  clientId?: string;
  service?: string;
  region?: string;
}

/** The endpoint auth in a line: its kind and who it is, never a secret. */
function authLine(auth: EndpointAuthDocument | undefined): string | undefined {
  if (auth === undefined) return undefined;
  if (auth.type === 'AwsSigV4')
    return `AWS SigV4 (${auth.service}${auth.region === undefined ? '' : `, ${auth.region}`})`;
  return `OAuth 2.0 client ${auth.clientId} at ${auth.tokenUrl}`;
}
