/**
 * Writing a subscription with endpoint auth keeps its credentials with the endpoint they were
 * given for: a PUT may leave the OAuth 2.0 client secret out only while the endpoint URL, the
 * token URL and the client id stay the same (a moved endpoint would otherwise be handed the old
 * one's bearer tokens); the token URL's query string is sealed at rest and never shown, as the
 * endpoint URL's; and no custom header may pass for the credentials auth makes (`Authorization`,
 * and with SigV4 `X-Amz-*`), a refusal naming the mapping.
 */
import { isWebhook, type WebhookDestination } from '../../../shared/domain/model';
import { authDocument } from '../../../shared/management/resource-documents';
import { AesGcmSealer, keyText } from '../../../shared/platform/sealing';
import { callRoute, routeTestDeps } from '../../support/management-routes';
import { memoryStores, seedTopic } from '../../support/memory-stores';

const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NS_SUB = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
const PARAMS = { topic: 'orders', subscription: 'audit' };
const FIELD = 'properties.destination.properties';
const NS_FIELD = 'properties.deliveryConfiguration.push.destination.properties';
const TOKEN_URL = 'https://login.example.test/oauth2/token';
const SIGV4_URL = 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/hooks';

async function api(options: { sealer?: boolean } = {}) {
  const stores = memoryStores();
  const sealer = new AesGcmSealer(keyText('test key'));
  const deps = routeTestDeps(stores, options.sealer === false ? {} : { sealing: { kind: 'sealed', sealer } });
  await seedTopic(stores, 'orders');
  await seedTopic(stores, 'shop/orders');
  const call = (routeKey: string, pathParameters: Record<string, string>, body?: unknown) =>
    callRoute(deps, routeKey, pathParameters, body);
  const webhook = (properties: Record<string, unknown>) => ({ endpointType: 'WebHook', properties });
  return {
    sealer,
    /** PUTs subscription `audit` of topic `orders` with these destination properties. */
    put: (properties: Record<string, unknown>) =>
      call(`PUT ${SUB}`, PARAMS, { properties: { destination: webhook(properties) } }),
    /** PUTs subscription `audit` of namespace topic `shop/orders` with these destination properties. */
    putNamespaced: (properties: Record<string, unknown>) =>
      call(
        `PUT ${NS_SUB}`,
        { namespace: 'shop', topic: 'orders', subscription: 'audit' },
        {
          properties: {
            deliveryConfiguration: { deliveryMode: 'Push', push: { destination: webhook(properties) } },
          },
        },
      ),
    get: () => call(`GET ${SUB}`, PARAMS),
    fullUrls: () => call(`POST ${SUB}/getFullUrl`, PARAMS),
    list: () => call('GET /admin/topics/{topic}/eventSubscriptions', { topic: 'orders' }),
    stored: async (): Promise<WebhookDestination> => {
      const destination = (await stores.subscriptions.get('orders', 'audit'))?.destination;
      if (destination === undefined || !isWebhook(destination)) throw new Error('no webhook stored');
      return destination;
    },
  };
}

const oauth = (overrides: Record<string, unknown> = {}) => ({
  type: 'OAuth2ClientCredentials',
  tokenUrl: TOKEN_URL,
  clientId: 'gridwire',
  ...overrides,
});

