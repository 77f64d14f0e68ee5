/**
 * A destination's external id goes to STS with the role it is sent through (`ExternalId` on
 * `AssumeRole`, answered here at the SDK's response shape), and a client made with one is not
 * shared with the same role's without it.
 */
import { AssumeRoleCommand, STSClient } from '@aws-sdk/nested-clients/sts';
import { mockClient } from 'aws-sdk-client-mock';
import { awsResourceClients } from '../../../shared/platform/resource-clients';

const sts = mockClient(STSClient);
const role = 'arn:aws:iam::210987654321:role/gridwire-delivery';

beforeEach(() => {
  sts.reset();
  sts.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: 'ASIAASSUMED',
      SecretAccessKey: 'secret',
      SessionToken: 'token',
      Expiration: new Date(Date.now() + 3_600_000),
    },
  });
});
afterAll(() => sts.restore());

describe('the role of a destination with an external id', () => {
  it('is assumed with that ExternalId', async () => {
    const client = awsResourceClients().sqs('eu-west-1', role, 'gridwire:orders/eu');
    await client.config.credentials();
    const calls = sts.commandCalls(AssumeRoleCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toMatchObject({ RoleArn: role, ExternalId: 'gridwire:orders/eu' });
  });

  it('is assumed without one when the destination has none, by a client of its own', async () => {
    const clients = awsResourceClients();
    const without = clients.sns('eu-west-1', role);
    expect(clients.sns('eu-west-1', role, 'gridwire-orders')).not.toBe(without);
    expect(clients.sns('eu-west-1', role, 'gridwire-orders')).toBe(
      clients.sns('eu-west-1', role, 'gridwire-orders'),
    );
    await without.config.credentials();
    const [call] = sts.commandCalls(AssumeRoleCommand);
    expect(call?.args[0].input.RoleArn).toBe(role);
    expect(call?.args[0].input).not.toHaveProperty('ExternalId');
  });
});
