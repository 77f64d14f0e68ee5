import { apiTarget } from '../../../cli/admin-api';
import { CliError } from '../../../cli/errors';
import { enableEndpoint, formatHealth, type SubscriptionHealth, topicHealth } from '../../../cli/health';
import { HEALTHY_DOCUMENT } from '../../support/fakes';

const healthy = { ...HEALTHY_DOCUMENT, endpointUrl: 'https://a.example.test/in' } as const;

const probation = {
  state: 'Probation',
  probationUntil: '2026-06-01T12:00:30.000Z',
  consecutiveFailures: 3,
  lastOutcome: 'Busy',
  lastFailureAt: '2026-06-01T12:00:00.000Z',
  lastSuccessAt: '2026-06-01T11:00:00.000Z',
  endpointUrl: 'https://b.example.test/in',
  failingSince: '2026-06-01T11:30:00.000Z',
  disabledAt: null,
  disabledReason: null,
  pausedAt: null,
  held: {
    events: 1200,
    oldestPublishedAt: '2026-06-01T10:00:00.000Z',
    until: '2026-06-01T12:00:30.000Z',
    state: 'Holding',
  },
} as const;

/** A management API answering from fixed documents, recording each call. */
function scriptedApi(answers: Record<string, { status: number; body: unknown }>) {
  const calls: string[] = [];
  const target = apiTarget({
    where: 'test',
    url: 'http://127.0.0.1:9',
    call: async (method, path) => {
      calls.push(`${method} ${path}`);
      const answer = answers[`${method} ${path}`] ?? {
        status: 404,
        body: { error: { code: 'NotFound', message: 'nothing here' } },
      };
      return { status: answer.status, text: JSON.stringify(answer.body) };
    },
  });
  return { target, calls };
}

const LIST = 'GET /admin/topics/orders/eventSubscriptions';
const list = (...names: string[]) => ({ status: 200, body: { value: names.map((name) => ({ name })) } });

describe('topicHealth', () => {
  it("reads each of the topic's subscriptions' health, in the listed order", async () => {
    const { target, calls } = scriptedApi({
      [LIST]: list('audit', 'billing'),
      'GET /admin/topics/orders/eventSubscriptions/audit/health': { status: 200, body: healthy },
      'GET /admin/topics/orders/eventSubscriptions/billing/health': { status: 200, body: probation },
    });
    expect(await topicHealth(target, { topic: 'orders' })).toEqual([
      { subscription: 'audit', ...healthy },
      { subscription: 'billing', ...probation },
    ]);
    expect(calls[0]).toBe(LIST);
    expect(calls).toHaveLength(3);
  });

  it('leaves out a subscription deleted between the list and its health read', async () => {
    const { target } = scriptedApi({
      [LIST]: list('audit', 'gone'),
      'GET /admin/topics/orders/eventSubscriptions/audit/health': { status: 200, body: healthy },
    });
    expect((await topicHealth(target, { topic: 'orders' })).map((row) => row.subscription)).toEqual([
      'audit',
    ]);
  });

  it('says what failed, with the API message, when the topic does not exist', async () => {
    const { target } = scriptedApi({
      [LIST]: {
        status: 404,
        body: { error: { code: 'NotFound', message: "The topic 'orders' does not exist." } },
      },
    });
    await expect(topicHealth(target, { topic: 'orders' })).rejects.toThrow(
      new CliError(
        "listing the subscriptions of topic orders failed: HTTP 404: The topic 'orders' does not exist.",
      ),
    );
  });

  it('fails on any other error reading a health document', async () => {
    const { target } = scriptedApi({
      [LIST]: list('audit'),
      'GET /admin/topics/orders/eventSubscriptions/audit/health': {
        status: 403,
        body: { message: 'Forbidden' },
      },
    });
    await expect(topicHealth(target, { topic: 'orders' })).rejects.toThrow(
      'reading the health of topic orders, subscription audit failed: HTTP 403: Forbidden (on AWS the caller needs execute-api:Invoke on /admin/*)',
    );
  });

  it('encodes names in the path', async () => {
    const { target, calls } = scriptedApi({});
    await expect(topicHealth(target, { topic: 'a/b' })).rejects.toThrow(CliError);
    expect(calls).toEqual(['GET /admin/topics/a%2Fb/eventSubscriptions']);
  });

  it("reads a namespace topic's subscriptions through the namespace routes", async () => {
    const base = '/admin/namespaces/shop/topics/orders/eventSubscriptions';
    const { target, calls } = scriptedApi({
      [`GET ${base}`]: list('audit', 'billing'),
      [`GET ${base}/audit/health`]: { status: 200, body: healthy },
      [`GET ${base}/billing/health`]: { status: 500, body: { message: 'Internal Server Error' } },
    });
    await expect(topicHealth(target, { namespace: 'shop', topic: 'orders' })).rejects.toThrow(
      'reading the health of namespace shop, topic orders, subscription billing failed: HTTP 500',
    );
    expect(calls).toEqual([`GET ${base}`, `GET ${base}/audit/health`, `GET ${base}/billing/health`]);
  });
});

