/**
 * What a request carries of a subscription's stored credentials: only the credentials its auth
 * makes (a custom `Authorization` or, with SigV4, `X-Amz-*` header stored before those were
 * refused is dropped before signing, so none arrives twice); a token request to the whole token
 * URL, its sealed query string opened; and signatures by at most the current signing secret and
 * `MAX_PREVIOUS_SIGNING_SECRETS` earlier ones, however many a subscription stored before that.
 */
import { EndpointAuth } from '../../../shared/delivery/endpoint-auth';
import { OpenedSecrets } from '../../../shared/delivery/opened-secrets';
import type { HandshakeRequest } from '../../../shared/delivery/rules/handshake';
import { sealEndpointUrl } from '../../../shared/delivery/sealed-endpoint';
import { MAX_PREVIOUS_SIGNING_SECRETS } from '../../../shared/delivery/signing';
import type { WebhookRequest } from '../../../shared/delivery/webhook-sender';
import type { DeliveryAuth, Subscription } from '../../../shared/domain/model';
import { VirtualClock } from '../../../shared/platform/clock';
import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';
import { subscription as subscriptionOf } from '../../support/fakes';
import { sigV4Problem } from '../../support/sigv4';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const SIGV4_HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';
const noClient = {
  secret: () => Promise.reject(new Error('no client')),
  tokenUrl: () => Promise.reject(new Error('no client')),
};

const withAuth = (auth: DeliveryAuth, endpointUrl = 'https://hooks.example.test/in'): Subscription =>
  subscriptionOf({ destination: { endpointType: 'WebHook', endpointUrl, auth } });

/** A delivery with the custom headers a subscription stored before they were refused would send. */
const deliveryWith = (url: string, custom: Record<string, string>): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'aeg-event-type': 'Notification', ...custom },
  body: '[{"id":"1"}]',
});

/** The names of `headers` equal to `name` ignoring case: what a sender would put on the wire. */
const named = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).filter((key) => key.toLowerCase() === name);

describe('custom headers that would pass for credentials', () => {
  it('are dropped before a SigV4 signature, which then arrives once and verifies', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    const auth = new EndpointAuth({ clock, awsCredentials: async () => credentials });
    const url = `https://${SIGV4_HOST}/prod/hooks`;
    const signed = await auth.authorize(
      withAuth({ type: 'AwsSigV4', service: 'execute-api' }, url),
      deliveryWith(url, {
        'X-Amz-Date': '20200101T000000Z',
        Authorization: 'AWS4-HMAC-SHA256 forged',
        'X-Amz-Security-Token': 'forged',
        'X-Tenant': 'acme',
      }),
      noClient,
    );
    expect(named(signed.headers, 'x-amz-date')).toEqual(['x-amz-date']);
    expect(signed.headers['x-amz-date']).toBe('20261128T120000Z');
    expect(named(signed.headers, 'authorization')).toEqual(['authorization']);
    expect(signed.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(named(signed.headers, 'x-amz-security-token')).toEqual([]);
    expect(signed.headers['X-Tenant']).toBe('acme');
    expect(
      sigV4Problem(
        {
          method: 'POST',
          target: '/prod/hooks',
          headers: { ...signed.headers, host: SIGV4_HOST },
          body: signed.body,
        },
        credentials,
        { region: 'eu-west-1', service: 'execute-api' },
      ),
    ).toBeUndefined();
  });

  it('lose only Authorization before an OAuth 2.0 token', async () => {
    const auth = new EndpointAuth({
      clock: new VirtualClock(),
      exchange: {
        exchange: async () => ({
          status: 200,
          headers: {},
          body: JSON.stringify({ access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 }),
        }),
      },
    });
    const sent = await auth.authorize(
      withAuth({
        type: 'OAuth2ClientCredentials',
        tokenUrl: 'https://login.example.test/token',
        clientId: 'gridwire',
        sealedClientSecret: 'sealed',
      }),
      deliveryWith('https://hooks.example.test/in', { AUTHORIZATION: 'Bearer forged', 'X-Amz-Date': 'kept' }),
      { secret: async () => 'secret', tokenUrl: async () => 'https://login.example.test/token' },
    );
    expect(named(sent.headers, 'authorization')).toEqual(['authorization']);
    expect(sent.headers.authorization).toBe('Bearer tok-1');
    expect(sent.headers['X-Amz-Date']).toBe('kept');
  });
});

describe("a token URL's sealed query string", () => {
  it('is opened for the token request', async () => {
    const sealer = new AesGcmSealer(keyText('test key'));
    const stored = await sealEndpointUrl('https://login.example.test/token?tenant=acme&code=t0k', sealer);
    const subscription = withAuth({
      type: 'OAuth2ClientCredentials',
      tokenUrl: stored.endpointUrl,
      ...(stored.sealedQuery === undefined ? {} : { sealedTokenQuery: stored.sealedQuery }),
      clientId: 'gridwire',
      sealedClientSecret: await sealer.seal('secret'),
    });
    expect(stored.endpointUrl).toBe('https://login.example.test/token');
    const asked: HandshakeRequest[] = [];
    const auth = new EndpointAuth({
      clock: new VirtualClock(),
      exchange: {
        exchange: async (request) => {
          asked.push(request);
          return {
            status: 200,
            headers: {},
            body: JSON.stringify({ access_token: 'tok-1', token_type: 'Bearer' }),
          };
        },
      },
    });
    const secrets = new OpenedSecrets(sealer);
    await auth.authorize(
      subscription,
      deliveryWith('https://hooks.example.test/in', {}),
      secrets.client(subscription),
    );
    expect(asked.map((request) => request.url)).toEqual([
      'https://login.example.test/token?tenant=acme&code=t0k',
    ]);
  });
});

describe('signing secrets in force', () => {
  it('sign with the current one and the newest three earlier ones at most', async () => {
    const sealer = new AesGcmSealer(keyText('test key'));
    const now = Date.UTC(2026, 0, 1);
    // Stored before the limit: the current secret and six earlier ones, newest first, none expired.
    const secrets = await Promise.all(
      Array.from({ length: 7 }, async (_, n) => ({
        sealed: await sealer.seal(`whsec_secret-${n}`),
        createdAt: now - n * 60_000,
        ...(n === 0 ? {} : { expiresAt: now + 7 * 86_400_000 - n * 60_000 }),
      })),
    );
    const subscription = subscriptionOf({
      destination: {
        endpointType: 'WebHook',
        endpointUrl: 'https://hooks.example.test/in',
        signing: { secrets },
      },
    });
    const opened = await new OpenedSecrets(sealer).signingSecrets(subscription, now);
    expect(opened).toHaveLength(1 + MAX_PREVIOUS_SIGNING_SECRETS);
    expect(opened).toEqual(['whsec_secret-0', 'whsec_secret-1', 'whsec_secret-2', 'whsec_secret-3']);
  });
});
