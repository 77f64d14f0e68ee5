/**
 * The gridwire package's main entry: the CDK constructs. `DeliveryPipeline` is the whole pipeline
 * (API, queues, functions, tables, dead-letter bucket, alarms); `GridwireStack` is a stack holding
 * one; `addTopic` / `addNamespace` on a pipeline declare topics and subscriptions in code.
 */

export type {
  DeclaredDeadLetter,
  DeclaredOrderedDelivery,
  DeclaredSubscriptionProps,
} from './declared-bodies';
export type { DeclaredEndpointAuth, DeclaredEndpointTls } from './declared-credentials';
export {
  DeclaredNamespace,
  type DeclaredNamespaceProps,
  type DeclaredNamespaceSubscriptionProps,
  DeclaredNamespaceTopic,
  type DeclaredNamespaceTopicProps,
} from './declared-namespaces';
export {
  DECLARED_TOTAL_TIMEOUT_MINUTES,
  DeclaredTopic,
  type DeclaredTopicProps,
} from './declared-resources';
export {
  DEFAULT_REMOVAL_POLICY,
  DEFAULT_THROTTLE,
  DeliveryPipeline,
} from './delivery-pipeline';
export type { DeliveryPipelineProps, EgressProps, PortalBrandingProps } from './delivery-pipeline-props';
export { type DeclaredDestination, Destination, type DestinationOptions } from './destinations';
export { GridwireStack, type GridwireStackProps } from './gridwire-stack';
export {
  ADMIN_ROUTE_THROTTLE,
  ASSUMED_PUBLISH_DURATION_MS,
  PUBLIC_FILE_ROUTE_THROTTLE,
  SESSION_ROUTE_THROTTLE,
  type StageThrottle,
  stageThrottleFor,
  THROTTLE_CEILING,
  VALIDATION_ROUTE_THROTTLE,
} from './pipeline/capacity';
export type { DeadLetterBucketPair } from './pipeline/dead-letter-buckets';
export type { DeliveryNetwork } from './pipeline/egress';
export type { ResourceDestinationPair } from './pipeline/functions';
export { FUNCTION_RUNTIME } from './pipeline-function';
export {
  type DeclaredSource,
  type EventBridgeSourceOptions,
  PipelineSources,
  Source,
  type SqsSourceOptions,
} from './sources';
