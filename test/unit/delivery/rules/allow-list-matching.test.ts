/**
 * The deployer's allow-list of AWS resources, matched segment by segment: a `*` stays within one
 * `:`-separated field and one `/`-separated segment, a role goes with a resource of its own
 * account unless an entry pairs them, and a given ARN has no empty, `.` or `..` segment.
 */
import {
  allowedByList,
  arnPatternMatches,
  arnSegmentsProblem,
  destinationRefusal,
} from '../../../../shared/delivery/rules/resource-destinations';

const ACCOUNT = '123456789012';
const OTHER = '210987654321';

describe('an allow-list pattern', () => {
  it.each([
    // A * within one segment.
    [`arn:aws:iam::${ACCOUNT}:role/gridwire-*`, `arn:aws:iam::${ACCOUNT}:role/gridwire-sender`, true],
    // ... never across a '/': a role under a path, or a '..' that would climb out of one.
    [`arn:aws:iam::${ACCOUNT}:role/gridwire-*`, `arn:aws:iam::${ACCOUNT}:role/gridwire-x/Admin`, false],
    [`arn:aws:iam::${ACCOUNT}:role/gridwire-*`, `arn:aws:iam::${ACCOUNT}:role/gridwire-../Admin`, false],
    [`arn:aws:iam::${ACCOUNT}:role/team/*`, `arn:aws:iam::${ACCOUNT}:role/team/sender`, true],
    [`arn:aws:iam::${ACCOUNT}:role/team/*`, `arn:aws:iam::${ACCOUNT}:role/team/a/sender`, false],
    // ... nor across a ':': a function's qualifier, or one field into the next.
    [
      `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:orders-*`,
      `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:orders-eu`,
      true,
    ],
    [
      `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:orders-*`,
      `arn:aws:lambda:eu-west-1:${ACCOUNT}:function:orders-eu:live`,
      false,
    ],
    [`arn:aws:sqs:eu-west-1:*`, `arn:aws:sqs:eu-west-1:${ACCOUNT}:orders`, false],
    [`arn:aws:sqs:eu-*:${ACCOUNT}:orders`, `arn:aws:sqs:eu-west-1:${OTHER}:x:${ACCOUNT}:orders`, false],
    // A * alone in a field: any value of that field.
    [`arn:aws:sqs:*:${ACCOUNT}:orders-*`, `arn:aws:sqs:us-east-1:${ACCOUNT}:orders-billing`, true],
    [`arn:aws:sqs:eu-west-1:*:orders`, `arn:aws:sqs:eu-west-1:${OTHER}:orders`, true],
    [`arn:aws:sqs:eu-west-1:${ACCOUNT}:*`, `arn:aws:sqs:eu-west-1:${ACCOUNT}:anything.fifo`, true],
    [
      `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/*`,
      `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/orders`,
      true,
    ],
    [
      `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/*`,
      `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/a/b`,
      false,
    ],
    // The whole pattern '*': any ARN (the local stack's default).
    ['*', `arn:aws:iam::${ACCOUNT}:role/a/b`, true],
    // Other characters are themselves.
    [`arn:aws:sqs:eu-west-1:${ACCOUNT}:orders.fifo`, `arn:aws:sqs:eu-west-1:${ACCOUNT}:ordersXfifo`, false],
  ])('%s names %s: %s', (pattern, arn, matches) => {
    expect(arnPatternMatches(pattern, arn)).toBe(matches);
    expect(allowedByList(arn, [pattern])).toBe(matches);
  });

  it('that pairs a resource with a role allows neither alone', () => {
    const queue = `arn:aws:sqs:eu-west-1:${OTHER}:billing`;
    const role = `arn:aws:iam::${ACCOUNT}:role/gridwire-sender`;
    expect(allowedByList(queue, [`${queue}|${role}`])).toBe(false);
    expect(allowedByList(role, [`${queue}|${role}`])).toBe(false);
  });
});

describe('a destination on the allow-list', () => {
  const queue = `arn:aws:sqs:eu-west-1:${OTHER}:billing`;
  const sameAccountRole = `arn:aws:iam::${OTHER}:role/gridwire-sender`;
  const otherAccountRole = `arn:aws:iam::${ACCOUNT}:role/gridwire-sender`;
  const list = [`arn:aws:sqs:eu-west-1:${OTHER}:*`, 'arn:aws:iam::*:role/gridwire-*'];

  it.each([
    ['its resource, no role', list, undefined, undefined],
    ['a role of the resource account', list, sameAccountRole, undefined],
    ['a role of another account', list, otherAccountRole, 'roleAccount'],
    [
      'a role of another account the list pairs with it',
      [...list, `${queue}|${otherAccountRole}`],
      otherAccountRole,
      undefined,
    ],
    ['a role not on the list', [`arn:aws:sqs:eu-west-1:${OTHER}:*`], sameAccountRole, 'roleArn'],
    [
      'a resource the list names only paired, with another role',
      [`${queue}|${otherAccountRole}`],
      sameAccountRole,
      'roleArn',
    ],
    [
      'a resource the list names only paired, without a role',
      [`${queue}|${otherAccountRole}`],
      undefined,
      'resourceArn',
    ],
    ['a resource not on the list', ['arn:aws:iam::*:role/gridwire-*'], sameAccountRole, 'resourceArn'],
  ] as const)('%s: refused for %s', (_what, allowList, role, refusal) => {
    expect(destinationRefusal(allowList, queue, role)).toBe(refusal);
  });
});

describe('a given ARN', () => {
  it.each([
    ['arn:aws:iam::123456789012:role/gridwire-sender', undefined],
    ['arn:aws:iam::123456789012:role/team/sender', undefined],
    ['arn:aws:lambda:eu-west-1:123456789012:function:orders:live', undefined],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/aws.partner/example.com/orders', undefined],
    ['arn:aws:iam::123456789012:role/gridwire-../Admin', undefined],
    ['arn:aws:iam::123456789012:role/gridwire-x/../Admin', "has '..'"],
    ['arn:aws:iam::123456789012:role/./Admin', "has '.'"],
    ['arn:aws:iam::123456789012:role//Admin', 'has an empty one'],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/orders/', 'has an empty one'],
  ])('%s: %s', (arn, problem) => {
    const found = arnSegmentsProblem(arn);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
