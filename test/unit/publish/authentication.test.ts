/**
 * Publish authentication (`shared/publish/authentication.ts`): which credential a publish request
 * carries (the key route reads keys and SAS tokens; the IAM route takes the caller the gateway let
 * in and ignores any key; a namespace publish its `SharedAccessKey`), and how it is checked against
 * the keys of the topic or namespace.
 */
import type { HttpEvent } from '../../../shared/http/api-gateway';
import { ApiError } from '../../../shared/http/errors';
import { silentLogger } from '../../../shared/observability/logging';
import { VirtualClock } from '../../../shared/platform/clock';
import {
  authenticateNamespacePublish,
  authenticateTopicPublish,
  credentialOf,
  isValidKey,
  namespaceKeyOf,
  refuseUnknownTopic,
  requireNamespaceKey,
} from '../../../shared/publish/authentication';
import type { PublishCredential } from '../../../shared/publish/publish-request';
import { createSasToken } from '../../../shared/publish/sas';

const KEY_ROUTE = 'POST /topics/{topic}/api/events';
const IAM_ROUTE = 'POST /iam/topics/{topic}/api/events';

const request = (
  routeKey: string,
  headers: Record<string, string> = {},
  extra: { query?: Record<string, string>; userArn?: string } = {},
): HttpEvent =>
  ({
    routeKey,
    headers,
    ...(extra.query === undefined ? {} : { queryStringParameters: extra.query }),
    requestContext: {
      routeKey,
      ...(extra.userArn === undefined ? {} : { authorizer: { iam: { userArn: extra.userArn } } }),
    },
  }) as unknown as HttpEvent;

describe('credentialOf', () => {
  it('on the key route reads the aeg-sas-key header or query value', () => {
    expect(credentialOf(request(KEY_ROUTE, { 'aeg-sas-key': 'k1' }))).toEqual({ kind: 'key', key: 'k1' });
    expect(credentialOf(request(KEY_ROUTE, {}, { query: { 'aeg-sas-key': 'k2' } }))).toEqual({
      kind: 'key',
      key: 'k2',
    });
  });

  it('on the key route reads a SAS token from either header', () => {
    expect(credentialOf(request(KEY_ROUTE, { 'aeg-sas-token': 't1' }))).toEqual({ kind: 'sas', token: 't1' });
    expect(credentialOf(request(KEY_ROUTE, { authorization: 'SharedAccessSignature t2' }))).toEqual({
      kind: 'sas',
      token: 't2',
    });
  });

  it('on the key route has no credential without a key or token, even with an IAM caller', () => {
    expect(credentialOf(request(KEY_ROUTE))).toBeUndefined();
    expect(
      credentialOf(request(KEY_ROUTE, {}, { userArn: 'arn:aws:iam::123456789012:user/p' })),
    ).toBeUndefined();
  });

  it('on the IAM route is the caller the gateway authorized', () => {
    const userArn = 'arn:aws:sts::123456789012:assumed-role/publisher/session';
    expect(credentialOf(request(IAM_ROUTE, {}, { userArn }))).toEqual({ kind: 'iam', caller: userArn });
  });

  it('on the IAM route is the local caller when the gateway names none (local stack)', () => {
    expect(credentialOf(request(IAM_ROUTE, { authorization: 'Bearer admin-token' }))).toEqual({
      kind: 'iam',
      caller: 'local',
    });
  });

  it('on the IAM route ignores keys and SAS tokens', () => {
    const withKeys = request(
      IAM_ROUTE,
      { 'aeg-sas-key': 'k1', 'aeg-sas-token': 't1' },
      { query: { 'aeg-sas-key': 'k2' }, userArn: 'arn:aws:iam::123456789012:user/p' },
    );
    expect(credentialOf(withKeys)).toEqual({ kind: 'iam', caller: 'arn:aws:iam::123456789012:user/p' });
  });
});

describe('namespaceKeyOf', () => {
  it('reads the key of Authorization: SharedAccessKey <key>, trimmed, whatever the case of the scheme', () => {
    expect(namespaceKeyOf(request(KEY_ROUTE, { authorization: 'SharedAccessKey k1' }))).toBe('k1');
    expect(namespaceKeyOf(request(KEY_ROUTE, { Authorization: 'sharedaccesskey   k2  ' }))).toBe('k2');
  });

  it('has no key without the header, or with another scheme', () => {
    expect(namespaceKeyOf(request(KEY_ROUTE))).toBeUndefined();
    expect(namespaceKeyOf(request(KEY_ROUTE, { authorization: 'Bearer k1' }))).toBeUndefined();
    expect(namespaceKeyOf(request(KEY_ROUTE, { 'aeg-sas-key': 'k1' }))).toBeUndefined();
  });
});

/** A 401's message (or whatever else was thrown). */
const refusalOf = (check: () => unknown): unknown => {
  try {
    check();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.statusCode, message: error.message };
    return error;
  }
  return undefined;
};

