/**
 * What `gridwire subscription create` and `update` take: their flags as commander reads them,
 * each absent when not given.
 */
import type { AdvancedFilter } from '../../shared/domain/model';

/** A custom header as the API takes it. */
export type DeliveryAttributeMappingBody =
  | { name: string; type: 'Static'; properties: { value: string; isSecret: boolean } }
  | { name: string; type: 'Dynamic'; properties: { sourceField: string } };

/** The flags `subscription create` and `update` take (absent: not given). */
export interface SubscriptionFlags {
  endpoint?: string;
  /** `--resource-arn`: an AWS resource instead of a webhook. */
  resourceArn?: string;
  /** `--endpoint-type`: `WebHook`, or a resource type (default: read from the ARN). */
  endpointType?: string;
  /** `--role-arn`: a role to assume to send to the resource; `--no-role-arn` (false): the stack's own. */
  roleArn?: string | false;
  /** `--external-id`: sent when the role is assumed (its trust policy may ask for it); `--no-external-id` (false): none. */
  externalId?: string | false;
  /** `--invocation-type Event|RequestResponse` (Lambda functions). */
  invocationType?: string;
  /** `--partition-key-field data.customerId` (Kinesis streams). */
  partitionKeyField?: string;
  includedEventTypes?: string[];
  subjectBeginsWith?: string;
  subjectEndsWith?: string;
  subjectCaseSensitive?: boolean;
  advancedFilter?: AdvancedFilter[];
  enableAdvancedFilteringOnArrays?: boolean;
  maxDeliveryAttempts?: number;
  /** Minutes. */
  eventTtl?: number;
  /** ISO 8601 durations, the last repeating. */
  retrySchedule?: string[];
  /** `--deadletter-container`: where in the dead-letter bucket undeliverable events go. */
  deadletterContainer?: string;
  /**
   * `--deadletter-bucket`: the bucket dead letters are written to, as its ARN (a name given becomes
   * `arn:aws:s3:::<name>`); `--no-deadletter-bucket` (false): the stack's own bucket again.
   */
  deadletterBucket?: string | false;
  /** `--deadletter-role-arn`: a role to assume to write to that bucket; `--no-deadletter-role-arn` (false): none. */
  deadletterRoleArn?: string | false;
  /** `--deadletter-external-id`: sent when that role is assumed; `--no-deadletter-external-id` (false): none. */
  deadletterExternalId?: string | false;
  maxEventsPerBatch?: number;
  preferredBatchSizeInKilobytes?: number;
  /** `--max-deliveries-per-second 50`; `--no-max-deliveries-per-second` (false): no limit again. */
  maxDeliveriesPerSecond?: number | false;
  deliveryAttributeMapping?: DeliveryAttributeMappingBody[];
  eventDeliverySchema?: string;
  /** `--labels a b` or `a,b`; `--no-labels` (false): none. */
  labels?: string[] | false;
  expirationDate?: string;
  deliveryLog?: string;
  /**
   * `--ordered-by subject` (or a dotted path such as `data.orderId`): events with the same key
   * delivered one at a time, in the order they were accepted; `--no-ordered-by` (false): no order.
   */
  orderedBy?: string | false;
  /** `--disable-after-failing-for P5D` (or `never`). */
  disableAfterFailingFor?: string;
  /** `--signing-secret whsec_...` (or `whsk_...`), or `--signing-secret generate` for a new one. */
  signingSecret?: string;
  /** `--signing-scheme v1|v1a`: what `generate` makes. */
  signingScheme?: string;
  /** `--no-signing` (commander's `signing: false`): deliveries unsigned again. */
  signing?: boolean;
  /** `--oauth2-token-url`, `--oauth2-client-id`, `--oauth2-client-secret`, `--oauth2-scope`. */
  oauth2TokenUrl?: string;
  oauth2ClientId?: string;
  oauth2ClientSecret?: string;
  oauth2Scope?: string;
  /** `--aws-sigv4 execute-api|lambda` and `--aws-sigv4-region`. */
  awsSigv4?: string;
  awsSigv4Region?: string;
  /** `--no-auth` (commander's `auth: false`): no credentials on requests again. */
  auth?: boolean;
  /** `--client-certificate`, `--client-key`, `--ca-certificates`: the PEM texts of the files named. */
  clientCertificate?: string;
  clientKey?: string;
  caCertificates?: string;
  /** `--no-public-cas` (commander's `publicCas: false`): only `--ca-certificates` trusted. */
  publicCas?: boolean;
  /** `--no-tls` (commander's `tls: false`): no TLS settings of its own again. */
  tls?: boolean;
}
