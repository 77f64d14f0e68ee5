/**
 * The cost model: AWS usage measured in a run, priced per million delivered events.
 */
import { FUNCTIONS, type FunctionKey } from '../shared/config/resources';
import { PRICES } from './prices';

export interface LambdaUsage {
  invocations: number;
  /** Sum over invocations of ceil(duration ms) x memory GB / 1000. */
  gbSeconds: number;
}

export interface Usage {
  /** Events the cost is spread over (delivered events). */
  events: number;
  httpRequests: number;
  lambda: Record<FunctionKey, LambdaUsage>;
  sqsBilledRequests: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  s3Puts: number;
  s3Gets: number;
}

export interface CostBreakdown {
  httpApi: number;
  lambdaRequests: number;
  lambdaDuration: number;
  sqs: number;
  dynamodb: number;
  s3: number;
  total: number;
}

/** Billed GB-seconds of one invocation: duration rounded up to 1 ms, at the function's memory. */
export const billedGbSeconds = (fn: FunctionKey, durationMs: number): number =>
  (Math.max(1, Math.ceil(durationMs)) / 1000) * (FUNCTIONS[fn].memoryMb / 1024);

export const emptyLambdaUsage = (): Record<FunctionKey, LambdaUsage> => ({
  publish: { invocations: 0, gbSeconds: 0 },
  management: { invocations: 0, gbSeconds: 0 },
  delivery: { invocations: 0, gbSeconds: 0 },
  deadLetter: { invocations: 0, gbSeconds: 0 },
});

/** Dollars per million events for the measured usage. */
export function costPerMillionEvents(usage: Usage): CostBreakdown {
  if (usage.events <= 0) throw new RangeError('usage must cover at least one event');
  const scale = 1_000_000 / usage.events;
  const lambdas = Object.values(usage.lambda);
  const breakdown = {
    httpApi: usage.httpRequests * PRICES.httpApi.perRequest * scale,
    lambdaRequests: lambdas.reduce((n, l) => n + l.invocations, 0) * PRICES.lambda.perRequest * scale,
    lambdaDuration: lambdas.reduce((n, l) => n + l.gbSeconds, 0) * PRICES.lambda.perGbSecond * scale,
    sqs: usage.sqsBilledRequests * PRICES.sqs.perRequest * scale,
    dynamodb:
      (usage.dynamoWriteUnits * PRICES.dynamodb.perWriteUnit +
        usage.dynamoReadUnits * PRICES.dynamodb.perReadUnit) *
      scale,
    s3: (usage.s3Puts * PRICES.s3.perPut + usage.s3Gets * PRICES.s3.perGet) * scale,
  };
  const total = Object.values(breakdown).reduce((n, v) => n + v, 0);
  return { ...breakdown, total };
}
