/**
 * Credentials on delivery requests: the OAuth 2.0 client credentials grant (the token request,
 * what an answer yields, tokens kept until shortly before they expire, one fetch at a time) and
 * AWS SigV4 (checked with a verifier written from the specification, not the SDK's signer).
 */
import {
  EndpointAuth,
  EndpointAuthError,
  refreshAtOf,
  regionOfHost,
  TOKEN_DEFAULT_LIFETIME_MS,
  tokenOfAnswer,
  tokenRequestOf,
} from '../../../shared/delivery/endpoint-auth';
import type { HandshakeRequest } from '../../../shared/delivery/rules/handshake';
import type { WebhookRequest } from '../../../shared/delivery/webhook-sender';
import type { DeliveryAuth, Subscription } from '../../../shared/domain/model';
import { VirtualClock } from '../../../shared/platform/clock';
import { subscription as subscriptionOf } from '../../support/fakes';
import { sigV4Problem } from '../../support/sigv4';

const oauth: Extract<DeliveryAuth, { type: 'OAuth2ClientCredentials' }> = {
  type: 'OAuth2ClientCredentials',
  tokenUrl: 'https://auth.example.test/oauth/token',
  clientId: 'grid wire',
  sealedClientSecret: 'v1.sealed',
  scope: 'hooks.write',
};

const withAuth = (auth: DeliveryAuth, version = 1): Subscription =>
  subscriptionOf({
    version,
    destination: { endpointType: 'WebHook', endpointUrl: 'https://hooks.example.test/in?x=1', auth },
  });

const delivery: WebhookRequest = {
  url: 'https://hooks.example.test/in?x=1',
  headers: { 'content-type': 'application/json', 'aeg-event-type': 'Notification' },
  body: '[{"id":"1"}]',
};

/** An OAuth 2.0 client whose secret is `secret` and whose token URL is as stored. */
const client = (secret: string) => ({
  secret: async () => secret,
  tokenUrl: async () => oauth.tokenUrl,
});
/** No client: a SigV4 subscription never opens one. */
const noClient = {
  secret: () => Promise.reject(new Error('no client')),
  tokenUrl: () => Promise.reject(new Error('no client')),
};

/** A token endpoint: hands out `tok-1`, `tok-2`, ... and notes each request. */
function tokenEndpoint(
  answer: (n: number) => { status: number; body: string } | { error: string } = (n) => ({
    status: 200,
    body: JSON.stringify({ access_token: `tok-${n}`, token_type: 'Bearer', expires_in: 3600 }),
  }),
) {
  const requests: HandshakeRequest[] = [];
  return {
    requests,
    exchange: async (request: HandshakeRequest) => {
      requests.push(request);
      const answered = answer(requests.length);
      return 'error' in answered ? answered : { ...answered, headers: {} };
    },
  };
}

