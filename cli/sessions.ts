/**
 * `gridwire console`, `gridwire portal-link` and `gridwire sessions revoke-all`: links to the
 * console (an operator session) and to the portal (a session scoped to one topic's or one
 * namespace's subscriptions), each with a short-lived session token in its fragment
 * (`POST /admin/sessions`), and the end of every session made so far
 * (`POST /admin/sessions/revokeAll`). Clients of the management API, local by default or `--api`
 * (see `admin-api.ts`).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { consoleUrl, PORTAL_PATH } from '../local/console';
import {
  PORTAL_PERMISSIONS,
  type PortalPermission,
  SESSION_MINUTES,
  type SessionScope,
} from '../shared/sessions/scope';
import {
  type ApiTarget,
  type ApiTargetOptions,
  okData,
  resolveApiTarget,
  withApiTargetOptions,
} from './admin-api';
import { CliError } from './errors';
import { labelsArgument } from './labels';
import { durationMs } from './options';
import { type JsonOption, printAnswer } from './output';

/** A session scope as `POST /admin/sessions` takes it (the API fills in the defaults). */
export type ScopeRequest =
  | { role: 'operator' }
  | {
      role: 'portal';
      topic?: string;
      namespace?: string;
      labels?: string[];
      permissions?: PortalPermission[];
    };

/** `POST /admin/sessions`'s answer. */
export interface SessionAnswer {
  id: string;
  token: string;
  expiresAt: string;
  scope: SessionScope;
}

/** A session's link: the answer with the page's URL, the token in its fragment. */
export interface SessionLink extends SessionAnswer {
  url: string;
}

/** `12h`, `1h30m`, `45m`: minutes as `--expires` writes them. */
export function minutesText(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest}m`;
  return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
}

const MAX_EXPIRES = minutesText(SESSION_MINUTES.max);

/**
 * `--expires`: how long the session lasts, `30m`, `1h`, `12h` (the duration words `--since`
 * takes), in whole minutes from 1 to `SESSION_MINUTES.max`; answered in minutes.
 */
export function expiresArgument(value: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms % 60_000 !== 0 || ms === 0) {
    throw new InvalidArgumentError(
      `--expires must be a duration in whole minutes such as 30m, 1h or 12h (at most ${MAX_EXPIRES}).`,
    );
  }
  const minutes = ms / 60_000;
  if (minutes > SESSION_MINUTES.max) {
    throw new InvalidArgumentError(
      `--expires is at most ${MAX_EXPIRES} (${SESSION_MINUTES.max} minutes); ${value.trim()} is ${minutes} minutes.`,
    );
  }
  return minutes;
}

/** `--permission`: names of `PORTAL_PERMISSIONS`, one a time or several with commas (repeatable). */
export function permissionArgument(value: string, previous: PortalPermission[] = []): PortalPermission[] {
  const given = value
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (given.length === 0) {
    throw new InvalidArgumentError(`--permission takes one of ${PORTAL_PERMISSIONS.join(', ')}.`);
  }
  for (const word of given) {
    if (!(PORTAL_PERMISSIONS as readonly string[]).includes(word)) {
      throw new InvalidArgumentError(`--permission: '${word}' is none of ${PORTAL_PERMISSIONS.join(', ')}.`);
    }
  }
  return [...new Set([...previous, ...(given as PortalPermission[])])];
}

/**
 * Makes a session of `scope` lasting `expiresInMinutes` (`POST /admin/sessions`); `doing` names
 * it in errors ("making a console link"). An API without the route is told apart.
 */
export async function createSession(
  target: ApiTarget,
  scope: ScopeRequest,
  expiresInMinutes: number,
  doing: string,
): Promise<SessionAnswer> {
  const result = await target.client.POST('/admin/sessions', { body: { scope, expiresInMinutes } });
  if (result.response.status === 404) {
    throw new CliError(
      `${doing} failed: ${target.where} makes no sessions (no POST /admin/sessions); deploy this version of Gridwire first`,
    );
  }
  // An API of another version may answer otherwise: checked, not taken on trust.
  const session: Partial<SessionAnswer> = okData(result, doing);
  if (typeof session.token !== 'string' || typeof session.expiresAt !== 'string') {
    throw new CliError(`${doing} failed: the answer of ${target.where} has no token`);
  }
  return session as SessionAnswer;
}

/** The session's link: `<api>/console#token=...`, or `<api>/portal#token=...` for a portal scope. */
export const sessionLink = (apiUrl: string, session: SessionAnswer): SessionLink => ({
  url:
    session.scope?.role === 'portal'
      ? consoleUrl(apiUrl, session.token, PORTAL_PATH)
      : consoleUrl(apiUrl, session.token),
  ...session,
});

