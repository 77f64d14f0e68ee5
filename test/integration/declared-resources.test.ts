/**
 * Topics and subscriptions declared as CloudFormation custom resources, on the local stack: the
 * management function's custom resource handler with the stack's own management dependencies,
 * driven as the provider framework drives it (the request, then completion checks until one says
 * complete). Created, updated and deleted through the management API's operations; a
 * subscription is complete once its endpoint agreed to the validation handshake, and an endpoint
 * that does not agree fails the deployment with its answer. Time scale 60, so the 5-minute
 * validation window lasts 5 s.
 */
import { createDeclaredResourcesHandler } from '../../functions/management';
import { buildManagementDeps } from '../../shared/lambda/wiring/management';
import type {
  DeclaredResourceCheck,
  DeclaredResourceEvent,
} from '../../shared/management/declared-resources';
import { systemClock } from '../../shared/platform/clock';
import { DynamoDeclaredDestinations } from '../../shared/storage/declared-destinations';
import { DynamoSubscriptionStore } from '../../shared/storage/subscriptions';
import { namespacePushBody } from '../support/fakes';
import { startTestStack, type TestStack } from '../support/local-stack';
import { quietObservability } from '../support/sqs-events';
import { TestPki } from '../support/test-pki';
import { allowingOrigin, eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

let api: TestStack;
let webhook: WebhookServer;
let handle: ReturnType<typeof createDeclaredResourcesHandler>;

/**
 * What the provider framework does with a request: the handler's answer, then completion checks
 * (with that answer) a short while apart until one says complete; their last `Data` wins.
 */
async function apply(event: DeclaredResourceEvent) {
  const answer = (await handle(event)) as { PhysicalResourceId: string; Data?: Record<string, string> };
  for (;;) {
    const completion: DeclaredResourceCheck = {
      ...event,
      PhysicalResourceId: answer.PhysicalResourceId,
      Data: answer.Data ?? {},
    };
    const check = (await handle(completion)) as {
      IsComplete: boolean;
      Data?: Record<string, string>;
    };
    if (check.IsComplete) return { ...answer, Data: { ...answer.Data, ...check.Data } };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Echoes the validation code, as a receiver built for Event Grid does. */
const echoCode = (request: ReceivedRequest) => {
  if (request.headers['aeg-event-type'] !== 'SubscriptionValidation') return { status: 200 };
  const [validation] = JSON.parse(request.body) as [{ data: { validationCode: string } }];
  return { status: 200, body: JSON.stringify({ validationResponse: validation.data.validationCode }) };
};

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  api = await startTestStack({ timeScale: 60, validateEndpoints: true });
  handle = createDeclaredResourcesHandler({
    management: buildManagementDeps(
      { config: api.stack.config, clients: api.stack.clients },
      quietObservability('management'),
      { publicUrl: () => api.stack.apiUrl },
    ),
    clock: systemClock,
    // Secrets Manager, as the deployed function reads it: here one secret, by its ARN.
    readSecret: async (arn) => {
      if (arn === CLIENT_KEY_ARN) return clientPair.key;
      if (arn !== CLIENT_SECRET_ARN) throw new Error(`ResourceNotFoundException: ${arn}`);
      return 's3cret';
    },
  });
}, 30_000);

const CLIENT_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hooks-client-AbCdEf';
const CLIENT_KEY_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hooks-client-key-AbCdEf';
const pki = new TestPki();
const clientPair = pki.leaf(pki.ca('Declared CA'), 'declared-client', 'client');
afterAll(() => pki.dispose());

afterAll(async () => {
  await api?.close();
  await webhook?.stop();
});

const topicEvent = (
  RequestType: DeclaredResourceEvent['RequestType'],
  topic: string,
  body: unknown = { properties: { inputSchema: 'EventGridSchema' } },
): DeclaredResourceEvent => ({
  RequestType,
  ResourceProperties: {
    ServiceToken: 'arn:provider',
    Kind: 'Topic',
    Topic: topic,
    Body: JSON.stringify(body),
  },
  ...(RequestType === 'Create' ? {} : { PhysicalResourceId: `/admin/topics/${topic}` }),
});

const subscriptionEvent = (
  RequestType: DeclaredResourceEvent['RequestType'],
  topic: string,
  name: string,
  properties: Record<string, unknown>,
  extra: Record<string, string> = {},
): DeclaredResourceEvent => ({
  RequestType,
  ResourceProperties: {
    ServiceToken: 'arn:provider',
    Kind: 'Subscription',
    Topic: topic,
    Subscription: name,
    Body: JSON.stringify({ properties }),
    ...extra,
  },
  ...(RequestType === 'Create'
    ? {}
    : { PhysicalResourceId: `/admin/topics/${topic}/eventSubscriptions/${name}` }),
});

const webhookAt = (path: string, responder = echoCode) => ({
  destination: { endpointType: 'WebHook', properties: { endpointUrl: webhook.url(path, responder) } },
});

const storedUid = async (topic: string, name: string) =>
  (
    await new DynamoSubscriptionStore(api.stack.clients.dynamo, api.stack.config.tableName as string).get(
      topic,
      name,
      { consistent: true },
    )
  )?.uid;

describe('declared topics and subscriptions', () => {
  it('creates a topic and a subscription once its endpoint agreed, keeps its uid on update, and deletes them', async () => {
    expect(await apply(topicEvent('Create', 'declared'))).toEqual({
      PhysicalResourceId: '/admin/topics/declared',
      Data: { Path: '/admin/topics/declared', Id: expect.stringContaining('declared') },
    });
    // The handler answers at once; the framework's checks wait for the endpoint.
    const first = await handle(
      subscriptionEvent('Create', 'declared', 'first', webhookAt('/first'), { ValidationWaitSeconds: '30' }),
    );
    expect(first).toMatchObject({
      PhysicalResourceId: '/admin/topics/declared/eventSubscriptions/first',
      Data: { AgreeBy: expect.any(String) },
    });
    // The keys are made by the API and never pass through the resource.
    expect((await api.call('POST', '/admin/topics/declared/listKeys')).body.key1).toEqual(expect.any(String));

    const created = await apply(
      subscriptionEvent(
        'Create',
        'declared',
        'billing',
        {
          ...webhookAt('/billing'),
          filter: { includedEventTypes: ['Order.Created'] },
          retryPolicy: { maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 60 },
        },
        { Validation: 'wait' },
      ),
    );
    expect(created).toMatchObject({
      PhysicalResourceId: '/admin/topics/declared/eventSubscriptions/billing',
      Data: { ProvisioningState: 'Succeeded' },
    });
    const stored = await api.call('GET', '/admin/topics/declared/eventSubscriptions/billing');
    expect(stored.body.properties).toMatchObject({
      provisioningState: 'Succeeded',
      filter: { includedEventTypes: ['Order.Created'] },
      retryPolicy: { maxDeliveryAttempts: 10, eventTimeToLiveInMinutes: 60 },
    });
    const uid = await storedUid('declared', 'billing');
    expect(uid).toEqual(expect.any(String));

    await apply(
      subscriptionEvent('Update', 'declared', 'billing', {
        ...webhookAt('/billing'),
        filter: { includedEventTypes: ['Order.Created', 'Order.Paid'] },
        retryPolicy: { maxDeliveryAttempts: 5, eventTimeToLiveInMinutes: 60 },
      }),
    );
    const updated = await api.call('GET', '/admin/topics/declared/eventSubscriptions/billing');
    expect(updated.body.properties).toMatchObject({
      filter: { includedEventTypes: ['Order.Created', 'Order.Paid'] },
      retryPolicy: { maxDeliveryAttempts: 5 },
    });
    expect(await storedUid('declared', 'billing')).toBe(uid);

    await apply(subscriptionEvent('Delete', 'declared', 'billing', webhookAt('/billing')));
    expect((await api.call('GET', '/admin/topics/declared/eventSubscriptions/billing')).status).toBe(404);
    // Deleted again (a rollback, a retried delete): nothing to do, no error.
    await apply(subscriptionEvent('Delete', 'declared', 'billing', webhookAt('/billing')));
    await apply(topicEvent('Delete', 'declared'));
    expect((await api.call('GET', '/admin/topics/declared')).status).toBe(404);
  }, 60_000);

  it("fails a subscription whose endpoint does not agree, with the endpoint's answer", async () => {
    await apply(topicEvent('Create', 'refused'));
    const request = apply(
      subscriptionEvent(
        'Create',
        'refused',
        'hook',
        webhookAt('/refusing', () => ({ status: 403 })),
        {
          ValidationWaitSeconds: '2',
        },
      ),
    );
    await expect(request).rejects.toThrow(/has not agreed to receive events \(AwaitingManualAction: .*403/);
  }, 30_000);

  it('completes an asynchronously validated subscription once stored; a refusal shows in the subscription and its health', async () => {
    await apply(topicEvent('Create', 'later'));
    const refusing = webhookAt('/later-refusing', () => ({ status: 403 }));
    // Declared before `Validation` existed, a resource that names only a wait still waits.
    await expect(
      apply(subscriptionEvent('Create', 'later', 'legacy', refusing, { ValidationWaitSeconds: '1' })),
    ).rejects.toThrow(/has not agreed to receive events/);
    const created = await apply(
      subscriptionEvent('Create', 'later', 'hook', refusing, { Validation: 'async' }),
    );
    expect(created).toEqual({
      PhysicalResourceId: '/admin/topics/later/eventSubscriptions/hook',
      Data: {
        Path: '/admin/topics/later/eventSubscriptions/hook',
        Id: expect.stringContaining('hook'),
        ProvisioningState: 'AwaitingManualAction',
      },
    });
    expect(created.Data).not.toHaveProperty('AgreeBy');
    // The handshake goes on without the deployment: its refusal is recorded on the subscription.
    const handshakeError = await eventually(
      async () =>
        (await api.call('GET', '/admin/topics/later/eventSubscriptions/hook')).body.properties
          .endpointValidation?.handshakeError as string | undefined,
      30_000,
      "later/hook's handshake",
    );
    expect(handshakeError).toMatch(/403/);
    const health = await api.call('GET', '/admin/topics/later/eventSubscriptions/hook/health');
    expect(health.body).toMatchObject({
      provisioningState: 'AwaitingManualAction',
      endpointValidation: { handshakeError: expect.stringMatching(/403/) },
    });
    // An endpoint that answers is validated the same way, and its health says so.
    await apply(
      subscriptionEvent('Create', 'later', 'echoing', webhookAt('/later-echoing'), { Validation: 'async' }),
    );
    await eventually(
      async () =>
        (await api.call('GET', '/admin/topics/later/eventSubscriptions/echoing/health')).body
          .provisioningState === 'Succeeded',
      30_000,
      'later/echoing validated',
    );
  }, 60_000);

  it('keeps the list of declared destinations in the table: put, replaced on update, forgotten on delete', async () => {
    const stored = new DynamoDeclaredDestinations(
      api.stack.clients.dynamo,
      api.stack.config.tableName as string,
    );
    const queue = 'arn:aws:sqs:us-east-1:000000000000:declared-billing';
    const role = 'arn:aws:iam::210987654321:role/gridwire-sender';
    const listEvent = (
      RequestType: DeclaredResourceEvent['RequestType'],
      resources: string[],
    ): DeclaredResourceEvent => ({
      RequestType,
      ResourceProperties: {
        ServiceToken: 'arn:provider',
        Kind: 'DeclaredDestinations',
        Body: JSON.stringify({ resources }),
      },
      ...(RequestType === 'Create' ? {} : { PhysicalResourceId: 'settings/declared-destinations' }),
    });
    expect(await apply(listEvent('Create', [queue, role]))).toEqual({
      PhysicalResourceId: 'settings/declared-destinations',
      Data: { Count: '2' },
    });
    expect(await stored.get()).toEqual([queue, role]);
    await apply(listEvent('Update', [queue]));
    expect(await stored.get()).toEqual([queue]);
    await apply(listEvent('Delete', [queue]));
    expect(await stored.get()).toEqual([]);
    await expect(
      apply({
        ...listEvent('Create', []),
        ResourceProperties: { Kind: 'DeclaredDestinations', Body: '{"resources": [1]}' },
      }),
    ).rejects.toThrow(/The declared destinations are not valid/);
  });

  it("sets an OAuth 2.0 client's secret read from its ARN, never from the template", async () => {
    await apply(topicEvent('Create', 'declared-auth'));
    const tokenUrl = webhook.url('/declared-token', (request) =>
      Buffer.from(String(request.headers.authorization).replace(/^Basic /, ''), 'base64').toString() ===
      'gridwire:s3cret'
        ? { status: 200, body: JSON.stringify({ access_token: 'declared-token', token_type: 'Bearer' }) }
        : { status: 401 },
    );
    const endpointUrl = webhook.url('/declared-behind-auth', (request) =>
      request.headers.authorization === 'Bearer declared-token' ? echoCode(request) : { status: 401 },
    );
    const properties = {
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl,
          auth: { type: 'OAuth2ClientCredentials', tokenUrl, clientId: 'gridwire' },
        },
      },
    };
    await apply(
      subscriptionEvent('Create', 'declared-auth', 'billing', properties, {
        ClientSecretArn: CLIENT_SECRET_ARN,
        Validation: 'wait',
      }),
    );
    // Validated with the token the secret got: the endpoint answers nothing else.
    const shown = (await api.call('GET', '/admin/topics/declared-auth/eventSubscriptions/billing')).body;
    expect(shown.properties.provisioningState).toBe('Succeeded');
    expect(shown.properties.destination.properties.auth.clientSecret).toBeNull();

    await expect(
      handle(
        subscriptionEvent('Create', 'declared-auth', 'other', properties, {
          ClientSecretArn: `${CLIENT_SECRET_ARN}-gone`,
        }),
      ),
    ).rejects.toThrow('ResourceNotFoundException');
  });

  it("sets a client certificate's key read from its secret, never carried by the template", async () => {
    await apply(topicEvent('Create', 'declared-tls'));
    const properties = {
      destination: {
        endpointType: 'WebHook',
        properties: {
          endpointUrl: 'https://hooks.example.test/in',
          tls: { clientCertificate: clientPair.cert },
        },
      },
    };
    await apply(
      subscriptionEvent('Create', 'declared-tls', 'mtls', properties, { ClientKeySecretArn: CLIENT_KEY_ARN }),
    );
    const shown = (await api.call('GET', '/admin/topics/declared-tls/eventSubscriptions/mtls')).body;
    expect(shown.properties.destination.properties.tls).toMatchObject({
      clientCertificate: { subject: 'CN=declared-client' },
      clientKey: null,
    });
    // A key secret for a subscription without a certificate is a mistake in the declaration.
    await expect(
      handle(
        subscriptionEvent(
          'Create',
          'declared-tls',
          'keyless',
          {
            destination: {
              endpointType: 'WebHook',
              properties: { endpointUrl: 'https://hooks.example.test/in' },
            },
          },
          { ClientKeySecretArn: CLIENT_KEY_ARN },
        ),
      ),
    ).rejects.toThrow('ClientKeySecretArn is given but the subscription has no client certificate');
  });

  it('fails a request the API refuses, naming the field and the limit', async () => {
    await apply(topicEvent('Create', 'limits'));
    await expect(
      apply(
        subscriptionEvent('Create', 'limits', 'hook', {
          ...webhookAt('/limits'),
          retryPolicy: { maxDeliveryAttempts: 31, eventTimeToLiveInMinutes: 60 },
        }),
      ),
    ).rejects.toThrow(/answered 400 .*maxDeliveryAttempts/);
    await expect(apply(topicEvent('Create', 'bad name!'))).rejects.toThrow(/answered 400/);
  });

  it('fails a resource without a name its kind needs, naming the property', async () => {
    await expect(
      apply({
        RequestType: 'Create',
        ResourceProperties: { ServiceToken: 'arn:provider', Kind: 'Subscription', Topic: 'limits' },
      }),
    ).rejects.toThrow('A declared Subscription needs the property Subscription.');
  });
});

