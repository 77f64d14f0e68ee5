/**
 * AWS resource destinations, as pure rules: the endpoint types, each one's ARN form and what it
 * names, the service's size and batch limits, and whether a deployer's allow-list lets a stack
 * deliver to an ARN. Events are delivered as the service's own messages (`resource-sender.ts`).
 */
import type { ResourceEndpointType } from '../../domain/model';

/** What a resource ARN names. */
export interface ResourceRef {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** The queue, topic, bus, function or stream name (a function's qualifier apart). */
  readonly name: string;
  /** A FIFO queue or topic (`.fifo`): every message needs a group id and a deduplication id. */
  readonly fifo: boolean;
}

/** Each type's ARN: service, and the resource part as a pattern whose first group is the name. */
const ARN_FORMS: Readonly<
  Record<ResourceEndpointType, { service: string; resource: RegExp; example: string }>
> = {
  AwsSqsQueue: {
    service: 'sqs',
    resource: /^([A-Za-z0-9_-]{1,75}(?:\.fifo)?|[A-Za-z0-9_-]{1,80})$/,
    example: 'arn:aws:sqs:us-east-1:123456789012:orders',
  },
  AwsSnsTopic: {
    service: 'sns',
    resource: /^([A-Za-z0-9_-]{1,251}(?:\.fifo)?|[A-Za-z0-9_-]{1,256})$/,
    example: 'arn:aws:sns:us-east-1:123456789012:orders',
  },
  AwsEventBridgeBus: {
    service: 'events',
    resource: /^event-bus\/([A-Za-z0-9._\-/]{1,256})$/,
    example: 'arn:aws:events:us-east-1:123456789012:event-bus/orders',
  },
  AwsLambdaFunction: {
    service: 'lambda',
    resource: /^function:([A-Za-z0-9_-]{1,64})(?::[A-Za-z0-9$_-]{1,128})?$/,
    example: 'arn:aws:lambda:us-east-1:123456789012:function:orders',
  },
  AwsKinesisStream: {
    service: 'kinesis',
    resource: /^stream\/([A-Za-z0-9_.-]{1,128})$/,
    example: 'arn:aws:kinesis:us-east-1:123456789012:stream/orders',
  },
};

/** The service an ARN (or an ARN pattern) names: `sqs` of `arn:aws:sqs:...`. */
export const arnServiceOf = (arn: string): string | undefined => /^arn:[^:]+:([^:]+):/.exec(arn)?.[1];

/** The resource type an ARN names by its service (`arn:aws:sqs:...`: `AwsSqsQueue`), if a known one. */
export function resourceTypeOfArn(arn: string): ResourceEndpointType | undefined {
  const service = arnServiceOf(arn);
  const found = Object.entries(ARN_FORMS).find(([, form]) => form.service === service);
  return found?.[0] as ResourceEndpointType | undefined;
}

const ARN = /^arn:(aws|aws-cn|aws-us-gov):([a-z0-9-]+):([a-z]{2}(?:-[a-z]+)+-\d{1,2}):(\d{12}):(.+)$/;

/** What `arn` names for `type`, or why it is not such an ARN (a sentence naming an example). */
export function parseResourceArn(type: ResourceEndpointType, arn: string): ResourceRef | { problem: string } {
  const form = ARN_FORMS[type];
  const match = ARN.exec(arn);
  const problem = { problem: `must be the ARN of the ${form.service} resource, such as ${form.example}` };
  if (match === null) return problem;
  const [, partition, service, region, account, resource] = match as unknown as string[];
  if (service !== form.service) return problem;
  const named = form.resource.exec(resource as string);
  if (named === null) return problem;
  const name = named[1] as string;
  return {
    partition: partition as string,
    region: region as string,
    account: account as string,
    name,
    fifo: (type === 'AwsSqsQueue' || type === 'AwsSnsTopic') && name.endsWith('.fifo'),
  };
}

/** A service's limits on what one send carries: messages (entries) and bytes. */
export interface ResourceLimits {
  /** Bytes of one message, body and attributes. */
  readonly messageBytes: number;
  /** Messages (entries, records) one call carries. */
  readonly batchEntries: number;
  /** Bytes of one call's messages together. */
  readonly batchBytes: number;
}

/** The limits of the services as documented by AWS (SQS since August 2025: 1 MiB). */
export const RESOURCE_LIMITS: Readonly<Record<ResourceEndpointType, ResourceLimits>> = {
  AwsSqsQueue: { messageBytes: 1_048_576, batchEntries: 10, batchBytes: 1_048_576 },
  AwsSnsTopic: { messageBytes: 262_144, batchEntries: 10, batchBytes: 262_144 },
  AwsEventBridgeBus: { messageBytes: 262_144, batchEntries: 10, batchBytes: 262_144 },
  AwsLambdaFunction: { messageBytes: 262_144, batchEntries: 5000, batchBytes: 262_144 },
  AwsKinesisStream: { messageBytes: 1_048_576, batchEntries: 500, batchBytes: 5_242_880 },
};

/**
 * What one call to the destination may carry: the service's limits, and for a Lambda function
 * the subscription's batch (`maxEventsPerBatch` events an invocation; a synchronous invocation
 * takes 6 MB). Queues, topics, buses and streams take one event per message, many a call.
 */
export function resourceLimitsOf(
  destination: { readonly endpointType: ResourceEndpointType; readonly invocationType?: string | undefined },
  maxEventsPerBatch: number,
): ResourceLimits {
  const limits = RESOURCE_LIMITS[destination.endpointType];
  if (destination.endpointType !== 'AwsLambdaFunction') return limits;
  const bytes =
    destination.invocationType === 'RequestResponse' ? LAMBDA_SYNC_PAYLOAD_BYTES : limits.batchBytes;
  return { messageBytes: bytes, batchEntries: Math.max(1, maxEventsPerBatch), batchBytes: bytes };
}

/** A synchronous Lambda invocation's payload, at most. */
export const LAMBDA_SYNC_PAYLOAD_BYTES = 6_291_456;

/** Custom delivery attributes a message may carry (SQS and SNS take at most 10 message attributes). */
export const MAX_MESSAGE_ATTRIBUTES = 10;

/** Bytes a message counts against its service's limit: its body and its attributes' names and values. */
export const messageBytesOf = (body: string, attributes: Readonly<Record<string, string>>): number =>
  Buffer.byteLength(body, 'utf8') +
  Object.entries(attributes).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8') + 'String'.length,
    0,
  );

