/**
 * Session tokens: what `POST /admin/sessions` hands out and the console and portal send as
 * `Authorization: Bearer <token>`. A token is `gws1.<payload>.<signature>` (base64url): the
 * payload is `{"id", "iat", "exp", "scope"}` as JSON, the signature an HMAC-SHA256 of the
 * first two parts with the stack's session key. A token is good until `exp` while that key is
 * unchanged: replacing the key (`revokeAll`) makes every token handed out before fail its check.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ZodError } from 'zod';
import { parseScope, type SessionScope } from './scope';

const PREFIX = 'gws1';

/** A session as its token carries it. */
export interface Session {
  /** Random id, logged when the session is made and used (never the token). */
  readonly id: string;
  /** When it was made and when it ends (epoch ms). */
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly scope: SessionScope;
}

/** Why a token was refused: past its end, or not one this stack signed with its current key. */
export type SessionRefusal = 'expired' | 'invalid';

export class SessionRefused extends Error {
  override readonly name = 'SessionRefused';
  constructor(readonly reason: SessionRefusal) {
    super(
      reason === 'expired'
        ? 'The session has expired: ask for a new link.'
        : 'The session token is not valid: it is malformed, was not made by this stack, or every session was revoked since. Ask for a new link.',
    );
  }
}

/** The key that signs tokens, from the key's text (a domain of its own, apart from sealing). */
const signingKey = (keyText: string): Buffer =>
  createHash('sha256').update(`gridwire session tokens\0${keyText}`, 'utf8').digest();

const sign = (keyText: string, body: string): Buffer =>
  createHmac('sha256', signingKey(keyText)).update(body, 'utf8').digest();

/** The token of `session`, signed with `keyText`. */
export function sessionToken(session: Session, keyText: string): string {
  const payload = Buffer.from(
    JSON.stringify({
      id: session.id,
      iat: Math.floor(session.issuedAt / 1000),
      exp: Math.floor(session.expiresAt / 1000),
      scope: session.scope,
    }),
    'utf8',
  ).toString('base64url');
  const body = `${PREFIX}.${payload}`;
  return `${body}.${sign(keyText, body).toString('base64url')}`;
}

/**
 * The session `token` stands for, checked against `keyText` and the time `nowMs`; throws
 * {@link SessionRefused} when it is expired, forged, malformed or signed with another key.
 */
export function openSessionToken(token: string, keyText: string, nowMs: number): Session {
  const parts = token.trim().split('.');
  const [prefix, payload, signature] = parts;
  if (parts.length !== 3 || prefix !== PREFIX || payload === undefined || signature === undefined) {
    throw new SessionRefused('invalid');
  }
  const expected = sign(keyText, `${prefix}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new SessionRefused('invalid');
  }
  let claims: { id?: unknown; iat?: unknown; exp?: unknown; scope?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new SessionRefused('invalid');
  }
  const scope = parseScope(claims.scope);
  if (
    typeof claims.id !== 'string' ||
    typeof claims.iat !== 'number' ||
    typeof claims.exp !== 'number' ||
    scope instanceof ZodError
  ) {
    throw new SessionRefused('invalid');
  }
  const expiresAt = claims.exp * 1000;
  if (expiresAt <= nowMs) throw new SessionRefused('expired');
  return { id: claims.id, issuedAt: claims.iat * 1000, expiresAt, scope };
}

/** The bearer token of an `Authorization` header, if it carries one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
