/**
 * AWS list prices used by the cost model: us-east-1, on-demand, without free tiers, in one place.
 * Taken from the public pricing pages of each service (`sources`) on 2026-11-25; they are list
 * prices and change over time. Volume discounts (SQS, Lambda, data transfer and log ingestion
 * tiers) are left out, which overstates cost at very high volume. The original service's price
 * per operation, and EventBridge's, are here for comparison.
 */
export const PRICES = {
  source:
    'aws.amazon.com/{lambda,sqs,dynamodb,s3,api-gateway,ec2,vpc,privatelink,cloudwatch,xray,secrets-manager,kms}/pricing, us-east-1 list prices',
  takenOn: '2026-11-25',
  /** The page each group of prices was read from. */
  sources: {
    lambda: 'https://aws.amazon.com/lambda/pricing/',
    httpApi: 'https://aws.amazon.com/api-gateway/pricing/',
    sqs: 'https://aws.amazon.com/sqs/pricing/',
    dynamodb: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    s3: 'https://aws.amazon.com/s3/pricing/',
    dataTransfer: 'https://aws.amazon.com/ec2/pricing/on-demand/ (Data Transfer)',
    natGateway: 'https://aws.amazon.com/vpc/pricing/ (NAT gateway, public IPv4 address)',
    privateLink: 'https://aws.amazon.com/privatelink/pricing/ (interface endpoints)',
    cloudWatch: 'https://aws.amazon.com/cloudwatch/pricing/',
    xray: 'https://aws.amazon.com/xray/pricing/',
    secretsManager: 'https://aws.amazon.com/secrets-manager/pricing/',
    kms: 'https://aws.amazon.com/kms/pricing/',
    eventBridge: 'https://aws.amazon.com/eventbridge/pricing/',
    eventGrid: 'https://azure.microsoft.com/pricing/details/event-grid/',
  },
  lambda: {
    /** Arm, per request. */
    perRequest: 0.2 / 1_000_000,
    /**
     * Arm, per GB-second of billed duration (1 ms granularity). The INIT phase of an on-demand
     * function on a managed runtime is billed as duration at the same rate.
     */
    perGbSecond: 0.000_013_333_4,
  },
  /** A Lambda function URL costs nothing beyond the function's own requests and duration. */
  functionUrl: { perRequest: 0 },
  sqs: {
    /** Standard queue; each 64 KiB chunk of a request's payload is billed as one request. */
    perRequest: 0.4 / 1_000_000,
    /**
     * FIFO queue (the ordered queue), per request, billed in the same 64 KiB chunks; high
     * throughput mode costs nothing more.
     */
    fifoPerRequest: 0.5 / 1_000_000,
    chunkBytes: 64 * 1024,
  },
  dynamodb: {
    /** On-demand write request unit (up to 1 KB per unit). */
    perWriteUnit: 0.625 / 1_000_000,
    /** On-demand read request unit (up to 4 KB strongly consistent; eventually consistent is half). */
    perReadUnit: 0.125 / 1_000_000,
    /**
     * Standard table class, data storage per GB-month (the first 25 GB a month are free, left
     * out); each item is stored with 100 bytes of overhead (`DYNAMO_STORAGE_OVERHEAD_BYTES`).
     */
    storagePerGbMonth: 0.25,
    /**
     * Continuous backups (point-in-time recovery, on for the stack's table), per GB-month of the
     * table's size.
     */
    pitrPerGbMonth: 0.2,
  },
  s3: {
    perPut: 0.005 / 1000,
    perGet: 0.0004 / 1000,
    /** DELETE requests are free. */
    perDelete: 0,
    /** S3 Standard, first 50 TB a month. */
    storagePerGbMonth: 0.023,
  },
  httpApi: {
    /** HTTP API, first 300 million requests a month (each 512 KB counts as a request). */
    perRequest: 1.0 / 1_000_000,
  },
  dataTransfer: {
    /**
     * Out from AWS to the internet, first 10 TB a month (the first 100 GB a month of the account
     * are free, left out). Webhook requests leave through the Lambda functions' network; the HTTP
     * API's answers to publishers are billed at the same rate. Data in is free.
     */
    outToInternetPerGb: 0.09,
  },
  /**
   * NAT gateway (the `egress` prop's static addresses): each gateway by the hour it exists, and
   * each GB it processes, either way, on top of data transfer out.
   */
  natGateway: {
    perHour: 0.045,
    perGbProcessed: 0.045,
  },
  /** Public IPv4 addresses, an Elastic IP of a NAT gateway included, by the hour (in use or not). */
  publicIpv4: {
    perAddressHour: 0.005,
  },
  /**
   * Interface VPC endpoints (`egress.interfaceEndpoints`): each endpoint by the hour in each zone
   * it is in, and each GB it processes (the first PB a month). Gateway endpoints (S3, DynamoDB)
   * cost nothing.
   */
  privateLink: {
    perEndpointZoneHour: 0.01,
    perGbProcessed: 0.01,
  },
  cloudWatch: {
    logs: {
      /** Standard log class, ingestion (application logs, Lambda platform records, access logs, EMF). */
      ingestionPerGb: 0.5,
      /** Archived storage, per GB-month (of the compressed size). */
      storagePerGbMonth: 0.03,
    },
    /** Custom metrics (every name and dimension set is one), first 10,000, per metric-month. */
    perMetricMonth: 0.3,
    /** Standard-resolution alarm, per alarm metric and month (a metric math alarm counts each metric). */
    perAlarmMonth: 0.1,
    /** Per dashboard and month (the account's first three are free, left out). */
    perDashboardMonth: 3,
  },
  xray: {
    /** Traces recorded. */
    perTraceRecorded: 5 / 1_000_000,
    /** Traces retrieved or scanned (by reading them: not in the bill, which counts what the stack does). */
    perTraceRetrieved: 0.5 / 1_000_000,
  },
  secretsManager: {
    perSecretMonth: 0.4,
    perApiCall: 0.05 / 10_000,
  },
  kms: {
    /** Customer-managed key, per month. AWS-owned and AWS-managed keys cost nothing a month. */
    perKeyMonth: 1,
    perRequest: 0.03 / 10_000,
  },
  /**
   * For comparison, the original service (Azure Event Grid, basic tier): every operation (a
   * published event, each delivery attempt) is billed, after the first 100,000 a month.
   */
  eventGrid: {
    source: 'azure.microsoft.com/pricing/details/event-grid, basic tier',
    perOperation: 0.6 / 1_000_000,
  },
  /**
   * For comparison, EventBridge with API destinations: each custom event published (per 64 KB
   * chunk) and each API destination invocation (one per event; API destinations do not batch).
   */
  eventBridge: {
    source: 'aws.amazon.com/eventbridge/pricing, custom events and API destinations',
    perCustomEvent: 1.0 / 1_000_000,
    customEventChunkBytes: 64 * 1024,
    perApiDestinationInvocation: 0.2 / 1_000_000,
  },
} as const;