/** Lines `label  value`, the values aligned. */
const aligned = (lines: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, value]) => `${label.padEnd(width + 2)}${value}`).join('\n');
};

const expiryLine = (link: SessionLink, minutes: number) => `${link.expiresAt} (in ${minutesText(minutes)})`;

const REVOKE_HINT = "'gridwire sessions revoke-all' ends every session made so far.";

/** What `gridwire console` prints. */
export function formatConsoleLink(link: SessionLink, minutes: number): string {
  return [
    aligned([
      ['Console', link.url],
      ['Expires', expiryLine(link, minutes)],
    ]),
    `Anyone with this link can operate the stack until then. ${REVOKE_HINT}`,
  ].join('\n');
}

/** A portal scope in words: what it shows, and what it may do besides reading. */
function scopeLines(scope: SessionScope): Array<[string, string]> {
  if (scope.role !== 'portal') return [['Scope', 'operator']];
  const where = scope.topic === undefined ? `namespace ${scope.namespace}` : `topic ${scope.topic}`;
  const labels =
    scope.labels.length === 0 ? 'every subscription' : `subscriptions labelled ${scope.labels.join(', ')}`;
  return [
    ['Scope', `${where}: ${labels}`],
    ['May', scope.permissions.length === 0 ? 'only read' : `read, ${scope.permissions.join(', ')}`],
  ];
}

/** What `gridwire portal-link` prints. */
export function formatPortalLink(link: SessionLink, minutes: number): string {
  return [
    aligned([['Portal', link.url], ...scopeLines(link.scope), ['Expires', expiryLine(link, minutes)]]),
    `Anyone with this link can use the portal in this scope until then. ${REVOKE_HINT}`,
  ].join('\n');
}

/** `--expires`, default `SESSION_MINUTES.default`. */
const expiresOption = () =>
  new Option('--expires <duration>', `how long the link works: 30m, 1h, 12h... (at most ${MAX_EXPIRES})`)
    .argParser(expiresArgument)
    .default(SESSION_MINUTES.default, minutesText(SESSION_MINUTES.default));

interface LinkOptions extends ApiTargetOptions, JsonOption {
  /** Minutes, from `--expires`. */
  expires: number;
}

export function consoleCommand(): Command {
  return withApiTargetOptions(
    new Command('console')
      .description(
        'Print a link to the console, with an operator session in it that lasts --expires (POST /admin/sessions).',
      )
      .addOption(expiresOption())
      .option('--json', 'print the session (id, token, expiresAt, scope) and its url as JSON'),
  ).action(async (options: LinkOptions) => {
    const target = await resolveApiTarget(options);
    const session = await createSession(
      target,
      { role: 'operator' },
      options.expires,
      `making a console link on ${target.where}`,
    );
    printAnswer(options, sessionLink(target.url, session), (link) =>
      formatConsoleLink(link, options.expires),
    );
  });
}

/** What `portal-link` takes beside the API target and `--expires`. */
export interface PortalLinkFlags {
  topic?: string;
  namespace?: string;
  label?: string[];
  permission?: PortalPermission[];
  readOnly?: boolean;
}

