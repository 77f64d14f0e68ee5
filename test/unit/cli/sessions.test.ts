/**
 * `gridwire console`, `portal-link` and `sessions revoke-all`, and `--labels` of `subscription
 * create`: their argument checks, and what they send and print, run through the program against a
 * scripted API on a local port (with `--api`, so each request is signed as on AWS).
 */
import { apiTarget } from '../../../cli/admin-api';
import { CliError } from '../../../cli/errors';
import { labelsArgument } from '../../../cli/labels';
import {
  createSession,
  expiresArgument,
  minutesText,
  permissionArgument,
  portalScopeOf,
} from '../../../cli/sessions';
import { START_CONSOLE_MINUTES, startConsoleLines } from '../../../cli/start';
import {
  classicSubscriptionBody,
  namespaceBodyOf,
  namespaceSubscriptionBody,
} from '../../../cli/subscription/body';
import { formatSubscriptionList, type SubscriptionDocument } from '../../../cli/subscription/format';
import { PORTAL_PERMISSIONS } from '../../../shared/sessions/scope';
import { scriptedApi } from '../../support/scripted-api';

const scripted = scriptedApi();
const { answers, seen, gridwire } = scripted;

const EXPIRES = '2026-06-01T13:00:00.000Z';

/** `POST /admin/sessions` answering a session of the scope it was asked for (defaults filled in). */
function sessionsAnswer(scope: Record<string, unknown>, token = 'v1.tok/en+1') {
  answers['POST /admin/sessions'] = {
    status: 201,
    body: { id: 'session-1', token, expiresAt: EXPIRES, scope },
  };
}

describe('--expires', () => {
  it.each([
    ['30m', 30],
    ['1h', 60],
    ['12h', 720],
    [' 90m ', 90],
    ['3600s', 60],
  ])('takes %j as %i minutes', (value, minutes) => {
    expect(expiresArgument(value)).toBe(minutes);
  });

  it.each([
    ['13h', /--expires is at most 12h \(720 minutes\); 13h is 780 minutes/],
    ['1d', /--expires is at most 12h \(720 minutes\); 1d is 1440 minutes/],
    ['90s', /--expires must be a duration in whole minutes such as 30m, 1h or 12h \(at most 12h\)/],
    ['0m', /--expires must be a duration/],
    ['1 hour', /--expires must be a duration/],
    ['-5m', /--expires must be a duration/],
  ])('refuses %j naming the flag and the limit', (value, message) => {
    expect(() => expiresArgument(value)).toThrow(message);
  });

  it('writes minutes back as the flag takes them', () => {
    expect([minutesText(30), minutesText(60), minutesText(90), minutesText(720)]).toEqual([
      '30m',
      '1h',
      '1h30m',
      '12h',
    ]);
  });
});

describe('gridwire console', () => {
  it('asks the API for an operator session and prints the console link and its expiry', async () => {
    sessionsAnswer({ role: 'operator' });
    const printed = await gridwire('console', '--expires', '30m');
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/admin/sessions',
        body: { scope: { role: 'operator' }, expiresInMinutes: 30 },
        authorization: expect.stringMatching(
          /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\//,
        ),
      },
    ]);
    expect(printed.split('\n')).toEqual([
      `Console  ${scripted.api}/console#token=v1.tok%2Fen%2B1`,
      `Expires  ${EXPIRES} (in 30m)`,
      "Anyone with this link can operate the stack until then. 'gridwire sessions revoke-all' ends every session made so far.",
    ]);
  });

  it('lasts an hour unless told, and prints the session and its url with --json', async () => {
    sessionsAnswer({ role: 'operator' });
    const printed = JSON.parse(await gridwire('console', '--json'));
    expect(seen[0]?.body).toMatchObject({ expiresInMinutes: 60 });
    expect(printed).toEqual({
      url: `${scripted.api}/console#token=v1.tok%2Fen%2B1`,
      id: 'session-1',
      token: 'v1.tok/en+1',
      expiresAt: EXPIRES,
      scope: { role: 'operator' },
    });
  });

  it('refuses a bad --expires before calling the API', async () => {
    await expect(gridwire('console', '--expires', '2d')).rejects.toThrow(
      /option '--expires <duration>' argument '2d' is invalid\. --expires is at most 12h/,
    );
    expect(seen).toEqual([]);
  });

  it("shows the API's error, and says when the API makes no sessions", async () => {
    answers['POST /admin/sessions'] = {
      status: 503,
      body: {
        error: {
          message: 'This stack has no session key, so it makes and accepts no console or portal sessions.',
        },
      },
    };
    await expect(gridwire('console')).rejects.toThrow(
      new CliError(
        `making a console link on ${scripted.api} failed: HTTP 503: This stack has no session key, so it makes and accepts no console or portal sessions.`,
      ),
    );
    delete answers['POST /admin/sessions'];
    await expect(gridwire('console')).rejects.toThrow(
      /makes no sessions \(no POST \/admin\/sessions\); deploy this version of Gridwire first/,
    );
  });
});

