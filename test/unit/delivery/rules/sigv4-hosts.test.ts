/**
 * The hosts a SigV4-signed delivery may be signed for: each service only its own endpoints (API
 * Gateway for `execute-api`, function URLs for `lambda`), never another AWS API the delivery
 * role could then be made to call, nor a custom domain; loopback only where asked (the local
 * stack).
 */
import { SIGV4_HOSTS, sigV4HostOf, sigV4HostProblem } from '../../../../shared/delivery/rules/sigv4-hosts';

const onAws = { allowLoopback: false };
const local = { allowLoopback: true };

describe('the hosts SigV4 signs for', () => {
  it.each([
    ['execute-api', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks'],
    ['execute-api', 'https://a1b2c3d4e5.execute-api.us-gov-west-1.amazonaws.com/hooks'],
    ['execute-api', 'https://a1b2c3d4e5.execute-api.cn-north-1.amazonaws.com.cn/hooks'],
    // A private API through its VPC endpoint's public DNS name (<api id>-<vpce id>).
    ['execute-api', 'https://a1b2c3d4e5-vpce-0123456789abcdef0.execute-api.eu-west-1.amazonaws.com/hooks'],
    ['execute-api', 'https://A1B2C3D4E5.Execute-Api.EU-WEST-1.amazonaws.com/hooks'],
    ['lambda', 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.ap-southeast-2.on.aws/'],
    ['lambda', 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws:443/in?x=1'],
  ] as const)('signs %s for %s', (service, url) => {
    expect(sigV4HostProblem(service, url, onAws)).toBeUndefined();
  });

  it.each([
    // The APIs a signed POST would call as the delivery role: the reason for the rule.
    ['lambda', 'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/billing/invocations'],
    ['lambda', 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders'],
    ['lambda', 'https://dynamodb.eu-west-1.amazonaws.com/'],
    ['lambda', 'https://sts.amazonaws.com/'],
    ['execute-api', 'https://sts.eu-west-1.amazonaws.com/'],
    ['execute-api', 'https://apigateway.eu-west-1.amazonaws.com/restapis'],
    // Each service only its own endpoints.
    ['lambda', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks'],
    ['execute-api', 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws/'],
    // Look-alikes and custom domains: a name says nothing about what answers it.
    ['execute-api', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com.evil.example/hooks'],
    ['execute-api', 'https://x.a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/hooks'],
    ['execute-api', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com./hooks'],
    ['execute-api', 'https://hooks.example.com/in'],
    ['lambda', 'https://abc.lambda-url.eu-west-1.on.aws.example.com/'],
    // A VPC endpoint's own DNS name is not an API's host.
    ['execute-api', 'https://vpce-0123.execute-api.eu-west-1.vpce.amazonaws.com/hooks'],
    // Loopback only where asked.
    ['execute-api', 'http://127.0.0.1:8080/iam'],
    ['lambda', 'http://localhost:8080/iam'],
    ['lambda', 'not a url'],
  ] as const)('refuses %s for %s on AWS', (service, url) => {
    expect(sigV4HostProblem(service, url, onAws)).toBeDefined();
  });

  it('names the service, the hosts it signs for and the host refused', () => {
    expect(
      sigV4HostProblem(
        'lambda',
        'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/f/invocations',
        onAws,
      ),
    ).toBe(
      "SigV4 with service 'lambda' signs only for a Lambda function URL, <url id>.lambda-url.<region>.on.aws; " +
        "the endpoint's host lambda.eu-west-1.amazonaws.com is not one (a custom domain in front of it can't be signed for: use the function URL itself)",
    );
    expect(sigV4HostProblem('execute-api', 'https://api.example.com/hooks', onAws)).toContain(
      `signs only for ${SIGV4_HOSTS['execute-api'].shape}`,
    );
  });

  it.each([
    ['http://127.0.0.1:8080/iam'],
    ['http://127.5.6.7/iam'],
    ['http://localhost:8080/iam'],
    ['http://hooks.localhost/iam'],
    ['http://[::1]:8080/iam'],
    ['http://[::ffff:127.0.0.1]/iam'],
  ])('signs for the loopback host of %s on the local stack', (url) => {
    expect(sigV4HostProblem('execute-api', url, local)).toBeUndefined();
    expect(sigV4HostProblem('lambda', url, local)).toBeUndefined();
  });

  it.each([
    ['http://10.0.0.8/iam'],
    ['http://169.254.169.254/latest/meta-data'],
    ['https://lambda.us-east-1.amazonaws.com/2015-03-31/functions/f/invocations'],
  ])('refuses %s on the local stack too: only loopback is added there', (url) => {
    expect(sigV4HostProblem('lambda', url, local)).toBeDefined();
  });

  it('refuses a region that is not the host’s, and takes the host’s', () => {
    const url = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks';
    expect(sigV4HostProblem('execute-api', url, onAws, 'eu-west-1')).toBeUndefined();
    expect(sigV4HostProblem('execute-api', url, onAws, 'us-east-1')).toBe(
      "the region us-east-1 is not the endpoint's (eu-west-1, from its host a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com): leave region out, or give eu-west-1",
    );
    // Loopback names no region: any is taken.
    expect(sigV4HostProblem('execute-api', 'http://127.0.0.1/iam', local, 'eu-west-1')).toBeUndefined();
  });

  it.each([
    ['a1.execute-api.eu-west-1.amazonaws.com', { service: 'execute-api', region: 'eu-west-1' }],
    ['a1.execute-api.cn-northwest-1.amazonaws.com.cn', { service: 'execute-api', region: 'cn-northwest-1' }],
    ['abc.lambda-url.us-east-2.on.aws', { service: 'lambda', region: 'us-east-2' }],
    ['lambda.us-east-2.amazonaws.com', undefined],
    ['hooks.example.com', undefined],
  ])('reads %s as %j', (host, expected) => {
    expect(sigV4HostOf(host)).toEqual(expected);
  });
});