describe('authenticateTopicPublish', () => {
  const NOW = Date.parse('2026-11-22T10:00:00Z');
  const KEY1 = Buffer.from('key one of the topic').toString('base64');
  const KEY2 = Buffer.from('key two of the topic').toString('base64');
  const topic = { name: 'orders', keys: { key1: KEY1, key2: KEY2 } };
  const auth = { clock: new VirtualClock(NOW), logger: silentLogger };
  const publishTo = (credential: PublishCredential | undefined, path = '/topics/orders/api/events') => ({
    topic: 'orders',
    credential,
    path,
  });

  it('lets in either key of the topic', () => {
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo({ kind: 'key', key: KEY1 }), auth)),
    ).toBe(undefined);
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo({ kind: 'key', key: KEY2 }), auth)),
    ).toBe(undefined);
  });

  it('refuses another key, and no key at all, with a 401 saying which', () => {
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo({ kind: 'key', key: 'wrong' }), auth)),
    ).toEqual({
      status: 401,
      message: "The access key is not valid for topic 'orders'.",
    });
    for (const credential of [undefined, { kind: 'key', key: '' }, { kind: 'sas', token: '' }] as const) {
      expect(refusalOf(() => authenticateTopicPublish(topic, publishTo(credential), auth))).toEqual({
        status: 401,
        message: expect.stringMatching(/^The request has no access key/),
      });
    }
  });

  it('lets in a SAS token made with a key for the path, until it expires', () => {
    const url = 'https://events.example.test/topics/orders/api/events';
    const token = createSasToken(url, KEY1, new Date(NOW + 60_000));
    expect(refusalOf(() => authenticateTopicPublish(topic, publishTo({ kind: 'sas', token }), auth))).toBe(
      undefined,
    );
    const later = { ...auth, clock: new VirtualClock(NOW + 120_000) };
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo({ kind: 'sas', token }), later)),
    ).toEqual({
      status: 401,
      message: expect.stringMatching(/expired/),
    });
  });

  it('lets an IAM caller in on the exact path only', () => {
    const iam = { kind: 'iam', caller: 'arn:aws:iam::123456789012:user/p' } as const;
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo(iam, '/iam/topics/orders/api/events'), auth)),
    ).toBe(undefined);
    expect(
      refusalOf(() => authenticateTopicPublish(topic, publishTo(iam, '/iam/topics/ORDERS/api/events'), auth)),
    ).toEqual({ status: 400, message: expect.stringMatching(/exactly as it was created/) });
  });
});

describe('refuseUnknownTopic', () => {
  const auth = { clock: new VirtualClock(0), logger: silentLogger };

  it('answers a publish to a missing topic as a wrong key is answered', () => {
    expect(
      refusalOf(() =>
        refuseUnknownTopic(
          { topic: 'nope', credential: { kind: 'key', key: 'any' }, path: '/topics/nope/api/events' },
          auth,
        ),
      ),
    ).toEqual({ status: 401, message: "The access key is not valid for topic 'nope'." });
  });

  it('still says when the request has no key', () => {
    expect(
      refusalOf(() =>
        refuseUnknownTopic({ topic: 'nope', credential: undefined, path: '/topics/nope/api/events' }, auth),
      ),
    ).toEqual({ status: 401, message: expect.stringMatching(/^The request has no access key/) });
  });
});

describe('namespace keys', () => {
  const namespace = { name: 'shop', keys: { key1: 'ns-one', key2: 'ns-two' } };

  it('requires a key before anything is read', () => {
    expect(requireNamespaceKey({ key: 'ns-one' })).toBe('ns-one');
    for (const key of [undefined, '']) {
      expect(refusalOf(() => requireNamespaceKey({ key }))).toEqual({
        status: 401,
        message: expect.stringMatching(/^The request has no access key: send Authorization: SharedAccessKey/),
      });
    }
  });

  it('answers the namespace for either of its keys', () => {
    expect(authenticateNamespacePublish(namespace, 'ns-one', 'shop')).toBe(namespace);
    expect(authenticateNamespacePublish(namespace, 'ns-two', 'shop')).toBe(namespace);
  });

  it('refuses a wrong key and an unknown namespace alike', () => {
    const refused = { status: 401, message: "The access key is not valid for namespace 'shop'." };
    expect(refusalOf(() => authenticateNamespacePublish(namespace, 'ns-three', 'shop'))).toEqual(refused);
    expect(refusalOf(() => authenticateNamespacePublish(undefined, 'ns-one', 'shop'))).toEqual(refused);
  });

  it('compares whole keys', () => {
    expect(isValidKey(namespace, 'ns-one')).toBe(true);
    expect(isValidKey(namespace, 'ns-on')).toBe(false);
    expect(isValidKey(namespace, 'ns-one ')).toBe(false);
  });
});
