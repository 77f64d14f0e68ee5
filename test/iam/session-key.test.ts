/**
 * The session key's secret, as IAM's policy evaluation decides on the synthesized stack's roles
 * (`@cloud-copilot/iam-simulate`): the management function alone reads it and replaces it (to
 * revoke every session); it may replace no other secret, and no other function reads it. The
 * local stack keeps the key in a file, so no recorded call covers these requests.
 */
import { FUNCTIONS, type FunctionKey } from '../../shared/config/resources';
import { decide, FAKE_ACCOUNT, FAKE_REGION, synthesizedFunctionRoles } from '../support/iam-policies';

const roles = synthesizedFunctionRoles();
const secretArn = (name: string) =>
  `arn:aws:secretsmanager:${FAKE_REGION}:${FAKE_ACCOUNT}:secret:${name}-AbCdEf`;
const SESSION_KEY = secretArn('sessionkey');

const allowed = async (fn: FunctionKey, action: string, resource: string) =>
  (await decide(roles[fn], { action, resource, context: {} })).allowed;

describe('the session key secret', () => {
  it('is read and replaced by the management function', async () => {
    for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']) {
      expect([action, await allowed('management', action, SESSION_KEY)]).toEqual([action, true]);
    }
  });

  it('is the only secret the management function may replace', async () => {
    for (const other of ['headerkey', 'topickey']) {
      expect([other, await allowed('management', 'secretsmanager:PutSecretValue', secretArn(other))]).toEqual(
        [other, false],
      );
    }
  });

  it('is read by no other function', async () => {
    const others = (Object.keys(FUNCTIONS) as FunctionKey[]).filter((fn) => fn !== 'management');
    for (const fn of others) {
      for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']) {
        expect([fn, action, await allowed(fn, action, SESSION_KEY)]).toEqual([fn, action, false]);
      }
    }
  });
});
