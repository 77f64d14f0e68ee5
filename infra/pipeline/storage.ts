import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ARCHIVE_BUCKET, BACKLOG_BUCKET, BUCKET, FAN_OUT_BUCKET, TABLE } from '../../shared/config/resources';

/** Where the pipeline keeps state: the table, the buckets and the sealing keys. */
export interface PipelineStorage {
  readonly table: dynamodb.TableV2;
  readonly deadLetterBucket: s3.IBucket;
  /** Server access logs of the dead-letter bucket; undefined when the bucket was given. */
  readonly deadLetterAccessLogsBucket?: s3.Bucket;
  readonly fanOutBucket: s3.Bucket;
  /** Segments of events kept in subscriptions' backlogs. */
  readonly backlogBucket: s3.Bucket;
  /** Topics' archives: segments of the events topics with `archive` accepted. */
  readonly archiveBucket: s3.Bucket;
  /** Seals secret delivery header values in the table. */
  readonly headerKeySecret: secretsmanager.Secret;
  /** Seals topic and namespace access keys in the table. */
  readonly topicKeySecret: secretsmanager.Secret;
  /** Signs console and portal session tokens; replaced to revoke every session. */
  readonly sessionKeySecret: secretsmanager.Secret;
}

export interface StorageOptions {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** A bucket of the caller's for dead letters; a new one when undefined. */
  readonly deadLetterBucket: s3.IBucket | undefined;
}

/** The table, the dead-letter, fan-out and backlog buckets, the two sealing keys and the session key. */
export function createStorage(scope: Construct, options: StorageOptions): PipelineStorage {
  const table = createTable(scope, options);
  const deadLetters =
    options.deadLetterBucket === undefined
      ? createDeadLetterBucket(scope, options.removalPolicy)
      : { deadLetterBucket: options.deadLetterBucket };
  return {
    table,
    ...deadLetters,
    fanOutBucket: createFanOutBucket(scope, options.removalPolicy),
    backlogBucket: createBacklogBucket(scope, options.removalPolicy),
    archiveBucket: createArchiveBucket(scope, options.removalPolicy),
    ...createSealingKeys(scope, options.removalPolicy),
    sessionKeySecret: createSessionKey(scope, options.removalPolicy),
  };
}

function createTable(scope: Construct, options: StorageOptions): dynamodb.TableV2 {
  return new dynamodb.TableV2(scope, TABLE.id, {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
    billing: dynamodb.Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: TABLE.ttlAttribute,
    deletionProtection: options.deletionProtection,
    globalSecondaryIndexes: [
      {
        indexName: TABLE.topicsIndex.name,
        partitionKey: { name: TABLE.topicsIndex.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: TABLE.topicsIndex.sortKey, type: dynamodb.AttributeType.STRING },
      },
    ],
    removalPolicy: options.removalPolicy,
  });
}

/** The dead-letter bucket and, beside it, its server access logs. */
function createDeadLetterBucket(
  scope: Construct,
  removalPolicy: RemovalPolicy,
): Pick<PipelineStorage, 'deadLetterBucket' | 'deadLetterAccessLogsBucket'> {
  // Who read or wrote which dead letter, kept for a year.
  const accessLogs = new s3.Bucket(scope, `${BUCKET.id}AccessLogs`, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ expiration: Duration.days(365) }],
    removalPolicy,
    autoDeleteObjects: false,
  });
  Validations.of(accessLogs).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'This is the access log bucket of the dead-letter bucket; logging it would log into itself.',
  });
  const deadLetterBucket = new s3.Bucket(scope, BUCKET.id, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: 'dead-letters/',
    removalPolicy,
    autoDeleteObjects: false,
  });
  return { deadLetterBucket, deadLetterAccessLogsBucket: accessLogs };
}

/**
 * A bucket of events in transit, written and read only by the pipeline functions, whose objects
 * expire after `retentionDays` whatever happens to them: the dead-letter bucket is where events
 * are kept for operators. Its access is recorded by the functions' logs, the attempt history and
 * the delivery metrics, so it keeps no access logs of its own (`reason` says why for this one).
 */
