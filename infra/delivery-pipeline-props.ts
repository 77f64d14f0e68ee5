/**
 * The props of `DeliveryPipeline`, each with its default and what it changes; checked at
 * synthesis by `validateProps` (`pipeline/props.ts`).
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { ApplicationLogLevel } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { DeliveryBatchingWindow } from '../shared/config/event-source-mapping';
import type { QueueKey } from '../shared/config/resources';
import type { DeadLetterBucketPair } from './pipeline/dead-letter-buckets';
import type { ResourceDestinationPair } from './pipeline/functions';
import type { PublishIngress } from './pipeline/publish-url';

export interface DeliveryPipelineProps {
  /**
   * What happens to the pipeline's stateful resources (the table, the dead-letter, access-log,
   * fan-out and backlog buckets, the two sealing-key secrets and the session-key secret, the
   * alarm topic's KMS key and the log groups) when the stack is deleted, a change replaces them,
   * or the first create fails. The default keeps them on delete and replacement and removes them
   * when the stack's first create rolls back (CloudFormation's `RetainExceptOnCreate`), so a
   * failed first deploy can simply be tried again. `RemovalPolicy.DESTROY` removes them with the stack (a bucket that
   * still holds objects can't be deleted, and fails the stack's deletion).
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Days function and API access logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Webhook requests one delivery invocation keeps in flight.
   * @default 256
   */
  readonly deliveryConcurrency?: number;
  /**
   * Upper bound on concurrent delivery invocations per queue (Lambda's minimum is 2).
   * @default the `consumer.maxConcurrency` of each queue in shared/config/resources.ts (50 fresh, 20 retries, 2 backlog, 50 ordered)
   */
  readonly maxDeliveryInvocations?: Partial<Record<QueueKey, number>>;
  /**
   * Seconds the backlog queue's consumer gathers messages before it runs (Lambda's batching
   * window, from 1 to 300). Longer windows put more events in each backlog segment, so fewer
   * writes per event, at the price of events reaching the backlog that much later.
   * @default 60
   */
  readonly backlogWindowSeconds?: number;
  /**
   * How the delivery queue's consumer gathers fresh deliveries (Lambda's batching window on its
   * event source mapping): for up to `seconds` (an integer from 0 to 300) after the first, and at
   * most `batchSize` per invocation (1 to 10 when `seconds` is 0, 1 to 100 with a window; 100
   * caps the jobs one invocation holds). A window means fewer delivery invocations per event for
   * steady one-event traffic (about a third off the bill at 5 to 50 events/s, docs/cost.md), and
   * lets the jobs of one subscription from more publishes share an invocation, so subscriptions
   * with `maxEventsPerBatch` get fuller batches. The price is latency: up to `seconds` while
   * traffic is light, and on a quiet queue more, since Lambda's pollers long-poll inside the window
   * and a batch waits for the receive to return (up to 20 s). The window is added to the queue's
   * visibility timeout. By default there is none: each receive's messages (10 at most) at once.
   * @default { seconds: 0, batchSize: 10 }
   */
  readonly deliveryBatchingWindow?: DeliveryBatchingWindow;
  /**
   * Hours since publishing after which an event still waiting in a subscription's backlog fires
   * the `backlogOldestAge` alarm (from 1 to 168, the longest time to live).
   * @default 6
   */
  readonly backlogAgeAlarmHours?: number;
  /**
   * Events held in all backlogs together that fire the `backlogSize` alarm (an integer of at
   * least 1).
   * @default 1000000
   */
  readonly backlogSizeAlarmEvents?: number;
  /**
   * Days the failed-attempt history is kept in the table.
   * @default 7
   */
  readonly historyRetentionDays?: number;
  /**
   * Seconds a delivery function trusts a cached subscription before reading it again.
   * @default 10
   */
  readonly subscriptionCacheSeconds?: number;
  /**
   * The API's public base URL (a custom domain in front of the API): the base of topic `endpoint`
   * properties, validation URLs and the handshake's origin. Never taken from a request.
   * @default the HTTP API's own URL, `https://<api id>.execute-api.<region>.<suffix>`
   */
  readonly publicUrl?: string;
  /**
   * An existing bucket for dead letters.
   * @default a new bucket: public access blocked, S3-managed encryption, TLS only
   */
  readonly deadLetterBucket?: s3.IBucket;
  /**
   * The topic every alarm notifies when it fires and again when it clears (see `alarms`).
   * Subscribe your on-call channel to it (or give `alarmEmail`). Its policy must allow
   * `cloudwatch.amazonaws.com` to `sns:Publish`, and a topic encrypted with a KMS key must let
   * it use the key: a topic policy replaces SNS's default one, so without that Allow no alarm
   * reaches anyone.
   * @default a new topic, encrypted with its own KMS key, TLS only, open to CloudWatch for this
   *   account's alarms (exposed as `alarmTopic`, its ARN as the `<outputPrefix>AlarmTopicArn` output)
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Email addresses subscribed to the alarm topic (the created one or `alarmTopic`). SNS sends
   * each a confirmation message first: an address receives alarms only once its owner has
   * followed the link in it, and until then the subscription shows as pending. Checked at synth
   * (an address that is not one fails it).
   * @default none: subscribe your on-call channel to `alarmTopic` yourself
   */
  readonly alarmEmail?: string | readonly string[];
  /**
   * Steady-state requests per second (`rateLimit`) and burst (`burstLimit`, requests) the API
   * stage accepts over all routes; above them callers get `429 Too Many Requests` from the
   * gateway. The default is what the publish function's reserved executions serve, so the stage
   * refuses (429) before Lambda would (which the HTTP API answers with a 500):
   * `reservedConcurrency × 1000 / 20` requests per second (20 ms: the assumed mean duration of a
   * publish, `ASSUMED_PUBLISH_DURATION_MS`) and a burst of `reservedConcurrency`, each at most half
   * the account's regional API Gateway quota (5,000 rps, burst 2,500), so one Gridwire can't
   * starve the account's other APIs. Without a reservation (the default), that half.
   * @default { rateLimit: 5000, burstLimit: 2500 } (with `reservedConcurrency` 100: 5,000 and 100)
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Concurrent executions reserved for the publish function, which also caps it: a flood of
   * publish requests can't take the concurrency the delivery functions need, and can't scale
   * costs without bound. `false` reserves nothing (the function shares the account's unreserved
   * pool). Lambda refuses a reservation that would leave the account less than 100 unreserved
   * executions, so a reservation needs an account concurrency limit of at least 100 + the
   * reservations of the account's functions together; new accounts start at 10, which fits none.
   * So nothing is reserved unless asked for, and a synth that reserves warns with the limit its
   * reservations need (`aws lambda get-account-settings` shows yours). 100 is a good value once
   * the account's limit allows it.
   * @default false
   */
  readonly reservedConcurrency?: number | false;
  /**
   * Concurrent executions reserved for the delivery function, which also caps it: a surge of
   * deliveries can't take the account's other functions' concurrency, and the delivery queues'
   * consumers always have their executions (without one, the account's other functions can use
   * them up, and a batch Lambda throttles goes back to its queue, parked after 5 receives). Must
   * be at least what its event sources may run at once (`maxDeliveryInvocations`, together) plus
   * one for the backlog sweep (123 with the default `maxDeliveryInvocations`). `false` reserves
   * nothing: the event sources' `maxDeliveryInvocations` still cap the function, and a batch the
   * account's limit throttles goes back to its queue and is received again. Like
   * `reservedConcurrency`, it must leave the account 100 unreserved executions (with 100 for
   * publish and 123 here, a limit of at least 323), so nothing is reserved unless asked for.
   * @default false
   */
  readonly deliveryReservedConcurrency?: number | false;
  /**
   * Jobs waiting in the delivery queue (not yet taken by a delivery invocation) from which the
   * publish function refuses publishes with `429` and `Retry-After: 5`, until they are down to
   * half (each instance reads the queue's depth at most every 2 s; if it can't, it lets
   * publishes in). `false` never refuses. Each refusal counts `PublishThrottledCount`.
   * @default 20 rounds of the fresh-delivery consumers' intake: 20 × `maxDeliveryInvocations.delivery` (50) × the batch size (`deliveryBatchingWindow.batchSize`, 10) = 10,000
   */
  readonly deliveryBacklogLimit?: number | false;
  /**
   * Whether the table has DynamoDB deletion protection: it can't be deleted (by CloudFormation
   * or anyone else) until this is turned off. Off by default because CloudFormation could then
   * not delete the table when a first create rolls back (the rollback itself fails, and the
   * table is left behind); the default `removalPolicy` already keeps the table when the stack is
   * deleted. Turn it on in a later deploy, once the stack exists, to guard the table against
   * deletion outside CloudFormation; off again before deleting a stack whose `removalPolicy` is
   * DESTROY.
   * @default false
   */
  readonly deletionProtection?: boolean;
  /**
   * Whether a subscription's endpoint must agree to receive (the validation handshake: the Event
   * Grid validation event, or the CloudEvents `OPTIONS` request) before events are matched to it.
   * @default true
   */
  readonly validateEndpoints?: boolean;
  /**
   * Whether endpoint URLs may point at loopback, private, link-local (cloud metadata) or other
   * non-public addresses. Off, such URLs are refused when a subscription is written and again at
   * every connection (SSRF protection).
   * @default false
   */
  readonly allowPrivateEndpoints?: boolean;
  /**
   * The AWS resources subscriptions may deliver to (SQS queues, SNS topics, EventBridge buses,
   * Lambda functions, Kinesis streams):
   * ARNs, `*` standing for any run of characters within one segment, never crossing a `:` or a
   * `/` (`arn:aws:sqs:eu-west-1:123456789012:orders-*`; `*` alone in a field is any value of it).
   * The delivery function's role may send to these and nothing else, and a subscription to any
   * other resource is refused when written. Encrypted queues and topics also need their KMS key
   * to let the delivery role use it. IAM role ARNs in the list are roles the delivery function may
   * assume (`sts:AssumeRole`) to send to a resource in another account (a destination's
   * `roleArn`), a resource of the role's own account; each such role trusts the delivery role and
   * may send to the resource. `{resource, role}` pairs a resource with a role of another account
   * (only that role sends to it). IAM's `*` crosses `/`, so the role's grants are wider than the
   * check a subscription passes: see `allowResourceDestinations`.
   * @default none
   */
  readonly resourceDestinations?: readonly (string | ResourceDestinationPair)[];
  /**
   * The S3 buckets of your own subscriptions may have their dead letters written to instead of
   * the stack's dead-letter bucket (`deadLetterDestination.properties.resourceId`:
   * `arn:aws:s3:::<bucket>`): bucket names or `arn:aws:s3:::` ARNs, `*` standing for any run of
   * characters of a name (`acme-dead-letters-*`; `*` alone, every bucket, is refused), or the
   * buckets themselves (their KMS key is granted too). The dead-letter function may put objects
   * in these (`s3:PutObject` on `<bucket>/*`), the management function list, read and write them
   * (`s3:ListBucket`, `s3:GetObject`, `s3:PutObject`), and a subscription naming any other bucket
   * is refused when written. `{bucket, role}` pairs a bucket with the ARN of a role of another
   * account (a `*` within a segment allowed): a subscription naming that bucket gives that role
   * (`roleArn`, and the `externalId` its trust policy asks for), which both functions may assume
   * (`sts:AssumeRole`), and nothing is granted on the bucket itself. A bucket named by a declared
   * subscription's `deadLetter` is added to these by declaring it. Both functions get the list
   * as `ENV.deadLetterBuckets` (`arn:aws:s3:::<name>` or `arn:aws:s3:::<name>|<role>`,
   * comma-separated), only when it is not empty.
   * @default none: the stack's own dead-letter bucket only
   */
  readonly deadLetterBuckets?: readonly (string | s3.IBucket | DeadLetterBucketPair)[];
  /**
   * Where publishers reach the publish function (see docs/deploy.md, choosing the publish
   * ingress):
   * - `'httpApi'`: the HTTP API's publish routes, throttled by `throttle`, at API Gateway's
   *   price per request.
   * - `'functionUrl'`: the publish function's Lambda function URL (auth type NONE: the function
   *   checks topic keys, SAS tokens and namespace keys itself), with the same paths, at no charge
   *   beyond the invocation; no stage throttle, only `reservedConcurrency`. The HTTP API stays
   *   for the admin routes, the validation URL and IAM publishing, but no longer serves key
   *   publishing, and topic `endpoint` properties name the function URL (unless `publicUrl`).
   * - `'both'`: both, so publishers can move from one to the other.
   * The function URL's address is the `PublishUrl` output and `publishUrl`.
   * @default 'httpApi'
   */
  readonly publishIngress?: PublishIngress;
  /**
   * Whether the functions are traced with AWS X-Ray (active tracing, and each role may write
   * traces). X-Ray bills per trace recorded ($5 per million), and Lambda records the first
   * invocation each second and 5% of the others, so it is off unless asked for.
   * @default false
   */
  readonly tracing?: boolean;
  /**
   * Whether metrics about a subscription's events (matched, delivered, failed attempts, response
   * time, held, probations, dead-lettered, dropped, replayed) are also counted per subscription
   * (`Topic`, `EventSubscriptionName`). Each such series is a billed custom metric, about 3 per
   * active subscription (see docs/operate.md, "Metrics budget"); off, the same counts are written
   * per topic. The stack-wide series that alarms and the dashboard read are there either way.
   * @default false
   */
  readonly subscriptionMetrics?: boolean;
  /**
   * Seconds a function instance may keep its metric points across invocations before it writes
   * them (0: one set of metric records at the end of every invocation). With small publishes,
   * metric records are a large share of the bill (one per publish request); 60 lets a hundred
   * or more requests share one. The price: metrics arrive up to this late, and the points an
   * instance holds when Lambda retires it are lost unless the function has an extension (see
   * docs/operate.md, "Logs, traces and metrics: what they cost").
   * @default 0
   */
  readonly metricsFlushSeconds?: number;
  /**
   * Whether the events of an unhealthy endpoint, and events whose next attempt is more than 20
   * minutes away, are kept in the subscription's backlog (segments in the backlog bucket, one
   * timer per subscription) instead of riding the retry queue as a chain of 15-minute delays.
   * An outage then costs per endpoint, not per event and hop (docs/ARCHITECTURE.md, "The backlog
   * of a sick endpoint"). `false` stops storing new events; backlogs that hold events still drain,
   * which is the way to switch it off before rolling back to a release without it.
   * @default true
   */
  readonly backlog?: boolean;
  /**
   * The lowest level of the functions' own log lines Lambda keeps (what each level holds is in
   * docs/operate.md, "Logs"). DEBUG or TRACE adds a line per job and per publish; WARN and
   * above are refused: metric records (EMF) carry no level, so Lambda counts them as INFO, and
   * they would be dropped with the alarms that read them.
   * @default ApplicationLogLevel.INFO
   */
  readonly applicationLogLevel?: ApplicationLogLevel;
  /**
   * The CloudWatch namespace the functions write Gridwire's metrics to, and the one the alarms and
   * the dashboard read. Give each deployment in an account and region its own (for example the
   * stack's name), or their metrics, alarms and dashboards mix. Changing it starts new series:
   * the old namespace's history stays where it was. CloudWatch's rules: 1 to 255 letters, digits,
   * spaces or `. - _ / # :`, not beginning with `:` or `AWS/`.
   * @default 'Gridwire'
   */
  readonly metricsNamespace?: string;
  /**
   * What the names of this pipeline's stack outputs that `gridwire parked --stack` reads begin
   * with (`<prefix>DeliveryQueueUrl`, ..., and `<prefix>PublishUrl`): letters and digits, unique
   * in the stack. The CLI picks the pipeline with `--pipeline <prefix>`.
   * @default '' (today's names) for the first pipeline of a stack that takes the default; the
   *   construct id (its letters and digits) for the others
   */
  readonly outputPrefix?: string;
  /**
   * The https origins that may show the portal (`GET /portal`) in a frame, such as your own
   * product's pages (`https://app.example.com`, `https://*.example.com`; a port is allowed, a path
   * or query is not): the page's CSP `frame-ancestors`. The console is never framed. Checked at
   * synth (an entry that is not an https origin fails it, naming its index). Given to the
   * management function only.
   * @default none: no site may frame the portal
   */
  readonly portalFrameAncestors?: readonly string[];
  /**
   * How the portal looks to the customers you give portal sessions to: its title, logo and accent
   * colour. Checked at synth (each field's limit is named when it fails). Given to the management
   * function only.
   * @default Gridwire's own title and colours, no logo
   */
  readonly portalBranding?: PortalBrandingProps;
  /**
   * Where requests to endpoints leave from (docs/deploy.md, "Static egress addresses"): fixed
   * public addresses receivers behind a firewall can allow-list, and an HTTP proxy. Only the
   * delivery function calls endpoints (deliveries, the validation handshake, OAuth token
   * requests), so only it is put in a VPC. Off by default: the delivery function runs outside
   * any VPC, as every other function does, and requests leave from Lambda's shared addresses.
   * @default none: no VPC, no fixed addresses, no proxy
   */
  readonly egress?: EgressProps;
}

