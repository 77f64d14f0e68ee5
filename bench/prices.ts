/**
 * AWS list prices used by the cost model: us-east-1, on-demand, without free tiers.
 * Taken from the public pricing pages of each service on 2026-11-22; they are list prices and
 * change over time. Volume discounts (SQS and Lambda tiers) are left out, which overstates cost
 * at very high volume. The original service's price per operation is here for comparison.
 */
export const PRICES = {
  source: 'aws.amazon.com/{lambda,sqs,dynamodb,s3,api-gateway}/pricing, us-east-1 list prices',
  takenOn: '2026-11-22',
  lambda: {
    /** Arm, per request. */
    perRequest: 0.2 / 1_000_000,
    /** Arm, per GB-second of billed duration (1 ms granularity). */
    perGbSecond: 0.000_013_333_4,
  },
  sqs: {
    /** Standard queue; each 64 KiB chunk of a request's payload is billed as one request. */
    perRequest: 0.4 / 1_000_000,
    chunkBytes: 64 * 1024,
  },
  dynamodb: {
    /** On-demand write request unit (up to 1 KB per unit). */
    perWriteUnit: 0.625 / 1_000_000,
    /** On-demand read request unit (up to 4 KB strongly consistent; eventually consistent is half). */
    perReadUnit: 0.125 / 1_000_000,
  },
  s3: {
    perPut: 0.005 / 1000,
    perGet: 0.0004 / 1000,
  },
  httpApi: {
    /** HTTP API, first 300 million requests a month (each 512 KB counts as a request). */
    perRequest: 1.0 / 1_000_000,
  },
  /**
   * For comparison, the original service (Azure Event Grid, basic tier): every operation (a
   * published event, each delivery attempt) is billed, after the first 100,000 a month.
   */
  eventGrid: {
    source: 'azure.microsoft.com/pricing/details/event-grid, basic tier',
    perOperation: 0.6 / 1_000_000,
  },
} as const;
