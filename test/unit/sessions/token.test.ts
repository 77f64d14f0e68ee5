/**
 * Session tokens: made and opened with the same key; refused once past their end, when any part
 * was changed, when signed with another key (a revocation replaces the key), or malformed.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZodError } from 'zod';
import { FileSessionKeys } from '../../../shared/sessions/keys';
import { parseScope, type SessionScope } from '../../../shared/sessions/scope';
import { bearerToken, openSessionToken, type Session, sessionToken } from '../../../shared/sessions/token';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const KEY = 'k'.repeat(43);
const PORTAL: SessionScope = {
  role: 'portal',
  topic: 'orders',
  labels: ['tenant=acme'],
  permissions: ['write', 'resend'],
};
const session = (scope: SessionScope = PORTAL, minutes = 60): Session => ({
  id: 'session-1',
  issuedAt: NOW,
  expiresAt: NOW + minutes * 60_000,
  scope,
});

const reasonOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as { reason?: string }).reason ?? (error as Error).message;
  }
  return 'accepted';
};

describe('session tokens', () => {
  it('open to the session they were made from until its end, and no longer', () => {
    const token = sessionToken(session(), KEY);
    expect(token).toMatch(/^gws1\.[\w-]+\.[\w-]+$/);
    expect(openSessionToken(token, KEY, NOW + 59 * 60_000)).toEqual(session());
    expect(reasonOf(() => openSessionToken(token, KEY, NOW + 60 * 60_000))).toBe('expired');
  });

  it('are refused when signed with another key (every session after a revocation)', () => {
    const token = sessionToken(session(), KEY);
    expect(reasonOf(() => openSessionToken(token, 'another key', NOW))).toBe('invalid');
  });

  it('are refused when their payload or signature was changed', () => {
    const [prefix, payload, signature] = sessionToken(session(), KEY).split('.') as [string, string, string];
    // A portal session rewritten as an operator's, with the signature kept.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const raised = Buffer.from(JSON.stringify({ ...claims, scope: { role: 'operator' } })).toString(
      'base64url',
    );
    expect(reasonOf(() => openSessionToken(`${prefix}.${raised}.${signature}`, KEY, NOW))).toBe('invalid');
    // Its end pushed back.
    const longer = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url');
    expect(reasonOf(() => openSessionToken(`${prefix}.${longer}.${signature}`, KEY, NOW))).toBe('invalid');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(reasonOf(() => openSessionToken(`${prefix}.${payload}.${flipped}`, KEY, NOW))).toBe('invalid');
  });

  it('are refused when malformed', () => {
    for (const token of ['', 'gws1', 'gws1.a', 'gws2.a.b', 'gws1.a.b.c', 'not a token at all']) {
      expect([token, reasonOf(() => openSessionToken(token, KEY, NOW))]).toEqual([token, 'invalid']);
    }
  });

  it('carry only scopes that parse (a signed payload with a bad scope is refused)', () => {
    const bad = { role: 'portal', topic: 'orders', namespace: 'shop', labels: [] } as unknown as SessionScope;
    expect(reasonOf(() => openSessionToken(sessionToken(session(bad), KEY), KEY, NOW))).toBe('invalid');
  });

  it('are read from a bearer header only', () => {
    expect(bearerToken('Bearer gws1.a.b')).toBe('gws1.a.b');
    expect(bearerToken('bearer  gws1.a.b ')).toBe('gws1.a.b');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('session scopes', () => {
  it('default a portal scope to every permission and no labels', () => {
    expect(parseScope({ role: 'portal', namespace: 'shop' })).toEqual({
      role: 'portal',
      namespace: 'shop',
      labels: [],
      permissions: ['write', 'pause', 'rotateSecret', 'resend', 'replay', 'sendTest'],
    });
  });

  it('refuse a portal scope with both or neither of topic and namespace, unknown fields and roles', () => {
    const messageOf = (value: unknown) => {
      const parsed = parseScope(value);
      return parsed instanceof ZodError ? parsed.issues[0]?.message : 'accepted';
    };
    expect(messageOf({ role: 'portal', topic: 'a', namespace: 'b' })).toMatch(
      /exactly one of topic and namespace/,
    );
    expect(messageOf({ role: 'portal' })).toMatch(/exactly one of topic and namespace/);
    expect(messageOf({ role: 'admin' })).toMatch(/'operator' or 'portal'/);
    expect(messageOf({ role: 'operator', topic: 'a' })).not.toBe('accepted');
    expect(messageOf({ role: 'portal', topic: 'a', permissions: ['delete'] })).not.toBe('accepted');
    expect(messageOf({ role: 'portal', topic: 'a', labels: Array(21).fill('x') })).toMatch(
      /at most 20 labels/,
    );
  });
});

describe('the session key in a file', () => {
  it('is made on first use, kept, and replaced by a new one', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gridwire-session-key-')), 'session-key');
    const keys = new FileSessionKeys(file);
    const first = await keys.current();
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(await keys.current()).toBe(first);
    await keys.replace();
    const second = await keys.current();
    expect(second).not.toBe(first);
    expect(readFileSync(file, 'utf8').trim()).toBe(second);
  });
});