function createTransitBucket(
  scope: Construct,
  definition: { id: string; retentionDays: number },
  removalPolicy: RemovalPolicy,
  reason: string,
): s3.Bucket {
  const bucket = new s3.Bucket(scope, definition.id, {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ expiration: Duration.days(definition.retentionDays) }],
    removalPolicy,
    autoDeleteObjects: false,
  });
  Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason });
  return bucket;
}

/** Publishes too large for one message, each kept at most `FAN_OUT_BUCKET.retentionDays` days. */
const createFanOutBucket = (scope: Construct, removalPolicy: RemovalPolicy): s3.Bucket =>
  createTransitBucket(
    scope,
    FAN_OUT_BUCKET,
    removalPolicy,
    'The bucket holds events in transit for a few days, written and read only by the pipeline functions; their logs and the delivery metrics record each publish and delivery.',
  );

/**
 * Events held while their endpoint is sick or their next attempt is far away, indexed in the
 * table; a segment is deleted once its events are done. The expiry is a last resort for objects
 * no index item names (a store step that failed between its two writes), longer than the longest
 * time to live, so it never removes a segment still in use.
 */
const createBacklogBucket = (scope: Construct, removalPolicy: RemovalPolicy): s3.Bucket =>
  createTransitBucket(
    scope,
    BACKLOG_BUCKET,
    removalPolicy,
    'The bucket holds events in transit until they are delivered or end, written and read only by the delivery function; its logs, the attempt history and the delivery metrics record what happens to each event.',
  );

/**
 * Topics' archives: segments written by the dead-letter function, read by replays, removed by the
 * daily archive sweep once older than their topic's retention; the expiry removes whatever is
 * older than the longest retention (a topic deleted, a sweep that never came).
 */
const createArchiveBucket = (scope: Construct, removalPolicy: RemovalPolicy): s3.Bucket =>
  createTransitBucket(
    scope,
    ARCHIVE_BUCKET,
    removalPolicy,
    'The bucket holds copies of published events for replays, written by the dead-letter function and read by the management function only; the publish metrics and logs record each publish, the archive metrics each segment written.',
  );

/** The keys that seal values stored in the table, kept or removed with it. */
function createSealingKeys(
  scope: Construct,
  removalPolicy: RemovalPolicy,
): Pick<PipelineStorage, 'headerKeySecret' | 'topicKeySecret'> {
  const headerKeySecret = new secretsmanager.Secret(scope, 'HeaderKey', {
    description: 'Gridwire: the key that seals secret delivery header values stored in the table',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy,
  });
  const topicKeySecret = new secretsmanager.Secret(scope, 'TopicKey', {
    description: 'Gridwire: the key that seals topic and namespace access keys stored in the table',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy,
  });
  for (const secret of [headerKeySecret, topicKeySecret]) {
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key seals values stored in the table; a rotation would leave every stored value unreadable until re-sealed, and Gridwire has no re-sealing rotation yet.',
    });
  }
  return { headerKeySecret, topicKeySecret };
}

/**
 * The key that signs console and portal session tokens (`POST /admin/sessions`). Only the
 * management function reads it, and it alone replaces it (`POST /admin/sessions/revokeAll`):
 * every token signed with the old key is refused once each instance's copy is a minute old.
 */
function createSessionKey(scope: Construct, removalPolicy: RemovalPolicy): secretsmanager.Secret {
  const sessionKeySecret = new secretsmanager.Secret(scope, 'SessionKey', {
    description: 'Gridwire: the key that signs console and portal session tokens',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy,
  });
  Validations.of(sessionKeySecret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Gridwire rotates this key itself: POST /admin/sessions/revokeAll replaces it (PutSecretValue by the management function), revoking every session token; a rotation Lambda would revoke them on a schedule instead.',
  });
  return sessionKeySecret;
}
