/**
 * `update` of a subscription with an OAuth 2.0 client: the document shows the token URL only up
 * to its path (its query string may carry a secret), so the command reads it whole through
 * `getFullUrl` and sends that back; sent back cut it would be another token URL, which the API
 * refuses without the client secret.
 */
import { classicBodyOf, classicSubscriptionBody } from '../../../cli/subscription/body';
import { keepsTokenUrl } from '../../../cli/subscription/destination-flags';

const document = {
  name: 'billing',
  properties: {
    destination: {
      endpointType: 'WebHook',
      properties: {
        endpointBaseUrl: 'https://a.example/h',
        auth: {
          type: 'OAuth2ClientCredentials',
          tokenUrl: 'https://auth.example/token',
          clientId: 'one',
          clientSecret: null,
        },
      },
    },
  },
};

const authSent = (
  gaps: Parameters<typeof classicBodyOf>[1],
  flags: Parameters<typeof classicSubscriptionBody>[0] = {},
) =>
  JSON.parse(JSON.stringify(classicSubscriptionBody(flags, classicBodyOf(document, gaps, flags)))).properties
    .destination.properties.auth;

describe('update of a subscription with an OAuth 2.0 client', () => {
  it('sends back the whole token URL getFullUrl gave', () => {
    expect(
      authSent({ endpointUrl: 'https://a.example/h', tokenUrl: 'https://auth.example/token?tenant=acme' }),
    ).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: 'https://auth.example/token?tenant=acme',
      clientId: 'one',
      clientSecret: null,
    });
  });

  it('sends --oauth2-token-url over it', () => {
    expect(
      authSent(
        { endpointUrl: 'https://a.example/h', tokenUrl: 'https://auth.example/token?tenant=acme' },
        { oauth2TokenUrl: 'https://auth.example/v2/token', oauth2ClientSecret: 'new' },
      ),
    ).toMatchObject({ tokenUrl: 'https://auth.example/v2/token', clientSecret: 'new' });
  });

  it('reads the token URL whole only when it is kept', () => {
    expect(keepsTokenUrl(document, {})).toBe(true);
    expect(keepsTokenUrl(document, { endpoint: 'https://b.example/h' })).toBe(true);
    expect(keepsTokenUrl(document, { oauth2TokenUrl: 'https://auth.example/v2/token' })).toBe(false);
    expect(keepsTokenUrl(document, { awsSigv4: 'lambda' })).toBe(false);
    expect(keepsTokenUrl(document, { auth: false })).toBe(false);
    const unauthenticated = {
      properties: {
        destination: { endpointType: 'WebHook', properties: { endpointBaseUrl: 'https://a.example/h' } },
      },
    };
    expect(keepsTokenUrl(unauthenticated, {})).toBe(false);
  });
});
