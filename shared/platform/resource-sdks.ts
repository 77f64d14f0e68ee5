/**
 * The SDK packages of AWS resource destinations beyond SQS (the stack's own queues load that one),
 * each loaded when a destination first needs it: a delivery function that never sends to a topic,
 * bus, function or stream, or through a role, starts without evaluating them. The bundle holds
 * them (`infra/function-bundle.ts`); a CommonJS package there runs on its first `require`.
 */
import type * as EventBridge from '@aws-sdk/client-eventbridge';
import type * as Kinesis from '@aws-sdk/client-kinesis';
import type * as Lambda from '@aws-sdk/client-lambda';
import type * as Sns from '@aws-sdk/client-sns';
import type * as CredentialProviders from '@aws-sdk/credential-providers';

/** What `make` makes, made on the first call and kept (a package loaded, a client made). */
export function madeOnce<T>(make: () => T): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= make();
    return loaded;
  };
}

export const resourceSdks = {
  sns: madeOnce(() => require('@aws-sdk/client-sns') as typeof Sns),
  eventBridge: madeOnce(() => require('@aws-sdk/client-eventbridge') as typeof EventBridge),
  lambda: madeOnce(() => require('@aws-sdk/client-lambda') as typeof Lambda),
  kinesis: madeOnce(() => require('@aws-sdk/client-kinesis') as typeof Kinesis),
  credentials: madeOnce(() => require('@aws-sdk/credential-providers') as typeof CredentialProviders),
};
