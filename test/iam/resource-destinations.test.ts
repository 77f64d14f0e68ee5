/**
 * The calls delivery to AWS resources makes, decided by IAM's policy evaluation against the
 * delivery role of a stack whose deployer allowed some resources (`resourceDestinations`): each
 * service's send action on exactly the allowed resources, `sts:AssumeRole` on the allowed roles,
 * and nothing of the kind for another resource, another role, or another function's role. (The
 * local stack's destinations are the emulator's, reached with clients the recorded-calls check
 * does not see.)
 */
import { decide, FAKE_ACCOUNT, FAKE_REGION, synthesizedFunctionRoles } from '../support/iam-policies';

const arn = (service: string, resource: string) =>
  `arn:aws:${service}:${FAKE_REGION}:${FAKE_ACCOUNT}:${resource}`;
const OTHER_ACCOUNT = '210987654321';

const roles = synthesizedFunctionRoles({
  resourceDestinations: [
    arn('sqs', 'orders-*'),
    arn('sns', 'alerts'),
    arn('events', 'event-bus/orders'),
    arn('lambda', 'function:orders'),
    arn('kinesis', 'stream/orders'),
    `arn:aws:iam::${OTHER_ACCOUNT}:role/gridwire-*`,
  ],
});

describe('the delivery role of a stack allowing some resources', () => {
  // What the sender calls: SendMessageBatch (sqs:SendMessage) and GetQueueUrl, PublishBatch
  // (sns:Publish), PutEvents, Invoke (lambda:InvokeFunction), PutRecords, and STS AssumeRole.
  it.each([
    ['sqs:SendMessage', arn('sqs', 'orders-billing'), true],
    ['sqs:GetQueueUrl', arn('sqs', 'orders-billing'), true],
    ['sqs:SendMessage', arn('sqs', 'payroll'), false],
    ['sns:Publish', arn('sns', 'alerts'), true],
    ['sns:Publish', arn('sns', 'alerts-internal'), false],
    ['events:PutEvents', arn('events', 'event-bus/orders'), true],
    ['events:PutEvents', arn('events', 'event-bus/default'), false],
    ['lambda:InvokeFunction', arn('lambda', 'function:orders'), true],
    ['lambda:InvokeFunction', arn('lambda', 'function:payroll'), false],
    ['kinesis:PutRecords', arn('kinesis', 'stream/orders'), true],
    ['kinesis:DeleteStream', arn('kinesis', 'stream/orders'), false],
    ['sts:AssumeRole', `arn:aws:iam::${OTHER_ACCOUNT}:role/gridwire-sender`, true],
    ['sts:AssumeRole', `arn:aws:iam::${OTHER_ACCOUNT}:role/admin`, false],
  ] as const)('%s on %s: allowed %s', async (action, resource, allowed) => {
    // A denial by policy evaluation, not a request the simulator could not evaluate.
    expect(await decide(roles.delivery, { action, resource, context: {} })).toEqual(
      allowed ? { allowed, detail: 'Allowed' } : { allowed, detail: 'ImplicitlyDenied' },
    );
  });

  it("is the only role given them: the other functions' roles send to no resource", async () => {
    for (const fn of ['publish', 'management', 'deadLetter'] as const) {
      const request = { action: 'sqs:SendMessage', resource: arn('sqs', 'orders-billing'), context: {} };
      expect({ fn, ...(await decide(roles[fn], request)) }).toEqual({
        fn,
        allowed: false,
        detail: 'ImplicitlyDenied',
      });
    }
  });
});
