/**
 * Which credential a publish request carries (`credentialOf` in `functions/publish.ts`): the key
 * route reads keys and SAS tokens; the IAM route takes the caller the gateway let in and ignores
 * any key.
 */
import { credentialOf } from '../../../functions/publish';
import type { HttpEvent } from '../../../shared/http/api-gateway';

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
