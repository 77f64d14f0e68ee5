import { billedGbSeconds, costPerMillionEvents, emptyLambdaUsage, sqsRequestsCost } from '../../bench/cost';
import { PRICES } from '../../bench/prices';

describe('cost model', () => {
  it('bills Lambda duration rounded up to 1 ms at the function memory', () => {
    expect(billedGbSeconds('delivery', 0.2)).toBeCloseTo((1 / 1000) * 0.5);
    expect(billedGbSeconds('management', 1000.1)).toBeCloseTo((1001 / 1000) * 0.25);
  });

  it('prices each kind of usage per million events', () => {
    const lambda = emptyLambdaUsage();
    lambda.delivery = { invocations: 10, gbSeconds: 2 };
    const cost = costPerMillionEvents({
      events: 1000,
      httpRequests: 10,
      lambda,
      sqsBilledRequests: 30,
      dynamoWriteUnits: 4,
      dynamoReadUnits: 2,
      s3Puts: 1,
      s3Gets: 0,
    });
    expect(cost.httpApi).toBeCloseTo(10 * PRICES.httpApi.perRequest * 1000);
    expect(cost.lambdaRequests).toBeCloseTo(10 * PRICES.lambda.perRequest * 1000);
    expect(cost.lambdaDuration).toBeCloseTo(2 * PRICES.lambda.perGbSecond * 1000);
    expect(cost.sqs).toBeCloseTo(0.012, 6);
    expect(cost.dynamodb).toBeCloseTo(0.002_75, 6);
    expect(cost.s3).toBeCloseTo(0.005, 6);
    expect(cost.total).toBeCloseTo(
      cost.httpApi + cost.lambdaRequests + cost.lambdaDuration + cost.sqs + cost.dynamodb + cost.s3,
    );
  });

  it('prices requests to FIFO queues at the FIFO price, the others at the standard price', () => {
    const usage = {
      events: 1_000_000,
      httpRequests: 0,
      lambda: emptyLambdaUsage(),
      sqsBilledRequests: 1_000_000,
      dynamoWriteUnits: 0,
      dynamoReadUnits: 0,
      s3Puts: 0,
      s3Gets: 0,
    };
    expect(PRICES.sqs.fifoPerRequest).toBeCloseTo(0.5 / 1_000_000, 12);
    expect(costPerMillionEvents(usage).sqs).toBeCloseTo(0.4, 9);
    expect(costPerMillionEvents({ ...usage, sqsFifoBilledRequests: 400_000 }).sqs).toBeCloseTo(0.44, 9);
    expect(costPerMillionEvents({ ...usage, sqsFifoBilledRequests: 1_000_000 }).sqs).toBeCloseTo(0.5, 9);
    expect(sqsRequestsCost(10, 20)).toBeCloseTo(10 * PRICES.sqs.fifoPerRequest, 12);
    expect(sqsRequestsCost(-5, 0)).toBe(0);
  });

  it('prices S3 requests and storage: PUTs and GETs per thousand, DELETEs free, storage per GB-month', () => {
    const cost = costPerMillionEvents({
      events: 100_000,
      httpRequests: 0,
      lambda: emptyLambdaUsage(),
      sqsBilledRequests: 0,
      dynamoWriteUnits: 0,
      dynamoReadUnits: 0,
      s3Puts: 20,
      s3Gets: 500,
      s3Deletes: 20,
      s3GbMonths: 0.5,
    });
    // Per 100,000 events: 20 x $0.005/1000 + 500 x $0.0004/1000 + 0.5 x $0.023 = $0.0118; x 10 per million.
    expect(cost.s3).toBeCloseTo(0.118, 9);
    expect(cost.total).toBeCloseTo(0.118, 9);
  });

  it('refuses usage without events', () => {
    expect(() =>
      costPerMillionEvents({
        events: 0,
        httpRequests: 0,
        lambda: emptyLambdaUsage(),
        sqsBilledRequests: 0,
        dynamoWriteUnits: 0,
        dynamoReadUnits: 0,
        s3Puts: 0,
        s3Gets: 0,
      }),
    ).toThrow(/at least one event/);
  });
});