describe('OAuth 2.0 client credentials', () => {
  it('asks for a token with the client in HTTP Basic (form-encoded first) and the scope', () => {
    const request = tokenRequestOf(oauth, 'se:cret');
    expect(request).toMatchObject({ method: 'POST', url: oauth.tokenUrl });
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const basic = Buffer.from(
      (request.headers.authorization ?? '').replace(/^Basic /, ''),
      'base64',
    ).toString();
    expect(basic).toBe('grid%20wire:se%3Acret');
    expect(new URLSearchParams(request.body)).toEqual(
      new URLSearchParams({ grant_type: 'client_credentials', scope: 'hooks.write' }),
    );
    const { scope: _scope, ...noScope } = oauth;
    expect(tokenRequestOf(noScope, 's').body).toBe('grant_type=client_credentials');
  });

  it.each([
    [
      'a bearer token',
      { status: 200, body: '{"access_token":"abc","token_type":"bearer","expires_in":60}' },
      { token: 'abc', expiresIn: 60 },
    ],
    ['no lifetime', { status: 200, body: '{"access_token":"abc","token_type":"Bearer"}' }, { token: 'abc' }],
    [
      'a refusal',
      { status: 401, body: '{"error":"invalid_client"}' },
      { problem: 'the token endpoint answered 401: {"error":"invalid_client"}' },
    ],
    [
      'not JSON',
      { status: 200, body: '<html>' },
      { problem: "the token endpoint's answer is not JSON: <html>" },
    ],
    [
      'no token',
      { status: 200, body: '{"token_type":"Bearer"}' },
      { problem: "the token endpoint's answer has no access_token" },
    ],
    [
      'another kind of token',
      { status: 200, body: '{"access_token":"a","token_type":"mac"}' },
      { problem: 'the token endpoint\'s token_type is "mac", not Bearer' },
    ],
    ['no answer', { error: 'ECONNREFUSED' }, { problem: 'the token request failed: ECONNREFUSED' }],
  ])('reads %s', (_name, answer, expected) => {
    expect(tokenOfAnswer('error' in answer ? answer : { ...answer, headers: {} })).toEqual(expected);
  });

  it('fetches a token again shortly before it expires: a minute, or a tenth of a short life', () => {
    expect(refreshAtOf(0, 3600)).toBe(3_600_000 - 60_000);
    expect(refreshAtOf(0, 60)).toBe(54_000);
    expect(refreshAtOf(0, undefined)).toBe(TOKEN_DEFAULT_LIFETIME_MS - 30_000);
  });

  it('keeps a token for the subscription version until its refresh time, then fetches another', async () => {
    const clock = new VirtualClock();
    const endpoint = tokenEndpoint();
    const auth = new EndpointAuth({ clock, exchange: endpoint });
    const open = client('secret');
    const subscription = withAuth(oauth);

    const first = await auth.authorize(subscription, delivery, open);
    expect(first.headers.authorization).toBe('Bearer tok-1');
    expect(first.headers['aeg-event-type']).toBe('Notification');
    expect((await auth.authorize(subscription, delivery, open)).headers.authorization).toBe('Bearer tok-1');
    clock.advance(3_600_000 - 60_000);
    expect((await auth.authorize(subscription, delivery, open)).headers.authorization).toBe('Bearer tok-2');
    // Fresh, as after a 401; and a new version of the subscription has tokens of its own.
    expect((await auth.authorize(subscription, delivery, open, true)).headers.authorization).toBe(
      'Bearer tok-3',
    );
    expect((await auth.authorize(withAuth(oauth, 2), delivery, open)).headers.authorization).toBe(
      'Bearer tok-4',
    );
    expect(endpoint.requests).toHaveLength(4);
  });

  it('fetches one token for requests made at the same time', async () => {
    const endpoint = tokenEndpoint();
    const auth = new EndpointAuth({ clock: new VirtualClock(), exchange: endpoint });
    const subscription = withAuth(oauth);
    const made = await Promise.all(
      Array.from({ length: 5 }, () => auth.authorize(subscription, delivery, client('secret'))),
    );
    expect(new Set(made.map((request) => request.headers.authorization))).toEqual(new Set(['Bearer tok-1']));
    expect(endpoint.requests).toHaveLength(1);
  });

  it('fails with the reason when no token can be had, and asks again next time', async () => {
    const endpoint = tokenEndpoint((n) =>
      n === 1
        ? { status: 400, body: '{"error":"invalid_scope"}' }
        : { status: 200, body: '{"access_token":"ok","token_type":"Bearer"}' },
    );
    const auth = new EndpointAuth({ clock: new VirtualClock(), exchange: endpoint });
    const subscription = withAuth(oauth);
    await expect(auth.authorize(subscription, delivery, client('secret'))).rejects.toThrow(
      new EndpointAuthError('the token endpoint answered 400: {"error":"invalid_scope"}'),
    );
    expect((await auth.authorize(subscription, delivery, client('secret'))).headers.authorization).toBe(
      'Bearer ok',
    );
    expect(auth.refreshes(subscription)).toBe(true);
  });
});