describe('enableEndpoint', () => {
  it('posts to the enable route and answers the health document', async () => {
    const { target, calls } = scriptedApi({
      'POST /admin/topics/orders/eventSubscriptions/audit/enable': { status: 200, body: healthy },
    });
    expect(await enableEndpoint(target, { topic: 'orders', subscription: 'audit' })).toEqual({
      subscription: 'audit',
      ...healthy,
    });
    expect(calls).toEqual(['POST /admin/topics/orders/eventSubscriptions/audit/enable']);
  });

  it("posts to a namespace subscription's enable route", async () => {
    const route = 'POST /admin/namespaces/shop/topics/orders/eventSubscriptions/audit/enable';
    const { target, calls } = scriptedApi({ [route]: { status: 200, body: healthy } });
    const ref = { namespace: 'shop', topic: 'orders', subscription: 'audit' };
    expect(await enableEndpoint(target, ref)).toEqual({ subscription: 'audit', ...healthy });
    expect(calls).toEqual([route]);
  });

  it('says what failed', async () => {
    const { target } = scriptedApi({});
    await expect(enableEndpoint(target, { topic: 'orders', subscription: 'audit' })).rejects.toThrow(
      'enabling topic orders, subscription audit failed: HTTP 404: nothing here',
    );
  });
});

describe('formatHealth', () => {
  it('prints one aligned row per subscription, a dash for what is not known', () => {
    const rows: SubscriptionHealth[] = [
      { subscription: 'audit', ...healthy },
      { subscription: 'billing-ledger', ...probation },
    ];
    expect(formatHealth({ topic: 'orders' }, rows).split('\n')).toEqual([
      'SUBSCRIPTION    STATE      FAILURES  PROBATION UNTIL           LAST OUTCOME  LAST FAILURE              LAST SUCCESS              HELD          HELD UNTIL',
      'audit           Healthy    0         -                         -             -                         -                         -             -',
      'billing-ledger  Probation  3         2026-06-01T12:00:30.000Z  Busy          2026-06-01T12:00:00.000Z  2026-06-01T11:00:00.000Z  1200 Holding  2026-06-01T12:00:30.000Z',
    ]);
  });

  it('shows no probation end for a disabled endpoint: it takes nothing until enabled', () => {
    const rows: SubscriptionHealth[] = [
      { subscription: 'gone', ...probation, state: 'Disabled', lastOutcome: 'Disabled', held: null },
    ];
    expect(formatHealth({ topic: 'orders' }, rows).split('\n')[1]).toMatch(
      /^gone +Disabled +3 +- +Disabled /,
    );
  });

  it('shows an endpoint that has not agreed to receive, and why, in place of its health', () => {
    const rows: SubscriptionHealth[] = [
      { subscription: 'validated', ...healthy, provisioningState: 'Succeeded' },
      {
        subscription: 'waiting',
        ...healthy,
        provisioningState: 'AwaitingManualAction',
        endpointValidation: {
          startedAt: '2026-06-01T12:00:00.000Z',
          validationUrlExpiresAt: '2026-06-01T12:05:00.000Z',
          handshakeError: 'The endpoint answered 403',
        },
      },
      { subscription: 'failed', ...healthy, provisioningState: 'Failed' },
    ];
    const [, validated, waiting, failed] = formatHealth({ topic: 'orders' }, rows).split('\n');
    expect(validated).toMatch(/^validated +Healthy +0 /);
    expect(waiting).toMatch(
      /^waiting +AwaitingManualAction \(not validated: The endpoint answered 403\) +0 /,
    );
    expect(failed).toMatch(/^failed +Failed \(not validated\) +0 /);
  });

  it("shows a backlog's events without a wake, and a dash from an API that does not tell", () => {
    const { held: _held, ...older } = healthy;
    const rows = [
      {
        subscription: 'audit',
        ...healthy,
        held: { events: 7, oldestPublishedAt: '2026-06-01T10:00:00.000Z', state: 'Draining' },
      },
      { subscription: 'older', ...older } as SubscriptionHealth,
    ] as SubscriptionHealth[];
    const [, audit, old] = formatHealth({ topic: 'orders' }, rows).split('\n');
    expect(audit?.endsWith('7 Draining  -')).toBe(true);
    expect(old?.endsWith('-           -')).toBe(true);
  });

  it('says when the topic has no subscriptions', () => {
    expect(formatHealth({ topic: 'orders' }, [])).toBe('Topic orders has no event subscriptions.');
    expect(formatHealth({ namespace: 'shop', topic: 'orders' }, [])).toBe(
      'Topic orders of namespace shop has no event subscriptions.',
    );
  });
});