describe('gridwire portal-link', () => {
  const TOPIC = 'GET /admin/topics/orders';

  it('asks for a portal session of a topic, its labels and permissions, and prints the portal link', async () => {
    answers[TOPIC] = { status: 200, body: { name: 'orders' } };
    sessionsAnswer({
      role: 'portal',
      topic: 'orders',
      labels: ['tenant=acme', 'team=web'],
      permissions: ['pause', 'resend'],
    });
    const printed = await gridwire(
      'portal-link',
      '--topic',
      'orders',
      '--label',
      'tenant=acme',
      '--label',
      'team=web',
      '--permission',
      'pause,resend',
      '--expires',
      '12h',
    );
    expect(seen.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: 'GET', path: '/admin/topics/orders', body: undefined },
      {
        method: 'POST',
        path: '/admin/sessions',
        body: {
          scope: {
            role: 'portal',
            topic: 'orders',
            labels: ['tenant=acme', 'team=web'],
            permissions: ['pause', 'resend'],
          },
          expiresInMinutes: 720,
        },
      },
    ]);
    expect(printed.split('\n')).toEqual([
      `Portal   ${scripted.api}/portal#token=v1.tok%2Fen%2B1`,
      'Scope    topic orders: subscriptions labelled tenant=acme, team=web',
      'May      read, pause, resend',
      `Expires  ${EXPIRES} (in 12h)`,
      "Anyone with this link can use the portal in this scope until then. 'gridwire sessions revoke-all' ends every session made so far.",
    ]);
  });

  it('leaves the permissions to the API unless given; --read-only asks for none', async () => {
    answers['GET /admin/namespaces/shop'] = { status: 200, body: { name: 'shop' } };
    sessionsAnswer({ role: 'portal', namespace: 'shop', labels: [], permissions: [] });
    const printed = await gridwire('portal-link', '--namespace', 'shop', '--read-only');
    expect(seen[1]?.body).toEqual({
      scope: { role: 'portal', namespace: 'shop', permissions: [] },
      expiresInMinutes: 60,
    });
    expect(printed).toContain('\nScope    namespace shop: every subscription\nMay      only read\n');
    expect(portalScopeOf({ topic: 'orders' })).toEqual({ role: 'portal', topic: 'orders' });
    expect(portalScopeOf({ namespace: 'shop', label: ['tenant=acme'] })).toEqual({
      role: 'portal',
      namespace: 'shop',
      labels: ['tenant=acme'],
    });
  });

  it.each([
    [[], /give --topic \(a topic\) or --namespace \(every topic of a namespace\)/],
    [['--topic', 'orders', '--namespace', 'shop'], /--topic and --namespace both given/],
    [
      ['--topic', 'orders', '--read-only', '--permission', 'pause'],
      /--read-only and --permission both given/,
    ],
    [
      ['--topic', 'orders', '--permission', 'delete'],
      /--permission: 'delete' is none of write, pause, rotateSecret, resend, replay, sendTest/,
    ],
    [
      ['--topic', 'orders', '--label', 'x'.repeat(129)],
      /--label: the label 'x+…' is 129 characters long; the limit is 128/,
    ],
    [
      ['--topic', 'orders', '--label', Array.from({ length: 21 }, (_, n) => `l${n}`).join(',')],
      /--label: at most 20 labels \(21 given\)/,
    ],
  ])('refuses %j naming the flag, before calling the API', async (args, message) => {
    await expect(gridwire('portal-link', ...args)).rejects.toThrow(message);
    expect(seen).toEqual([]);
  });

  it('refuses a topic that does not exist, and shows the API’s refusal of the scope', async () => {
    await expect(gridwire('portal-link', '--topic', 'order')).rejects.toThrow(
      new CliError(`no topic 'order' on ${scripted.api}`),
    );
    answers[TOPIC] = { status: 200, body: { name: 'orders' } };
    answers['POST /admin/sessions'] = {
      status: 400,
      body: { error: { message: 'scope.labels: at most 20 labels.' } },
    };
    await expect(gridwire('portal-link', '--topic', 'orders')).rejects.toThrow(
      `making a portal link on ${scripted.api} failed: HTTP 400: scope.labels: at most 20 labels.`,
    );
  });

  it('takes every permission the API knows', () => {
    expect(permissionArgument(PORTAL_PERMISSIONS.join(','))).toEqual([...PORTAL_PERMISSIONS]);
    expect(permissionArgument('replay', ['pause', 'replay'])).toEqual(['pause', 'replay']);
  });
});