/**
 * Cuts messages into the service's calls, in order: at most `batchEntries` and `batchBytes` each.
 * A message over `messageBytes` is not sent at all (`tooLarge`).
 */
export function cutResourceBatches<M extends { readonly bytes: number }>(
  messages: readonly M[],
  limits: ResourceLimits,
): { batches: M[][]; tooLarge: M[] } {
  const batches: M[][] = [];
  const tooLarge: M[] = [];
  let current: M[] = [];
  let bytes = 0;
  for (const message of messages) {
    if (message.bytes > limits.messageBytes) {
      tooLarge.push(message);
      continue;
    }
    if (
      current.length > 0 &&
      (current.length >= limits.batchEntries || bytes + message.bytes > limits.batchBytes)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += message.bytes;
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}

/**
 * What separates a resource pattern from the role pattern it is paired with in one allow-list
 * entry (`<resource>|<role>`: the environment's form of the prop's `{resource, role}`).
 */
export const PAIR_SEPARATOR = '|';

/**
 * Whether one ARN pattern names `arn`: matched field by field and segment by segment, a `*`
 * standing for any run of characters within one segment, never crossing a `:` or a `/`
 * (`role/gridwire-*` names `role/gridwire-sender`, not `role/gridwire-x/Admin`). A `*` alone in a
 * field (`arn:aws:sqs:*:123456789012:orders-*`) is any value of it; `*` alone for the whole
 * pattern is any ARN (the local stack's default). IAM's own `*` crosses both, so the grants the
 * same patterns become are wider than this check (see `allowResourceDestinations`).
 */
export function arnPatternMatches(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^:/]*');
  return new RegExp(`^${expression}$`).test(arn);
}

/** An allow-list entry apart: its resource (or role) pattern, and the role pattern it pairs with. */
export function allowListEntryOf(entry: string): { pattern: string; role?: string } {
  const at = entry.indexOf(PAIR_SEPARATOR);
  return at < 0 ? { pattern: entry } : { pattern: entry.slice(0, at), role: entry.slice(at + 1) };
}

/**
 * Whether a deployer's allow-list names `arn` on its own (an entry that is not a pair): each entry
 * an ARN pattern ({@link arnPatternMatches}).
 */
export const allowedByList = (arn: string, allowList: readonly string[]): boolean =>
  allowList.some((entry) => {
    const { pattern, role } = allowListEntryOf(entry);
    return role === undefined && arnPatternMatches(pattern, arn);
  });

/** Whether an entry of the list pairs `resourceArn` with `roleArn` (`<resource>|<role>`). */
export const pairedByList = (resourceArn: string, roleArn: string, allowList: readonly string[]): boolean =>
  allowList.some((entry) => {
    const { pattern, role } = allowListEntryOf(entry);
    return role !== undefined && arnPatternMatches(pattern, resourceArn) && arnPatternMatches(role, roleArn);
  });

/** The account an ARN names (its fifth field), if any. */
export const accountOfArn = (arn: string): string | undefined => arn.split(':')[4];

/**
 * Why a deployer's allow-list does not let a destination be sent to, or `undefined` when it
 * does: the resource not on it (`resourceArn`), the role not on it (`roleArn`), or the role in
 * another account than the resource (`roleAccount`). A role to assume lives in the resource's
 * account (that account's owner lets the stack send there); a role of one account with a
 * resource of another would let whoever can name both combine two grants meant apart, so that
 * takes an entry pairing them. A paired entry allows that resource with that role only.
 */
export function destinationRefusal(
  allowList: readonly string[],
  resourceArn: string,
  roleArn: string | undefined,
): 'resourceArn' | 'roleArn' | 'roleAccount' | undefined {
  if (roleArn !== undefined && pairedByList(resourceArn, roleArn, allowList)) return undefined;
  if (!allowedByList(resourceArn, allowList)) {
    const paired = allowList.some((entry) => {
      const { pattern, role } = allowListEntryOf(entry);
      return role !== undefined && arnPatternMatches(pattern, resourceArn);
    });
    return paired && roleArn !== undefined ? 'roleArn' : 'resourceArn';
  }
  if (roleArn === undefined) return undefined;
  if (!allowedByList(roleArn, allowList)) return 'roleArn';
  return accountOfArn(roleArn) === accountOfArn(resourceArn) ? undefined : 'roleAccount';
}

/** An S3 bucket's ARN as the deployer's list of dead-letter buckets names it. */
export const bucketArnOf = (bucket: string): string => `arn:aws:s3:::${bucket}`;

/**
 * Why the deployer's list of dead-letter buckets does not let dead letters be written to
 * `bucket` (reached with `roleArn`, if any), or `undefined` when it does: the rules of
 * {@link destinationRefusal}, on the bucket's ARN. An S3 ARN names no account, so a role always
 * takes an entry pairing it with the bucket.
 */
export const deadLetterBucketRefusal = (
  allowList: readonly string[],
  ref: { bucket: string; roleArn?: string },
): 'resourceArn' | 'roleArn' | 'roleAccount' | undefined =>
  destinationRefusal(allowList, bucketArnOf(ref.bucket), ref.roleArn);

/**
 * Why a given ARN's resource part (after its fifth `:`) is not a plain path, or `undefined`: an
 * empty, `.` or `..` segment between its `/` and `:` separators (`role/a/../b`, `role//b`), which
 * no resource has and a pattern must never be read as naming.
 */
export function arnSegmentsProblem(arn: string): string | undefined {
  const resource = arn.split(':').slice(5).join(':');
  const bad = resource.split(/[:/]/).find((segment) => segment === '' || segment === '.' || segment === '..');
  return bad === undefined
    ? undefined
    : `must not have an empty, '.' or '..' segment between its '/' or ':' separators (${arn} has ${bad === '' ? 'an empty one' : `'${bad}'`})`;
}

/**
 * Custom delivery attributes that set a field of the service's message rather than being a message
 * attribute (as the seeds' queue and hub destinations take their system properties): each type's
 * field names, those only a FIFO queue or topic has, and whether other names become message
 * attributes (SQS and SNS) or have nowhere to go (refused when the subscription is written).
 */
export const MESSAGE_FIELDS: Readonly<
  Record<
    ResourceEndpointType,
    { readonly fields: readonly string[]; readonly fifoOnly: readonly string[]; readonly attributes: boolean }
  >
> = {
  AwsSqsQueue: {
    fields: ['MessageGroupId', 'MessageDeduplicationId'],
    fifoOnly: ['MessageGroupId', 'MessageDeduplicationId'],
    attributes: true,
  },
  AwsSnsTopic: {
    fields: ['Subject', 'MessageGroupId', 'MessageDeduplicationId'],
    fifoOnly: ['MessageGroupId', 'MessageDeduplicationId'],
    attributes: true,
  },
  AwsEventBridgeBus: {
    fields: ['Source', 'DetailType', 'Resources', 'TraceHeader'],
    fifoOnly: [],
    attributes: false,
  },
  AwsLambdaFunction: { fields: [], fifoOnly: [], attributes: false },
  AwsKinesisStream: { fields: ['PartitionKey', 'ExplicitHashKey'], fifoOnly: [], attributes: false },
};

/** The field an attribute name sets on `type`'s messages (names match whatever their case), if any. */
export function messageFieldOf(type: ResourceEndpointType, name: string): string | undefined {
  const lower = name.toLowerCase();
  return MESSAGE_FIELDS[type].fields.find((field) => field.toLowerCase() === lower);
}

/**
 * Why a custom delivery attribute named `name` can't go to a destination of `type`, or `undefined`
 * when it can (a field of the message, or a message attribute).
 */
export function deliveryAttributeProblem(
  type: ResourceEndpointType,
  fifo: boolean,
  name: string,
): string | undefined {
  const rules = MESSAGE_FIELDS[type];
  const field = messageFieldOf(type, name);
  if (field !== undefined) {
    return rules.fifoOnly.includes(field) && !fifo
      ? `${field} sets a FIFO ${type === 'AwsSqsQueue' ? 'queue' : 'topic'}'s messages only (the ARN names one without .fifo)`
      : undefined;
  }
  if (rules.attributes) return undefined;
  return rules.fields.length === 0
    ? `${type} invocations carry no per-event fields or attributes; the events are the payload`
    : `${type} messages have no attributes; the names that set a field are ${rules.fields.join(', ')}`;
}

/**
 * A message's custom delivery attributes apart: those that set a field of the service's message
 * (by their canonical names) and those sent as message attributes.
 */
export function messageFieldsOf(
  type: ResourceEndpointType,
  attributes: Readonly<Record<string, string>>,
): { fields: Record<string, string>; attributes: Record<string, string> } {
  const fields: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const field = messageFieldOf(type, name);
    if (field !== undefined) fields[field] = value;
    else if (MESSAGE_FIELDS[type].attributes) rest[name] = value;
  }
  return { fields, attributes: rest };
}