describe('an OAuth 2.0 client secret left out of a PUT', () => {
  it('is kept for the same endpoint URL, token URL and client id', async () => {
    const { put, stored } = await api();
    const endpointUrl = 'https://hooks.example.test/in?code=abc';
    expect((await put({ endpointUrl, auth: oauth({ clientSecret: 's3cret' }) })).status).toBe(201);
    const before = await stored();
    expect((await put({ endpointUrl, auth: oauth({ clientSecret: null }) })).status).toBe(200);
    expect((await put({ endpointUrl, auth: oauth() })).status).toBe(200);
    expect((await stored()).auth).toEqual(before.auth);
  });

  it.each([
    ['another endpoint URL', { endpointUrl: 'https://elsewhere.example.test/in' }, 'endpoint URL'],
    ['another query string', { endpointUrl: 'https://hooks.example.test/in?code=xyz' }, 'endpoint URL'],
    ['another token URL', { tokenUrl: 'https://login.example.test/other/token' }, 'token URL'],
    ['another token query string', { tokenUrl: `${TOKEN_URL}?tenant=b` }, 'token URL'],
    ['another client id', { clientId: 'someone-else' }, 'client id'],
  ])('is refused with %s (400 naming auth.clientSecret), nothing stored', async (_, change, what) => {
    const { put, stored } = await api();
    const endpointUrl = 'https://hooks.example.test/in?code=abc';
    const tokenUrl = `${TOKEN_URL}?tenant=a`;
    const created = await put({ endpointUrl, auth: oauth({ tokenUrl, clientSecret: 's3cret' }) });
    expect(created.status).toBe(201);
    const before = await stored();
    const { endpointUrl: movedTo = endpointUrl, ...authChange } = change as Record<string, string>;
    const refused = await put({ endpointUrl: movedTo, auth: oauth({ tokenUrl, ...authChange }) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      `${FIELD}.auth.clientSecret: is required because the ${what} changed: a client secret is kept (left out or null) only while the endpoint URL, the token URL and the client id stay the same, so tokens never reach another endpoint without the secret being given again.`,
    );
    expect(await stored()).toEqual(before);
  });

  it('moves with the endpoint when it is given again', async () => {
    const { put, stored, sealer } = await api();
    expect(
      (await put({ endpointUrl: 'https://hooks.example.test/in', auth: oauth({ clientSecret: 'old' }) }))
        .status,
    ).toBe(201);
    const moved = await put({
      endpointUrl: 'https://elsewhere.example.test/in',
      auth: oauth({ clientSecret: 'new' }),
    });
    expect(moved.status).toBe(200);
    const { auth } = await stored();
    if (auth?.type !== 'OAuth2ClientCredentials') throw new Error('no OAuth 2.0 client stored');
    await expect(sealer.open(auth.sealedClientSecret)).resolves.toBe('new');
  });

  it('is required on a new subscription, and names the namespace field', async () => {
    const { put, putNamespaced } = await api();
    const classic = await put({ endpointUrl: 'https://hooks.example.test/in', auth: oauth() });
    expect(classic.status).toBe(400);
    expect(classic.body.error.message).toMatch(new RegExp(`^${FIELD}\\.auth\\.clientSecret: is required: `));
    expect(
      (
        await putNamespaced({
          endpointUrl: 'https://hooks.example.test/in',
          auth: oauth({ clientSecret: 's3cret' }),
        })
      ).status,
    ).toBe(201);
    const moved = await putNamespaced({ endpointUrl: 'https://elsewhere.example.test/in', auth: oauth() });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toContain(
      `${NS_FIELD}.auth.clientSecret: is required because the endpoint URL changed`,
    );
  });
});

describe("the token URL's query string", () => {
  it('is sealed at rest and never shown in GET or list; a PUT of the same URL keeps its seal', async () => {
    const { put, get, list, fullUrls, stored, sealer } = await api();
    const tokenUrl = `${TOKEN_URL}?tenant=acme&code=t0ken-s3cret`;
    const created = await put({
      endpointUrl: 'https://hooks.example.test/in',
      auth: oauth({ tokenUrl, clientSecret: 's3cret' }),
    });
    expect(created.status).toBe(201);
    for (const answer of [created, await get(), await list()]) {
      expect(JSON.stringify(answer.body)).not.toContain('t0ken-s3cret');
    }
    expect((await get()).body.properties.destination.properties.auth).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: TOKEN_URL,
      clientId: 'gridwire',
      clientSecret: null,
    });
    const { auth } = await stored();
    if (auth?.type !== 'OAuth2ClientCredentials') throw new Error('no OAuth 2.0 client stored');
    // getFullUrl gives both whole, so a document can be sent back (the CLI's update does).
    expect((await fullUrls()).body).toEqual({ endpointUrl: 'https://hooks.example.test/in', tokenUrl });
    expect(auth.tokenUrl).toBe(TOKEN_URL);
    expect(JSON.stringify(auth)).not.toContain('t0ken-s3cret');
    await expect(sealer.open(auth.sealedTokenQuery as string)).resolves.toBe(
      '?tenant=acme&code=t0ken-s3cret',
    );

    expect(
      (await put({ endpointUrl: 'https://hooks.example.test/in', auth: oauth({ tokenUrl }) })).status,
    ).toBe(200);
    expect((await stored()).auth).toEqual(auth);
  });

  it('is cut from a token URL stored before it was sealed', () => {
    expect(
      authDocument({
        type: 'OAuth2ClientCredentials',
        tokenUrl: `${TOKEN_URL}?code=t0ken-s3cret#frag`,
        clientId: 'gridwire',
        sealedClientSecret: 'sealed',
      }),
    ).toEqual({
      type: 'OAuth2ClientCredentials',
      tokenUrl: TOKEN_URL,
      clientId: 'gridwire',
      clientSecret: null,
    });
  });

  it('is refused (503 naming auth.tokenUrl) on a stack without a sealing key', async () => {
    const { put } = await api({ sealer: false });
    const refused = await put({
      endpointUrl: 'https://hooks.example.test/in',
      auth: oauth({ tokenUrl: `${TOKEN_URL}?code=x`, clientSecret: 's3cret' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(new RegExp(`^${FIELD}\\.auth\\.tokenUrl: `));
  });
});

describe('custom headers beside endpoint auth', () => {
  const mapping = (name: string) => ({ name, type: 'Static', properties: { value: 'forged' } });
  const tenant = { name: 'X-Tenant', type: 'Static', properties: { value: 'acme' } };
  const sigV4 = { type: 'AwsSigV4', service: 'execute-api' };

  it.each(['X-Amz-Date', 'x-amz-security-token', 'X-Amz-Content-Sha256', 'Authorization'])(
    'refuses %s on a SigV4 subscription, naming the mapping',
    async (name) => {
      const { put } = await api();
      const refused = await put({
        endpointUrl: SIGV4_URL,
        auth: sigV4,
        deliveryAttributeMappings: [tenant, mapping(name)],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(
        new RegExp(`^${FIELD}\\.deliveryAttributeMappings\\.1\\.name: '${name}' can't be set by a mapping: `),
      );
    },
  );

  it('refuses Authorization on an OAuth 2.0 subscription, and allows X-Amz-* there and without auth', async () => {
    const { put, putNamespaced } = await api();
    const refused = await put({
      endpointUrl: 'https://hooks.example.test/in',
      auth: oauth({ clientSecret: 's3cret' }),
      deliveryAttributeMappings: [mapping('authorization')],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      `${FIELD}.deliveryAttributeMappings.0.name: 'authorization' can't be set by a mapping: a subscription with auth sends its own Authorization header; remove the custom header or the auth (${FIELD}.auth).`,
    );
    const namespaced = await putNamespaced({
      endpointUrl: SIGV4_URL,
      auth: sigV4,
      deliveryAttributeMappings: [mapping('X-Amz-Date')],
    });
    expect(namespaced.status).toBe(400);
    expect(namespaced.body.error.message).toMatch(
      new RegExp(`^${NS_FIELD}\\.deliveryAttributeMappings\\.0\\.name: 'X-Amz-Date'`),
    );
    expect(
      (
        await put({
          endpointUrl: 'https://hooks.example.test/in',
          auth: oauth({ clientSecret: 's3cret' }),
          deliveryAttributeMappings: [mapping('X-Amz-Date')],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await put({
          endpointUrl: 'https://hooks.example.test/in',
          deliveryAttributeMappings: [mapping('Authorization'), mapping('X-Amz-Date')],
        })
      ).status,
    ).toBe(200);
  });
});