describe('gridwire sessions revoke-all', () => {
  it('asks the API to revoke every session and prints what it answered', async () => {
    answers['POST /admin/sessions/revokeAll'] = {
      status: 200,
      body: { revokedAt: '2026-06-01T12:00:00.000Z', note: 'Every session made before now is refused.' },
    };
    expect(await gridwire('sessions', 'revoke-all')).toBe(
      'Sessions revoked at 2026-06-01T12:00:00.000Z. Every session made before now is refused.',
    );
    expect(seen.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['POST', '/admin/sessions/revokeAll', undefined],
    ]);
    expect(JSON.parse(await gridwire('sessions', 'revoke-all', '--json'))).toEqual(
      answers['POST /admin/sessions/revokeAll']?.body,
    );
  });
});

describe('the console link gridwire start prints', () => {
  /** A target answering `POST /admin/sessions` with `answer`, recording what it was sent. */
  const target = (answer: { status: number; body: unknown } | Error) => {
    const bodies: unknown[] = [];
    const api = apiTarget({
      where: 'the local stack',
      url: 'http://127.0.0.1:4000',
      call: async (method, path, body) => {
        bodies.push({ method, path, body: JSON.parse(body ?? 'null') });
        if (answer instanceof Error) throw answer;
        return { status: answer.status, text: JSON.stringify(answer.body) };
      },
    });
    return { api, bodies };
  };

  it('is an operator session of 12 hours made on the stack, with a hint for a new one', async () => {
    const { api: stack, bodies } = target({
      status: 201,
      body: { id: 's', token: 'tok', expiresAt: EXPIRES, scope: { role: 'operator' } },
    });
    expect(await startConsoleLines(stack)).toEqual([
      '  Console      http://127.0.0.1:4000/console#token=tok',
      `               (works until ${EXPIRES}; gridwire console makes a new link)`,
    ]);
    expect(START_CONSOLE_MINUTES).toBe(720);
    expect(bodies).toEqual([
      {
        method: 'POST',
        path: '/admin/sessions',
        body: { scope: { role: 'operator' }, expiresInMinutes: 720 },
      },
    ]);
  });

  it('is a line saying why when the stack makes no session, instead of an error', async () => {
    expect(
      await startConsoleLines(
        target({ status: 503, body: { error: { message: 'This stack has no session key.' } } }).api,
      ),
    ).toEqual([
      '  Console      no link: making a console link failed: HTTP 503: This stack has no session key.  (gridwire console makes one)',
    ]);
    expect(await startConsoleLines(target(new CliError('could not reach the local stack')).api)).toEqual([
      '  Console      no link: could not reach the local stack  (gridwire console makes one)',
    ]);
  });

  it('needs a token in the answer', async () => {
    await expect(
      createSession(target({ status: 201, body: {} }).api, { role: 'operator' }, 1, 'making a link'),
    ).rejects.toThrow('making a link failed: the answer of the local stack has no token');
  });
});