describe('AWS SigV4', () => {
  const credentials = {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  };

  it.each([
    ['abc123.execute-api.eu-west-1.amazonaws.com', 'eu-west-1'],
    ['abc123.execute-api.cn-north-1.amazonaws.com.cn', 'cn-north-1'],
    ['xyz.lambda-url.ap-southeast-2.on.aws', 'ap-southeast-2'],
    ['hooks.example.com', undefined],
  ])('reads the region of %s', (host, region) => {
    expect(regionOfHost(host)).toBe(region);
  });

  it('signs the request so a SigV4 verifier written from the specification accepts it, the body and query included', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    const auth = new EndpointAuth({ clock, awsCredentials: async () => credentials });
    const subscription = withAuth({ type: 'AwsSigV4', service: 'execute-api' });
    const url = 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/hooks/in%20box?b=2&a=1&a=0';
    const signed = await auth.authorize(subscription, { ...delivery, url }, noClient);

    expect(signed.headers['x-amz-date']).toBe('20261128T120000Z');
    expect(signed.headers['aeg-event-type']).toBe('Notification');
    const received = {
      method: 'POST',
      target: '/prod/hooks/in%20box?b=2&a=1&a=0',
      headers: { ...signed.headers, host: 'abc123.execute-api.eu-west-1.amazonaws.com' },
      body: signed.body,
    };
    expect(
      sigV4Problem(received, credentials, { region: 'eu-west-1', service: 'execute-api' }),
    ).toBeUndefined();
    expect(
      sigV4Problem({ ...received, body: '[]' }, credentials, { region: 'eu-west-1', service: 'execute-api' }),
    ).toBeDefined();
    expect(
      sigV4Problem(
        received,
        { ...credentials, secretAccessKey: 'other' },
        { region: 'eu-west-1', service: 'execute-api' },
      ),
    ).toBe('the signature does not match');
  });

  it('signs for the region given, else the host’s, else the stack’s, and carries a session token', async () => {
    const auth = new EndpointAuth({
      clock: new VirtualClock(),
      awsCredentials: async () => ({ ...credentials, sessionToken: 'session' }),
      awsRegion: async () => 'us-west-2',
      // Loopback names no region (and is allowed only as the local stack allows it).
      signLoopback: true,
    });
    const functionUrl = { ...delivery, url: 'https://abc123.lambda-url.ap-southeast-2.on.aws/in' };
    const fromHost = await auth.authorize(
      withAuth({ type: 'AwsSigV4', service: 'lambda' }),
      functionUrl,
      noClient,
    );
    expect(fromHost.headers.authorization).toContain('/ap-southeast-2/lambda/aws4_request');
    expect(fromHost.headers['x-amz-security-token']).toBe('session');
    const loopback = { ...delivery, url: 'http://127.0.0.1:8080/in' };
    const stack = await auth.authorize(withAuth({ type: 'AwsSigV4', service: 'lambda' }), loopback, noClient);
    expect(stack.headers.authorization).toContain('/us-west-2/lambda/aws4_request');
    const given = await auth.authorize(
      withAuth({ type: 'AwsSigV4', service: 'lambda', region: 'eu-central-1' }),
      loopback,
      noClient,
    );
    expect(given.headers.authorization).toContain('/eu-central-1/lambda/aws4_request');
  });

  it('fails without credentials to sign with', async () => {
    const auth = new EndpointAuth({ clock: new VirtualClock() });
    const functionUrl = { ...delivery, url: 'https://abc123.lambda-url.eu-west-1.on.aws/in' };
    await expect(
      auth.authorize(withAuth({ type: 'AwsSigV4', service: 'lambda' }), functionUrl, noClient),
    ).rejects.toThrow(new EndpointAuthError('this worker has no AWS credentials to sign with'));
  });

  /*
   * Defence in depth: a subscription stored before the host rule (or written around the API) is
   * still never signed for a host its service may not sign for. Nothing is signed, so nothing is
   * sent: the attempt fails as `EndpointAuthFailed`.
   */
  it.each([
    ['lambda', 'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/billing/invocations'],
    ['lambda', 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders'],
    ['execute-api', 'https://dynamodb.eu-west-1.amazonaws.com/'],
    ['execute-api', 'https://sts.amazonaws.com/'],
    ['execute-api', 'https://hooks.example.test/in?x=1'],
    ['lambda', 'http://127.0.0.1:8080/in'],
  ] as const)('refuses to sign %s for %s, whatever is stored', async (service, url) => {
    let credentialsRead = 0;
    const auth = new EndpointAuth({
      clock: new VirtualClock(),
      awsCredentials: async () => {
        credentialsRead += 1;
        return credentials;
      },
      awsRegion: async () => 'eu-west-1',
    });
    const refused = auth.authorize(withAuth({ type: 'AwsSigV4', service }), { ...delivery, url }, noClient);
    await expect(refused).rejects.toThrow(EndpointAuthError);
    await expect(refused).rejects.toThrow(`not signed: SigV4 with service '${service}' signs only for`);
    expect(credentialsRead).toBe(0);
  });
});