describe('declared namespaces, namespace topics and push subscriptions', () => {
  const declared = (
    RequestType: DeclaredResourceEvent['RequestType'],
    Kind: 'Namespace' | 'NamespaceTopic' | 'NamespaceSubscription',
    names: Record<string, string>,
    body: unknown,
  ): DeclaredResourceEvent => ({
    RequestType,
    ResourceProperties: { ServiceToken: 'arn:provider', Kind, ...names, Body: JSON.stringify(body) },
    ...(RequestType === 'Create'
      ? {}
      : {
          PhysicalResourceId: [
            `/admin/namespaces/${names.Namespace}`,
            names.Topic === undefined ? '' : `/topics/${names.Topic}`,
            names.Subscription === undefined ? '' : `/eventSubscriptions/${names.Subscription}`,
          ].join(''),
        }),
  });
  /** The push subscription's body: a webhook that allows the handshake's origin. */
  const push = (path: string, maxDeliveryCount: number, eventTimeToLive = 'PT1H') =>
    namespacePushBody(
      webhook.url(
        path,
        allowingOrigin((origin) => origin),
      ),
      { maxDeliveryCount, eventTimeToLive },
      { filtersConfiguration: { includedEventTypes: ['Cart.Abandoned'] } },
    );
  const names = { Namespace: 'shop', Topic: 'carts', Subscription: 'analytics' };

  it('creates them in order once the endpoint allowed the origin, updates in place and deletes them', async () => {
    expect(
      await apply(declared('Create', 'Namespace', { Namespace: 'shop' }, { tags: { team: 'b' } })),
    ).toMatchObject({ PhysicalResourceId: '/admin/namespaces/shop' });
    await apply(
      declared(
        'Create',
        'NamespaceTopic',
        { Namespace: 'shop', Topic: 'carts' },
        { properties: { eventRetentionInDays: 2 } },
      ),
    );
    const created = await apply(
      declared('Create', 'NamespaceSubscription', { ...names, Validation: 'wait' }, push('/carts', 5)),
    );
    expect(created).toMatchObject({
      PhysicalResourceId: '/admin/namespaces/shop/topics/carts/eventSubscriptions/analytics',
      Data: { ProvisioningState: 'Succeeded' },
    });
    expect(webhook.requestsTo('/carts').map((request) => request.method)).toContain('OPTIONS');
    const path = '/admin/namespaces/shop/topics/carts/eventSubscriptions/analytics';
    const stored = await api.call('GET', path);
    expect(stored.body.properties).toMatchObject({
      provisioningState: 'Succeeded',
      deliveryConfiguration: { push: { maxDeliveryCount: 5, eventTimeToLive: 'PT1H' } },
      filtersConfiguration: { includedEventTypes: ['Cart.Abandoned'] },
    });
    const uid = await storedUid('shop/carts', 'analytics');
    expect(uid).toEqual(expect.any(String));

    await apply(declared('Update', 'NamespaceSubscription', names, push('/carts', 3)));
    expect((await api.call('GET', path)).body.properties).toMatchObject({
      deliveryConfiguration: { push: { maxDeliveryCount: 3 } },
    });
    expect(await storedUid('shop/carts', 'analytics')).toBe(uid);

    // The topic's retention bounds its subscriptions' time to live: the API's refusal fails it.
    await expect(
      apply(declared('Update', 'NamespaceSubscription', names, push('/carts', 3, 'P3D'))),
    ).rejects.toThrow(/answered 400 .*eventTimeToLive/);

    // Deleting the namespace takes its topics and their subscriptions with it.
    await apply(declared('Delete', 'Namespace', { Namespace: 'shop' }, {}));
    expect((await api.call('GET', path)).status).toBe(404);
    expect((await api.call('GET', '/admin/namespaces/shop')).status).toBe(404);
  }, 60_000);
});
