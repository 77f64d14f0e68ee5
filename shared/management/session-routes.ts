/**
 * `POST /admin/sessions`: a short-lived session token for the console (role `operator`) or the
 * portal (role `portal`, scoped to a topic's or a namespace's subscriptions with given labels),
 * and `POST /admin/sessions/revokeAll`: a new session key, so every token handed out before is
 * refused. Both take the admin API's own authorization (IAM on AWS, the admin token locally); a
 * session cannot make sessions.
 */
import { z } from 'zod';
import { jsonResult } from '../http/api-gateway';
import { serviceUnavailable } from '../http/errors';
import type { SessionKeys } from '../sessions/keys';
import { parseScope, SESSION_MINUTES, type SessionScope } from '../sessions/scope';
import { type Session, sessionToken } from '../sessions/token';
import type { ClockDeps, IdDeps, LoggingDeps, SessionDeps } from './deps';
import { optionalBody } from './http-helpers';
import type { Operations } from './operation';
import { invalidBody } from './request-body';

export const sessionRequestSchema = z.strictObject(
  {
    scope: z.unknown().optional(),
    expiresInMinutes: z
      .number({ error: `must be a whole number of minutes from 1 to ${SESSION_MINUTES.max}` })
      .int(`must be a whole number of minutes from 1 to ${SESSION_MINUTES.max}`)
      .min(1, `must be a whole number of minutes from 1 to ${SESSION_MINUTES.max}`)
      .max(SESSION_MINUTES.max, `is at most ${SESSION_MINUTES.max} (12 hours)`)
      .default(SESSION_MINUTES.default),
  },
  { error: 'must be a JSON object such as {"scope": {"role": "operator"}}' },
);

/** The session request's scope, checked; a 400 naming the field otherwise. */
function requestedScope(value: unknown): SessionScope {
  if (value === undefined)
    return invalidScope('scope: is required ({"role": "operator"} or {"role": "portal", ...})');
  const scope = parseScope(value);
  if (!(scope instanceof z.ZodError)) return scope;
  throw invalidBody(
    new z.ZodError(scope.issues.map((issue) => ({ ...issue, path: ['scope', ...issue.path] }))),
    'session request',
  );
}

function invalidScope(message: string): never {
  throw invalidBody(
    new z.ZodError([{ code: 'custom', path: [], message, input: undefined }]),
    'session request',
  );
}

/** The session key, or a 503 saying the stack has none. */
export function requireSessionKeys(deps: SessionDeps): SessionKeys {
  if (deps.sessionKeys === undefined) {
    throw serviceUnavailable(
      'This stack has no session key, so it makes and accepts no console or portal sessions.',
    );
  }
  return deps.sessionKeys;
}

export type SessionRouteDeps = SessionDeps & ClockDeps & IdDeps & LoggingDeps;

export const sessionOperations: Operations<SessionRouteDeps> = {
  'POST /admin/sessions': async (event, deps) => {
    const parsed = sessionRequestSchema.safeParse(optionalBody(event));
    if (!parsed.success) throw invalidBody(parsed.error, 'session request');
    const scope = requestedScope(parsed.data.scope);
    const keys = requireSessionKeys(deps);
    const issuedAt = deps.clock.now();
    const session: Session = {
      id: deps.newId(),
      issuedAt,
      expiresAt: issuedAt + parsed.data.expiresInMinutes * 60_000,
      scope,
    };
    const token = sessionToken(session, await keys.current());
    deps.logger.info('session made', {
      sessionId: session.id,
      role: scope.role,
      expiresAt: new Date(session.expiresAt).toISOString(),
    });
    return jsonResult(201, {
      id: session.id,
      token,
      expiresAt: new Date(session.expiresAt).toISOString(),
      scope,
    });
  },

  'POST /admin/sessions/revokeAll': async (_event, deps) => {
    const keys = requireSessionKeys(deps);
    await keys.replace();
    const revokedAt = new Date(deps.clock.now()).toISOString();
    deps.logger.info('every session revoked', { revokedAt });
    return jsonResult(200, {
      revokedAt,
      note:
        keys.revocationDelaySeconds === 0
          ? 'Every session made before now is refused.'
          : `Every session made before now is refused; instances that read the old key refuse them within ${keys.revocationDelaySeconds} seconds.`,
    });
  },
};
