/**
 * What a console or portal session may do: its scope. An operator session does everything the
 * admin API does. A portal session sees the subscriptions of one topic or one namespace whose
 * labels include every label the scope names, and may act on them as its permissions allow;
 * nothing else is listed, read or changed.
 */
import { z } from 'zod';

/** Longest a session lasts, and how long one lasts when the request does not say. */
export const SESSION_MINUTES = { default: 60, max: 720 } as const;

/** Labels a subscription carries at most, and their longest text (`tenant=acme`). */
export const LABEL_LIMITS = { count: 20, length: 128 } as const;

/**
 * What a portal session may change, beside reading the scope's subscriptions, their health,
 * message log and dead letters:
 * - `write`: create, edit and delete endpoints (new ones get the scope's labels);
 * - `pause`: pause and resume endpoints;
 * - `rotateSecret`: rotate an endpoint's signing secret (the new secret is shown once);
 * - `resend`: send an event of the message log again;
 * - `replay`: replay dead letters, and start and cancel replays from the topic's archive;
 * - `sendTest`: send a test event to an endpoint.
 */
export const PORTAL_PERMISSIONS = ['write', 'pause', 'rotateSecret', 'resend', 'replay', 'sendTest'] as const;
export type PortalPermission = (typeof PORTAL_PERMISSIONS)[number];

const name = z.string().min(1).max(128);

const label = z
  .string()
  .min(1)
  .max(LABEL_LIMITS.length, `a label is at most ${LABEL_LIMITS.length} characters`);

const operatorScope = z.object({ role: z.literal('operator') }).strict();

const portalScope = z
  .object({
    role: z.literal('portal'),
    topic: name.optional(),
    namespace: name.optional(),
    labels: z.array(label).max(LABEL_LIMITS.count, `at most ${LABEL_LIMITS.count} labels`).default([]),
    permissions: z
      .array(z.enum(PORTAL_PERMISSIONS))
      .default([...PORTAL_PERMISSIONS])
      .transform((list) => [...new Set(list)]),
  })
  .strict()
  .refine((scope) => (scope.topic === undefined) !== (scope.namespace === undefined), {
    message: 'a portal scope names exactly one of topic and namespace',
  });

/** Either scope (what the OpenAPI document describes; `parseScope` picks one by its role). */
export const sessionScopeSchema = z.union([operatorScope, portalScope]);

export type OperatorScope = z.infer<typeof operatorScope>;
export type PortalScope = z.infer<typeof portalScope>;
export type SessionScope = OperatorScope | PortalScope;

/** A scope as written in a token or a request, checked; the parse's error when it is not one. */
export function parseScope(value: unknown): SessionScope | z.ZodError {
  const role = (value as { role?: unknown } | null)?.role;
  const schema = role === 'portal' ? portalScope : operatorScope;
  if (role !== 'portal' && role !== 'operator') {
    return new z.ZodError([
      {
        code: 'custom',
        path: ['role'],
        message: "role must be 'operator' or 'portal'",
        input: role,
      },
    ]);
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : parsed.error;
}

/** Whether `labels` (a subscription's) include every label of the scope. */
export const labelsInScope = (scope: PortalScope, labels: readonly string[]): boolean =>
  scope.labels.every((wanted) => labels.includes(wanted));

/** `labels` with the scope's own added (a portal's new or edited subscription keeps them). */
export const withScopeLabels = (scope: PortalScope, labels: readonly string[]): string[] => [
  ...labels,
  ...scope.labels.filter((wanted) => !labels.includes(wanted)),
];
