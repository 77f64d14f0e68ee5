/**
 * The dead-letter buckets a function reaches: the stack's own and those subscriptions name. On
 * AWS a named bucket is reached with the function's credentials or a role it assumes; the local
 * stack's are buckets of its own S3 emulator (no IAM: a role is kept but not assumed). A bucket
 * the deployer's list (`deadLetterBuckets`) no longer allows is refused here too, by the rule the
 * management API checks it with, before any request: its writes fail, wait and are retried like a
 * bucket that refuses.
 */
import { ENV } from '../../config/resources';
import { requireSetting } from '../../config/runtime';
import { deadLetterBucketRefusal } from '../../delivery/rules/resource-destinations';
import { namedBucketS3Client } from '../../platform/aws';
import { DeadLetterBucket } from '../../storage/dead-letter-bucket';
import { type NamedBucketRef, NamedDeadLetterBuckets } from '../../storage/dead-letter-buckets';
import type { Runtime } from './runtime';

/** The stack's bucket and a way to every bucket the allow-list lets subscriptions name. */
export function deadLetterBucketsOf(runtime: Runtime): {
  own: DeadLetterBucket;
  named: (ref: NamedBucketRef) => DeadLetterBucket;
} {
  // The local stack brings its emulator's clients; its named buckets are the emulator's too.
  const local = runtime.clients.resources !== undefined;
  const named = new NamedDeadLetterBuckets(local ? () => runtime.clients.s3 : namedBucketS3Client);
  const allowList = runtime.config.deadLetterBuckets;
  return {
    own: new DeadLetterBucket(
      runtime.clients.s3,
      requireSetting(runtime.config.deadLetterBucket, ENV.deadLetterBucket),
    ),
    named: (ref) => {
      if (deadLetterBucketRefusal(allowList, ref) !== undefined) {
        throw Object.assign(
          new Error(
            `the dead-letter bucket ${ref.bucket}${ref.roleArn === undefined ? '' : ` with the role ${ref.roleArn}`} is not on this stack's list (${ENV.deadLetterBuckets})`,
          ),
          { name: 'AccessDenied' },
        );
      }
      return named.of(ref);
    },
  };
}