/** How requests to endpoints leave AWS (`egress`); each field optional. */
export interface EgressProps {
  /**
   * Put the delivery function in private subnets whose NAT gateways have Elastic IPs (created by
   * the construct, one per NAT gateway): every request to an endpoint leaves from one of those
   * addresses, output as `<outputPrefix>EgressAddresses`. NAT gateways bill by the hour and by the
   * GB processed (docs/cost.md, "Static egress addresses").
   * @default false
   */
  readonly staticIps?: boolean;
  /**
   * NAT gateways of the VPC the construct creates: one per Availability Zone used, each with its
   * own Elastic IP (so this many addresses). 1 is cheaper, but the delivery function then runs in
   * one zone, and stops delivering while that zone is down. More than 2 needs a stack with an
   * account and region (`env`): an environment-agnostic stack knows two zones only. A fresh
   * account may hold 5 Elastic IPs a region.
   * @default 2
   */
  readonly natGateways?: number;
  /**
   * An existing VPC to put the delivery function in instead of a new one: its
   * `PRIVATE_WITH_EGRESS` subnets (synthesis fails when it has none). Nothing is created in it
   * but the function's security group; the addresses requests leave from are then its NAT's,
   * shown only when given in `addresses`.
   * @default a new VPC when `staticIps` is true
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The public addresses requests leave from through `vpc` (its NAT gateways' Elastic IPs), to
   * output and show (`GET /admin/egress`, `gridwire status --api`). Only with `vpc`: the construct's
   * own VPC shows its Elastic IPs.
   * @default none shown
   */
  readonly addresses?: readonly string[];
  /**
   * Interface endpoints (SQS, Secrets Manager) in the construct's VPC, so the delivery function's
   * calls to them skip the NAT gateways. They bill by the hour in each zone and by the GB, and
   * only pay for themselves from several hundred GB a month of such calls (docs/cost.md, "Static
   * egress addresses"), far beyond what a delivery function sends; S3 and DynamoDB always have
   * gateway endpoints, which are free.
   * @default false
   */
  readonly interfaceEndpoints?: boolean;
  /**
   * An HTTP proxy every request to an endpoint goes through: `http://[user:pass@]host:port`
   * (a CONNECT tunnel per connection; the SSRF guard still checks the endpoint itself). Given to
   * the delivery function as `ENV.egressProxyUrl`; checked at synthesis.
   * @default none: requests go direct
   */
  readonly proxyUrl?: string;
}

/** The portal's look (`portalBranding`); each field optional. */
export interface PortalBrandingProps {
  /** The page's title and heading: 1 to 80 characters. */
  readonly title?: string;
  /**
   * An https URL of a logo image shown beside the title (at most 2048 characters); the page's
   * CSP lets images load from its origin.
   */
  readonly logoUrl?: string;
  /** The accent colour of buttons and links, as `#rrggbb`. */
  readonly accentColor?: string;
}
