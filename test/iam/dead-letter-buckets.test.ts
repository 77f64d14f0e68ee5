/**
 * The calls writing and reading dead letters in the deployer's own buckets make, decided by IAM's
 * policy evaluation against the roles of a stack whose deployer allowed some
 * (`deadLetterBuckets`): the dead-letter role may put objects in exactly the allowed buckets, the
 * management role list, read and write them, both assume a pair's role and nothing of its bucket;
 * neither reaches another bucket, and the other functions' roles reach none. (The local stack's
 * named buckets are the emulator's; the recorded-calls check covers the stack's own bucket.)
 */
import { bucketArn, decide, synthesizedFunctionRoles } from '../support/iam-policies';

const OTHER_ACCOUNT = '210987654321';
const role = (name: string) => `arn:aws:iam::${OTHER_ACCOUNT}:role/${name}`;
const object = (bucket: string) => `${bucketArn(bucket)}/billing/orders/2026/01/01/blob.json`;

const roles = synthesizedFunctionRoles({
  deadLetterBuckets: [
    'acme-dead-letters',
    'arn:aws:s3:::acme-archive-*',
    { bucket: 'partner-dead-letters', role: role('gridwire-*') },
  ],
});

const denied = { allowed: false, detail: 'ImplicitlyDenied' };
const allowed = { allowed: true, detail: 'Allowed' };

describe('the dead-letter role of a stack allowing some buckets', () => {
  it.each([
    ['s3:PutObject', object('acme-dead-letters'), true],
    ['s3:PutObject', object('acme-archive-2026'), true],
    ['s3:PutObject', object('acme-other'), false],
    ['s3:PutObject', object('partner-dead-letters'), false],
    ['s3:GetObject', object('acme-dead-letters'), false],
    ['s3:DeleteObject', object('acme-dead-letters'), false],
    ['sts:AssumeRole', role('gridwire-dead-letters'), true],
    ['sts:AssumeRole', role('admin'), false],
  ] as const)('%s on %s: allowed %s', async (action, resource, yes) => {
    expect(await decide(roles.deadLetter, { action, resource, context: {} })).toEqual(yes ? allowed : denied);
  });
});

describe('the management role of the same stack', () => {
  it.each([
    ['s3:ListBucket', bucketArn('acme-dead-letters'), true],
    ['s3:GetObject', object('acme-archive-2026'), true],
    ['s3:PutObject', `${object('acme-dead-letters')}.replayed`, true],
    ['s3:DeleteObject', object('acme-dead-letters'), false],
    ['s3:ListBucket', bucketArn('acme-other'), false],
    ['s3:GetObject', object('partner-dead-letters'), false],
    ['sts:AssumeRole', role('gridwire-dead-letters'), true],
    ['sts:AssumeRole', role('admin'), false],
  ] as const)('%s on %s: allowed %s', async (action, resource, yes) => {
    expect(await decide(roles.management, { action, resource, context: {} })).toEqual(yes ? allowed : denied);
  });
});

it("gives the other functions' roles none of it", async () => {
  for (const fn of ['publish', 'delivery'] as const) {
    for (const request of [
      { action: 's3:PutObject', resource: object('acme-dead-letters'), context: {} },
      { action: 'sts:AssumeRole', resource: role('gridwire-dead-letters'), context: {} },
    ]) {
      expect({ fn, ...(await decide(roles[fn], request)) }).toEqual({ fn, ...denied });
    }
  }
});
