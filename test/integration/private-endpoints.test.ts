/**
 * Private-endpoint blocking on the local stack (`blockPrivateEndpoints`, on by default on AWS):
 * subscriptions whose endpoint URL points at a non-public address, in any spelling, are refused
 * with a 400 naming `endpointUrl`, for classic and namespace subscriptions alike. Every refusal
 * happens before any connection, so nothing here sends traffic anywhere.
 */
import { startTestStack, type TestStack } from '../support/local-stack';

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack({ blockPrivateEndpoints: true });
  await api.createTopic('guarded');
  expect((await api.call('PUT', '/admin/namespaces/store', {})).status).toBe(201);
  expect((await api.call('PUT', '/admin/namespaces/store/topics/orders', { properties: {} })).status).toBe(
    201,
  );
}, 30_000);

afterAll(async () => {
  await api?.close();
});

const PRIVATE_URLS: readonly [string, RegExp][] = [
  ['http://127.0.0.1:1/', /127\.0\.0\.1, a loopback address/],
  ['http://2130706433/', /127\.0\.0\.1, a loopback address/],
  ['http://0x7f000001/', /127\.0\.0\.1, a loopback address/],
  ['http://0x7f.0.0.1/', /127\.0\.0\.1, a loopback address/],
  ['http://0177.0.0.1/', /127\.0\.0\.1, a loopback address/],
  ['http://127.1/', /127\.0\.0\.1, a loopback address/],
  ['http://127.0.0.1./hook', /127\.0\.0\.1, a loopback address/],
  ['http://[::1]/', /::1, a loopback address/],
  ['http://[::ffff:127.0.0.1]/', /IPv4-mapped 127\.0\.0\.1\), a loopback address/],
  ['http://[::ffff:7f00:1]/', /IPv4-mapped 127\.0\.0\.1\), a loopback address/],
  ['http://[::127.0.0.1]/', /IPv4-compatible 127\.0\.0\.1\), a loopback address/],
  ['http://localhost/', /localhost is a loopback name/],
  ['http://localhost./', /localhost\. is a loopback name/],
  ['http://hooks.localhost:8080/', /hooks\.localhost is a loopback name/],
  ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254, the cloud metadata address/],
  ['http://0xa9fea9fe/', /169\.254\.169\.254, the cloud metadata address/],
  ['http://[fd00:ec2::254]/', /fd00:ec2::254, the cloud metadata address/],
  ['http://10.0.0.1/', /10\.0\.0\.1, a private address/],
  ['http://10.1/', /10\.0\.0\.1, a private address/],
  ['http://172.16.5.4/', /172\.16\.5\.4, a private address/],
  ['http://192.168.1.1/', /192\.168\.1\.1, a private address/],
  ['http://100.64.0.1/', /100\.64\.0\.1, a shared \(carrier-grade NAT\) address/],
  ['http://[fd00::1]/', /fd00::1, a private \(unique-local\) address/],
  ['http://[fe80::1]/', /fe80::1, a link-local address/],
  ['http://0.0.0.0/', /0\.0\.0\.0, an unspecified address/],
  ['http://0/', /0\.0\.0\.0, an unspecified address/],
  ['http://[::]/', /::, an unspecified address/],
  ['http://198.18.0.1/', /198\.18\.0\.1, a benchmarking address/],
  ['http://224.0.0.1/', /224\.0\.0\.1, a multicast address/],
  ['http://255.255.255.255/', /255\.255\.255\.255, the broadcast address/],
  ['http://[64:ff9b::10.0.0.1]/', /NAT64 10\.0\.0\.1\), a private address/],
];

const classicBody = (endpointUrl: string) => ({
  properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
});

const namespaceBody = (endpointUrl: string) => ({
  properties: {
    deliveryConfiguration: {
      deliveryMode: 'Push',
      push: { destination: { endpointType: 'WebHook', properties: { endpointUrl } } },
    },
  },
});

describe('classic subscriptions', () => {
  const route = '/admin/topics/guarded/eventSubscriptions/hook';

  it.each(PRIVATE_URLS)('refuse %s', async (url, reason) => {
    const response = await api.call('PUT', route, classicBody(url));
    expect(response.status).toBe(400);
    const message: string = response.body.error.message;
    expect(message.startsWith('properties.destination.properties.endpointUrl: ')).toBe(true);
    expect(message).toMatch(reason);
    expect(message).toMatch(/private endpoints are not allowed/);
    expect((await api.call('GET', route)).status).toBe(404);
  });
});

describe('namespace subscriptions', () => {
  const route = '/admin/namespaces/store/topics/orders/eventSubscriptions/hook';

  it.each(PRIVATE_URLS)('refuse %s', async (url, reason) => {
    const response = await api.call('PUT', route, namespaceBody(url));
    expect(response.status).toBe(400);
    const message: string = response.body.error.message;
    expect(
      message.startsWith('properties.deliveryConfiguration.push.destination.properties.endpointUrl: '),
    ).toBe(true);
    expect(message).toMatch(reason);
    expect((await api.call('GET', route)).status).toBe(404);
  });
});
