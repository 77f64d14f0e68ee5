/**
 * The S3 buckets subscriptions may have their dead letters written to beside the stack's own
 * (`deadLetterDestination.properties.resourceId` = `arn:aws:s3:::<bucket>`): the `deadLetterBuckets`
 * prop's entries and the buckets declared subscriptions name, checked at synthesis, granted to the
 * dead-letter function (writes blobs) and the management function (lists, reads and marks them),
 * and given to both as `ENV.deadLetterBuckets`, the allow-list they check a subscription's bucket
 * against (`allowListEntryOf`, `arnPatternMatches`).
 */
import { Aws, Lazy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { ENV } from '../../shared/config/resources';
import {
  allowListEntryOf,
  arnSegmentsProblem,
  PAIR_SEPARATOR,
} from '../../shared/delivery/rules/resource-destinations';
import type { PipelineFunction } from '../pipeline-function';

/**
 * A bucket and the role of another account that writes dead letters to it, allowed together only:
 * a subscription naming the bucket must name the role (`roleArn`), which the stack assumes to
 * write there (the environment holds it as `arn:aws:s3:::<bucket>|<role>`).
 */
export interface DeadLetterBucketPair {
  /** The bucket's name (a `*` stands for any run of characters of it), its ARN, or the bucket. */
  readonly bucket: string | s3.IBucket;
  /** The ARN of the IAM role to assume (a `*` stands for any run of characters within one segment). */
  readonly role: string;
}

/** An entry of the `deadLetterBuckets` prop. */
export type DeadLetterBucketEntry = string | s3.IBucket | DeadLetterBucketPair;

/** An entry checked: what the environment holds and what is granted. */
export interface DeadLetterBucketAllowance {
  /** As the environment holds it: `arn:aws:s3:::<name>`, or `arn:aws:s3:::<name>|<role>`. */
  readonly entry: string;
  /** The bucket's name or name pattern; a token for a bucket the template names. */
  readonly name: string;
  /** The bucket, when given as one: its own ARN and KMS key are granted. */
  readonly bucket?: s3.IBucket;
  /** The role a pair's bucket is written through: only `sts:AssumeRole` on it is granted. */
  readonly role?: string;
}

/** The functions that reach dead-letter buckets. */
export interface DeadLetterBucketFunctions {
  /** Writes dead-letter blobs. */
  readonly deadLetter: PipelineFunction;
  /** Lists and reads dead letters, and reads and writes their replay markers. */
  readonly management: PipelineFunction;
}

/** An S3 bucket's ARN, of any partition: its name (or name pattern) is the first group. */
const BUCKET_ARN = /^arn:(?:aws|aws-cn|aws-us-gov):s3:::(.*)$/;

/** What the environment's entries begin with (the form subscriptions name a bucket by). */
export const BUCKET_ARN_PREFIX = 'arn:aws:s3:::';

/** An IAM role's ARN, a `*` allowed within a pattern's segments. */
const ROLE_ARN = /^arn:(?:aws|aws-cn|aws-us-gov):iam::(?:\d{12}|\*):role\/[\w+=,.@/*-]+$/;

const BUCKET_RULE =
  "must be an S3 bucket's name or ARN (arn:aws:s3:::<name>): 3 to 63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit";
const PATTERN_NOTE = ' (a * stands for any run of characters of a name)';

/**
 * Why `name` (a bucket's name, with `*`s when `patterns`) can't be allowed, or `undefined`:
 * S3's naming rule, no `,` (the environment's separator), and not `*` alone (every bucket).
 */
export function bucketNameProblem(name: string, patterns: boolean): string | undefined {
  if (name.includes(',')) return "must not hold a ',' (the environment's separator).";
  if (!patterns && name.includes('*')) return `${BUCKET_RULE}; it names one bucket, no *.`;
  if (patterns && /^\**$/.test(name) && name !== '') {
    return 'must name a bucket or a pattern of names, not * alone (every bucket of every account).';
  }
  const literal = name.replace(/\*/g, '');
  const wellFormed =
    /^[a-z0-9.*-]+$/.test(name) &&
    /^[a-z0-9*]/.test(name) &&
    /[a-z0-9*]$/.test(name) &&
    literal.length <= 63 &&
    (name.includes('*') || literal.length >= 3) &&
    !name.includes('..');
  return wellFormed ? undefined : `${BUCKET_RULE}${patterns ? PATTERN_NOTE : ''}.`;
}

/** Why `role` is not the ARN of an IAM role to assume (a pattern when `patterns`), or `undefined`. */
export function roleArnProblem(role: string, patterns: boolean): string | undefined {
  if (Token.isUnresolved(role)) return undefined;
  const rule = `must pair the bucket with the ARN of an IAM role to assume, such as arn:aws:iam::123456789012:role/gridwire-dead-letters${patterns ? ' (a * stands for any run of characters within one segment)' : ''}.`;
  if (!ROLE_ARN.test(role) || (!patterns && role.includes('*'))) return rule;
  if (role.includes(',')) return "must not hold a ',' (the environment's separator).";
  const segments = arnSegmentsProblem(role);
  return segments === undefined ? undefined : `${segments}.`;
}

/** The bucket name (or pattern) a string names: itself, or an S3 ARN's resource. */
function nameOf(text: string): string | { problem: string } {
  if (!text.startsWith('arn:')) return text;
  const match = BUCKET_ARN.exec(text);
  return match === null
    ? { problem: `${BUCKET_RULE}, not the ARN of another service or of an object.` }
    : (match[1] as string);
}

const isPair = (entry: DeadLetterBucketEntry): entry is DeadLetterBucketPair =>
  typeof entry === 'object' && 'role' in entry && 'bucket' in entry;

/** How an entry is named in an error: as given, a bucket by its construct path. */
const describe = (bucket: string | s3.IBucket, role?: string): string =>
  `${typeof bucket === 'string' ? bucket : bucket.node.path}${role === undefined ? '' : `${PAIR_SEPARATOR}${role}`}`;

/**
 * An entry checked (throwing an Error naming `prop`, the entry and the rule), as the environment
 * holds it and as it is granted. `patterns`: whether `*` may stand for parts of names (the prop),
 * or the entry names one bucket and one role (a declared subscription).
 */
export function deadLetterBucketOf(
  entry: DeadLetterBucketEntry,
  prop: string,
  patterns = true,
): DeadLetterBucketAllowance {
  let bucket: string | s3.IBucket;
  let role: string | undefined;
  if (typeof entry === 'string') {
    const parts = allowListEntryOf(entry);
    bucket = parts.pattern;
    role = parts.role;
  } else if (isPair(entry)) {
    bucket = entry.bucket;
    role = entry.role;
  } else {
    bucket = entry;
  }
  const fail = (problem: string): never => {
    throw new Error(`${prop}: '${describe(bucket, role)}' ${problem}`);
  };
  const name = typeof bucket === 'string' ? nameOf(bucket) : (bucket as s3.IBucket).bucketName;
  if (typeof name !== 'string') return fail(name.problem);
  if (!Token.isUnresolved(name)) {
    const problem = bucketNameProblem(name, patterns);
    if (problem !== undefined) fail(problem);
  }
  if (role !== undefined) {
    const problem = roleArnProblem(role, patterns);
    if (problem !== undefined) fail(problem);
  }
  return {
    entry: `${BUCKET_ARN_PREFIX}${name}${role === undefined ? '' : `${PAIR_SEPARATOR}${role}`}`,
    name,
    ...(typeof bucket === 'string' ? {} : { bucket }),
    ...(role === undefined ? {} : { role }),
  };
}

const OBJECTS_REASON =
  "Dead-letter object keys are made at run time (container, topic, subscription, time); the grant covers objects of the buckets the deployer allowed (deadLetterBuckets, or a declared subscription's deadLetter), with only the object actions named.";
const PATTERN_REASON =
  "The deployer's deadLetterBuckets pattern: subscriptions may have their dead letters written to the buckets it names, and only those.";

/**
 * Grants what reaching the allowed buckets takes: to the dead-letter function `s3:PutObject` on
 * `<bucket>/*`; to the management function `s3:ListBucket` on the bucket and `s3:GetObject` and
 * `s3:PutObject` on `<bucket>/*`; for a bucket given as one, its KMS key too (encrypt, and
 * decrypt for management). A pair grants both `sts:AssumeRole` on its role and nothing on its
 * bucket (the role writes). The grants of a pattern are IAM's (`*` crossing nothing a bucket's
 * name holds), the same buckets the functions' check allows.
 */
export function grantDeadLetterBuckets(
  functions: DeadLetterBucketFunctions,
  allowances: readonly DeadLetterBucketAllowance[],
): void {
  const { deadLetter, management } = functions;
  const roles = [...new Set(allowances.flatMap((allowance) => allowance.role ?? []))];
  if (roles.length > 0) {
    for (const fn of [deadLetter, management]) {
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: roles }));
      acknowledge(
        fn,
        roles.filter((role) => role.includes('*')),
        PATTERN_REASON,
      );
    }
  }
  for (const allowance of allowances) {
    if (allowance.role !== undefined) continue;
    const { bucket } = allowance;
    const bucketArn = bucket?.bucketArn ?? `arn:${Aws.PARTITION}:s3:::${allowance.name}`;
    const objects = bucket?.arnForObjects('*') ?? `${bucketArn}/*`;
    deadLetter.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    management.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn] }),
    );
    management.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [objects] }),
    );
    if (bucket?.encryptionKey !== undefined) {
      bucket.encryptionKey.grantEncrypt(deadLetter);
      bucket.encryptionKey.grantEncryptDecrypt(management);
      for (const fn of [deadLetter, management]) {
        Validations.of(fn.executionRole).acknowledge(
          ...['kms:ReEncrypt*', 'kms:GenerateDataKey*'].map((action) => ({
            id: `AwsSolutions-IAM5[Action::${action}]`,
            reason:
              "The KMS key of a dead-letter bucket the deployer allowed, granted by the key's own grant: writing S3 objects under it takes a data key; the actions are on this key only.",
          })),
        );
      }
    }
    const pattern = allowance.name.includes('*');
    acknowledge(deadLetter, [objects], pattern ? PATTERN_REASON : OBJECTS_REASON);
    acknowledge(
      management,
      pattern ? [objects, bucketArn] : [objects],
      pattern ? PATTERN_REASON : OBJECTS_REASON,
    );
  }
}