describe('--labels of subscription create and update', () => {
  it('takes labels separated by spaces or commas, without repeats', async () => {
    answers['PUT /admin/topics/orders/eventSubscriptions/billing'] = {
      status: 201,
      body: {
        name: 'billing',
        properties: { provisioningState: 'Succeeded', labels: ['tenant=acme', 'team=web', 'beta'] },
      },
    };
    const printed = await gridwire(
      'subscription',
      'create',
      '--topic',
      'orders',
      '--name',
      'billing',
      '--endpoint',
      'https://hooks.example.test/in',
      '--labels',
      'tenant=acme,team=web',
      'beta',
      'tenant=acme',
    );
    expect((seen[0]?.body as { properties?: { labels?: string[] } } | undefined)?.properties?.labels).toEqual(
      ['tenant=acme', 'team=web', 'beta'],
    );
    expect(printed).toContain('\nlabels:      tenant=acme, team=web, beta');
  });

  it('refuses too many or too long labels naming --labels', () => {
    const parse = labelsArgument('--labels');
    expect(() => parse('k'.repeat(129), undefined)).toThrow(
      /--labels: the label 'k+…' is 129 characters long; the limit is 128/,
    );
    expect(() =>
      parse(
        'l20',
        Array.from({ length: 20 }, (_, n) => `l${n}`),
      ),
    ).toThrow('--labels: at most 20 labels (21 given).');
  });

  it('--no-labels removes them; an update that names none keeps them', () => {
    const base = { properties: { labels: ['tenant=acme'] } };
    expect(classicSubscriptionBody({ labels: false }, base).properties).toMatchObject({ labels: [] });
    expect(classicSubscriptionBody({ maxDeliveryAttempts: 3 }, base).properties).toMatchObject({
      labels: ['tenant=acme'],
    });
    // Namespace subscriptions alike.
    const push = { properties: { deliveryConfiguration: { push: {} }, labels: ['tenant=acme'] } };
    expect(namespaceSubscriptionBody({ labels: ['tenant=globex'] }, push).properties).toMatchObject({
      labels: ['tenant=globex'],
    });
    expect(namespaceSubscriptionBody({ labels: false }, push).properties).toMatchObject({ labels: [] });
    const kept = namespaceBodyOf(
      {
        properties: {
          deliveryConfiguration: { push: { destination: { endpointType: 'WebHook', properties: {} } } },
          labels: ['tenant=acme'],
        },
      },
      { endpointUrl: 'https://hooks.example.test/in' },
      {},
    );
    expect(namespaceSubscriptionBody({ maxDeliveryAttempts: 3 }, kept).properties).toMatchObject({
      labels: ['tenant=acme'],
    });
  });

  it('subscription list shows a LABELS column when a subscription has labels', () => {
    const document = (name: string, labels?: string[]): SubscriptionDocument => ({
      name,
      properties: {
        provisioningState: 'Succeeded',
        destination: { properties: { endpointBaseUrl: `https://hooks.example.test/${name}` } },
        ...(labels === undefined ? {} : { labels }),
      },
    });
    expect(formatSubscriptionList({ topic: 'orders' }, [document('a'), document('b', [])])).not.toContain(
      'LABELS',
    );
    expect(
      formatSubscriptionList({ topic: 'orders' }, [
        document('a', ['tenant=acme', 'team=web']),
        document('b'),
      ]).split('\n'),
    ).toEqual([
      'NAME  STATE      ENDPOINT                      EVENT TYPES  LABELS',
      'a     Succeeded  https://hooks.example.test/a  all          tenant=acme,team=web',
      'b     Succeeded  https://hooks.example.test/b  all          -',
    ]);
  });
});