/** The portal scope the flags ask for; a `CliError` naming the flag when they don't make one. */
export function portalScopeOf(flags: PortalLinkFlags): ScopeRequest {
  if ((flags.topic === undefined) === (flags.namespace === undefined)) {
    throw new CliError(
      flags.topic === undefined
        ? 'give --topic (a topic) or --namespace (every topic of a namespace)'
        : '--topic and --namespace both given: a portal link shows one topic or one namespace; give one',
    );
  }
  if (flags.readOnly === true && flags.permission !== undefined) {
    throw new CliError('--read-only and --permission both given; give one');
  }
  const permissions = flags.readOnly === true ? [] : flags.permission;
  return {
    role: 'portal',
    ...(flags.topic === undefined ? { namespace: flags.namespace as string } : { topic: flags.topic }),
    ...(flags.label === undefined ? {} : { labels: flags.label }),
    ...(permissions === undefined ? {} : { permissions }),
  };
}

/** Refuses a portal link to a topic or a namespace that does not exist (a typo shows an empty portal). */
async function requireScopeOwner(target: ApiTarget, scope: ScopeRequest): Promise<void> {
  if (scope.role !== 'portal') return;
  const [result, what] =
    scope.topic === undefined
      ? [
          await target.client.GET('/admin/namespaces/{namespace}', {
            params: { path: { namespace: scope.namespace ?? '' } },
          }),
          `namespace '${scope.namespace}'`,
        ]
      : [
          await target.client.GET('/admin/topics/{topic}', { params: { path: { topic: scope.topic } } }),
          `topic '${scope.topic}'`,
        ];
  if (result.response.status === 404) throw new CliError(`no ${what} on ${target.where}`);
  okData(result, `reading ${what}`);
}

export function portalLinkCommand(): Command {
  return withApiTargetOptions(
    new Command('portal-link')
      .description(
        "Print a link to the portal for one topic's or one namespace's subscriptions (those with every --label), with a session that lasts --expires (POST /admin/sessions).",
      )
      .option('--topic <name>', 'the topic whose subscriptions the portal shows (or --namespace)')
      .option('--namespace <name>', 'every topic of this namespace (or --topic)')
      .option(
        '--label <label>',
        'show only subscriptions with this label, e.g. tenant=acme (repeatable, or several with commas; new endpoints get them)',
        labelsArgument('--label'),
      )
      .option(
        '--permission <name>',
        `what the portal may do besides reading: ${PORTAL_PERMISSIONS.join(', ')} (repeatable, or several with commas; default all)`,
        permissionArgument,
      )
      .option('--read-only', 'the portal may only read (no permission)')
      .addOption(expiresOption())
      .option('--json', 'print the session (id, token, expiresAt, scope) and its url as JSON'),
  ).action(async (options: LinkOptions & PortalLinkFlags) => {
    const scope = portalScopeOf(options);
    const target = await resolveApiTarget(options);
    await requireScopeOwner(target, scope);
    const session = await createSession(
      target,
      scope,
      options.expires,
      `making a portal link on ${target.where}`,
    );
    printAnswer(options, sessionLink(target.url, session), (link) => formatPortalLink(link, options.expires));
  });
}

/** `POST /admin/sessions/revokeAll`'s answer. */
export interface RevokeAnswer {
  revokedAt: string;
  note: string;
}

/** Ends every session made so far: the API replaces its session key. */
export async function revokeAllSessions(target: ApiTarget): Promise<RevokeAnswer> {
  return okData(
    await target.client.POST('/admin/sessions/revokeAll'),
    `revoking the sessions of ${target.where}`,
  );
}

export const formatRevoked = (answer: RevokeAnswer): string =>
  `Sessions revoked at ${answer.revokedAt}. ${answer.note}`;

export function sessionsCommand(): Command {
  return new Command('sessions')
    .description('Console and portal sessions: revoke-all ends every one made so far.')
    .addCommand(
      withApiTargetOptions(
        new Command('revoke-all')
          .description(
            'End every console and portal session made so far: the API takes a new session key, so every link handed out before is refused (POST /admin/sessions/revokeAll).',
          )
          .option('--json', 'print the API’s answer as JSON'),
      ).action(async (options: ApiTargetOptions & JsonOption) => {
        const answer = await revokeAllSessions(await resolveApiTarget(options));
        printAnswer(options, answer, formatRevoked);
      }),
    );
}