/** Acknowledges cdk-nag's wildcard finding for each resource, named as cdk-nag names it. */
function acknowledge(fn: PipelineFunction, resources: readonly string[], reason: string): void {
  if (resources.length === 0) return;
  Validations.of(fn.executionRole).acknowledge(
    ...resources.map((resource) => ({
      id: `AwsSolutions-IAM5[Resource::${nagResourceOf(fn, resource)}]`,
      reason,
    })),
  );
}

/**
 * A resource as cdk-nag's findings name it: resolved, a `Ref` as `<id>`, an attribute as
 * `<id.Attribute>`, joins joined.
 */
function nagResourceOf(scope: IConstruct, resource: string): string {
  const visit = (node: unknown): string => {
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    const object = (node ?? {}) as Record<string, unknown>;
    if (Array.isArray(object['Fn::Join'])) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(visit).join(separator);
    }
    if (Array.isArray(object['Fn::GetAtt'])) {
      const [id, attribute] = object['Fn::GetAtt'] as [unknown, unknown];
      return `<${visit(id)}.${visit(attribute)}>`;
    }
    if (object.Ref !== undefined) return `<${visit(object.Ref)}>`;
    return JSON.stringify(node);
  };
  return visit(Stack.of(scope).resolve(resource));
}

/**
 * The allow-list of a pipeline's dead-letter buckets: each entry checked and granted when it is
 * added (the prop's, then each declared subscription's), and the list given to the dead-letter
 * and management functions as `ENV.deadLetterBuckets` from the first entry on, so a pipeline
 * without any keeps its functions' environment as it was.
 */
