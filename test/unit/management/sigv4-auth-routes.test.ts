import { callRoute, routeTestDeps } from '../../support/management-routes';
import { memoryStores, seedTopic } from '../../support/memory-stores';

const SUB = '/admin/topics/{topic}/eventSubscriptions/{subscription}';
const NS_SUB = '/admin/namespaces/{namespace}/topics/{topic}/eventSubscriptions/{subscription}';
const AUTH_FIELD = 'properties.destination.properties.auth';

async function api(options: { local?: boolean } = {}) {
  const stores = memoryStores();
  const deps = routeTestDeps(stores, { allowHttpEndpoints: options.local ?? false });
  await seedTopic(stores, 'orders');
  await seedTopic(stores, 'shop/orders');
  const call = (routeKey: string, pathParameters: Record<string, string>, body: unknown) =>
    callRoute(deps, routeKey, pathParameters, body);
  const destination = (endpointUrl: string, auth: Record<string, unknown>) => ({
    endpointType: 'WebHook',
    properties: { endpointUrl, auth },
  });
  return {
    stores,
    /** PUTs subscription `audit` of topic `orders`. */
    put: (endpointUrl: string, auth: Record<string, unknown>) =>
      call(
        `PUT ${SUB}`,
        { topic: 'orders', subscription: 'audit' },
        {
          properties: { destination: destination(endpointUrl, auth) },
        },
      ),
    /** PUTs subscription `audit` of namespace topic `shop/orders`. */
    putNamespaced: (endpointUrl: string, auth: Record<string, unknown>) =>
      call(
        `PUT ${NS_SUB}`,
        { namespace: 'shop', topic: 'orders', subscription: 'audit' },
        {
          properties: {
            deliveryConfiguration: {
              deliveryMode: 'Push',
              push: { destination: destination(endpointUrl, auth) },
            },
          },
        },
      ),
  };
}

const sigV4 = (service: string, region?: string) => ({
  type: 'AwsSigV4',
  service,
  ...(region === undefined ? {} : { region }),
});

describe('SigV4 auth: the hosts a subscription may have signed', () => {
  it.each([
    ['execute-api', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks'],
    ['lambda', 'https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws/'],
  ])('stores %s auth for its own endpoint %s', async (service, url) => {
    const { put, stores } = await api();
    const answer = await put(url, sigV4(service));
    expect(answer.status).toBe(201);
    expect(answer.body.properties.destination.properties.auth).toEqual(sigV4(service));
    expect((await stores.subscriptions.list('orders'))[0]?.destination).toMatchObject({
      auth: { type: 'AwsSigV4', service },
    });
  });

  it.each([
    [
      'lambda',
      'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/billing/invocations',
      'a Lambda function URL',
    ],
    ['lambda', 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders', 'a Lambda function URL'],
    ['execute-api', 'https://dynamodb.eu-west-1.amazonaws.com/', 'an API Gateway endpoint'],
    ['execute-api', 'https://sts.amazonaws.com/', 'an API Gateway endpoint'],
    // A custom domain in front of API Gateway: its name says nothing about what answers it.
    ['execute-api', 'https://api.example.com/hooks', 'an API Gateway endpoint'],
    ['lambda', 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks', 'a Lambda function URL'],
  ])('refuses %s auth for %s with a 400 naming the field and the rule', async (service, url, shape) => {
    const { put, stores } = await api();
    const answer = await put(url, sigV4(service));
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `${AUTH_FIELD}: SigV4 with service '${service}' signs only for ${shape}`,
    );
    expect(answer.body.error.message).toContain(`the endpoint's host ${new URL(url).hostname} is not one`);
    expect(await stores.subscriptions.list('orders')).toEqual([]);
  });

  it('refuses a region that is not the endpoint host’s', async () => {
    const { put } = await api();
    const answer = await put(
      'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/hooks',
      sigV4('execute-api', 'us-east-1'),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      `${AUTH_FIELD}: the region us-east-1 is not the endpoint's (eu-west-1,`,
    );
  });

  it('refuses a forbidden host on a namespace subscription too, naming its own field', async () => {
    const { putNamespaced } = await api();
    const answer = await putNamespaced(
      'https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/billing/invocations',
      sigV4('lambda'),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(
      "properties.deliveryConfiguration.push.destination.properties.auth: SigV4 with service 'lambda' signs only for",
    );
  });

  it('lets the local stack sign for its loopback test endpoints, and only those', async () => {
    const local = await api({ local: true });
    expect((await local.put('http://127.0.0.1:8080/iam', sigV4('execute-api', 'eu-west-1'))).status).toBe(
      201,
    );
    expect((await local.put('http://10.0.0.8/iam', sigV4('execute-api'))).status).toBe(400);
    const onAws = await api();
    expect((await onAws.put('https://localhost:8443/iam', sigV4('execute-api'))).status).toBe(400);
  });
});
