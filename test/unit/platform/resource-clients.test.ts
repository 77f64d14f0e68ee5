/**
 * The clients of AWS resource destinations: one per service, region and role, and a role's
 * credentials asked of STS (`AssumeRole`, answered here at the SDK's response shape) rather than
 * the function's own.
 */
import { AssumeRoleCommand, STSClient } from '@aws-sdk/nested-clients/sts';
import { mockClient } from 'aws-sdk-client-mock';
import { awsResourceClients, ROLE_SESSION_NAME } from '../../../shared/platform/resource-clients';

const sts = mockClient(STSClient);
const role = 'arn:aws:iam::210987654321:role/gridwire-delivery';

afterAll(() => sts.restore());

describe('the clients of resource destinations on AWS', () => {
  it('are made once per region and role', () => {
    const clients = awsResourceClients();
    const own = clients.sqs('eu-west-1');
    expect(clients.sqs('eu-west-1')).toBe(own);
    expect(clients.sqs('eu-west-1', role)).not.toBe(own);
    expect(clients.sqs('eu-west-1', role)).toBe(clients.sqs('eu-west-1', role));
    expect(clients.sqs('us-east-1')).not.toBe(own);
  });

  it("send with a role's credentials from STS, asked in the resource's region", async () => {
    const expiration = new Date(Date.now() + 3_600_000);
    sts.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'ASIAASSUMED',
        SecretAccessKey: 'secret',
        SessionToken: 'token',
        Expiration: expiration,
      },
    });
    const client = awsResourceClients().kinesis?.('eu-west-1', role);
    const credentials = await client?.config.credentials();
    expect(credentials).toMatchObject({ accessKeyId: 'ASIAASSUMED', sessionToken: 'token' });
    const [call] = sts.commandCalls(AssumeRoleCommand);
    expect(call?.args[0].input).toMatchObject({ RoleArn: role, RoleSessionName: ROLE_SESSION_NAME });
    expect(await call?.thisValue.config.region()).toBe('eu-west-1');
  });
});
