/**
 * A Lambda `Context` for handlers invoked by the local stack, with a real countdown to the
 * function's timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { FunctionDefinition, FunctionKey } from '../shared/config/resources';

/** One handler invocation in the local stack, as Lambda would bill it. */
export interface InvocationStats {
  function: FunctionKey;
  /** Queue URL or route key the invocation came from. */
  source: string;
  /** SQS records in the batch (1 for an HTTP request). */
  records: number;
  /** Records reported as failed (or all of them when the handler threw). */
  failed: number;
  durationMs: number;
}

export function lambdaContext(fn: FunctionDefinition, now: () => number = Date.now): Context {
  const deadline = now() + fn.timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `gridwire-local-${fn.id}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:gridwire-local-${fn.id}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/gridwire-local-${fn.id}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/**
 * `context` with its time left divided by `scale` from now on: the local stack's
 * `requestTimeScale` shrinks the delivery function's timeout with the request timings.
 */
export function shortenedContext(context: Context, scale: number, now: () => number = Date.now): Context {
  if (scale === 1) return context;
  const deadline = now() + context.getRemainingTimeInMillis() / scale;
  return { ...context, getRemainingTimeInMillis: () => Math.max(0, deadline - now()) };
}