export class DeadLetterBucketAllowList {
  private readonly entries: string[] = [];

  constructor(private readonly functions: DeadLetterBucketFunctions) {}

  /** Checks, grants and lists `entries` (errors name `prop`); `patterns` as in {@link deadLetterBucketOf}. */
  allow(
    entries: readonly DeadLetterBucketEntry[],
    prop: string,
    patterns = true,
  ): DeadLetterBucketAllowance[] {
    // All checked before anything is granted.
    const allowances = entries.map((entry) => deadLetterBucketOf(entry, prop, patterns));
    // A bucket already allowed (by the prop or another declared subscription) is granted once.
    const added = allowances.filter(
      (allowance, index) =>
        !this.entries.includes(allowance.entry) &&
        allowances.findIndex((other) => other.entry === allowance.entry) === index,
    );
    if (added.length === 0) return allowances;
    grantDeadLetterBuckets(this.functions, added);
    if (this.entries.length === 0) {
      const list = Lazy.string({ produce: () => this.entries.join(',') });
      this.functions.deadLetter.addEnvironment(ENV.deadLetterBuckets, list);
      this.functions.management.addEnvironment(ENV.deadLetterBuckets, list);
    }
    this.entries.push(...added.map((allowance) => allowance.entry));
    return allowances;
  }
}
