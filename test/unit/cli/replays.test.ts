/**
 * `gridwire events replay|replays|recover`: replays from a topic's archive started, listed, shown,
 * cancelled and followed (`--wait`), and bulk recovery following `nextUntil` to the start of the
 * range. Run through the program against a scripted API on a local port (with `--api`, so each
 * request is signed as on AWS); the waits of `--wait` are real, the scripted replay ending at
 * the first or second look.
 */
import { apiTarget } from '../../../cli/admin-api';
import { type RecoverAnswer, recoverRange } from '../../../cli/recover';
import type { ProgressIo, ReplayDocument } from '../../../cli/replays';
import { type ScriptedAnswer, scriptedApi } from '../../support/scripted-api';

/** The API: its answers by `METHOD /path`, in turn (the last one repeated); anything else is a 404. */
const { answers, seen, gridwire } = scriptedApi<ScriptedAnswer[]>();

afterEach(() => {
  process.exitCode = undefined;
});

const SUB = '/admin/topics/orders/eventSubscriptions/billing';
const NS_SUB = '/admin/namespaces/shop/topics/carts/eventSubscriptions/billing';
const WHO = ['--topic', 'orders', '--subscription', 'billing'];

const replay = (changes: Partial<ReplayDocument> = {}): ReplayDocument => ({
  id: 'rp-1',
  state: 'Running',
  since: '2026-12-01T08:00:00.000Z',
  until: '2026-12-01T10:00:00.000Z',
  eventsFound: 0,
  eventsQueued: 0,
  createdAt: '2026-12-01T10:00:00.000Z',
  lastModifiedAt: '2026-12-01T10:00:00.000Z',
  ...changes,
});

describe('gridwire events replay', () => {
  it('starts a replay from a time that long ago, with the event types given, and prints its id and state', async () => {
    answers[`POST ${SUB}/replays`] = [{ status: 202, body: replay({ eventTypes: ['a', 'b', 'c'] }) }];
    const before = Date.now();
    const printed = await gridwire(
      'events',
      'replay',
      ...WHO,
      '--since',
      '2h',
      '--event-types',
      'a,b',
      '--event-types',
      'c',
    );
    const body = seen[0]?.body as { since: string; eventTypes: string[] };
    expect(Object.keys(body).sort()).toEqual(['eventTypes', 'since']);
    expect(body.eventTypes).toEqual(['a', 'b', 'c']);
    const since = Date.parse(body.since);
    expect(since).toBeGreaterThanOrEqual(before - 2 * 3_600_000);
    expect(since).toBeLessThanOrEqual(Date.now() - 2 * 3_600_000);
    expect(printed.split('\n')).toEqual([
      'Replay rp-1 of topic orders, subscription billing: Running, events published from 2026-12-01T08:00:00.000Z to 2026-12-01T10:00:00.000Z, event types a, b, c.',
      'Follow it: gridwire events replays show rp-1 --topic orders --subscription billing',
    ]);
  });

  it("starts one on a namespace topic's subscription with --until, and prints the API's document with --json", async () => {
    answers[`POST ${NS_SUB}/replays`] = [{ status: 202, body: replay() }];
    const printed = await gridwire(
      'events',
      'replay',
      '--namespace',
      'shop',
      '--topic',
      'carts',
      '--subscription',
      'billing',
      '--since',
      '2026-12-01T08:00:00Z',
      '--until',
      '2026-12-01T10:00:00Z',
      '--json',
    );
    expect(seen.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      {
        method: 'POST',
        path: `${NS_SUB}/replays`,
        body: { since: '2026-12-01T08:00:00Z', until: '2026-12-01T10:00:00Z' },
      },
    ]);
    expect(JSON.parse(printed)).toEqual(replay());
  });

  it('says what the API refused, with its message (a topic without an archive, three running, a bad time)', async () => {
    answers[`POST ${SUB}/replays`] = [
      {
        status: 400,
        body: {
          error: {
            code: 'NoArchive',
            message: "The topic 'orders' keeps no archive, so there is nothing to replay.",
          },
        },
      },
      {
        status: 409,
        body: { error: { code: 'Conflict', message: 'The subscription has 3 replays running.' } },
      },
    ];
    await expect(gridwire('events', 'replay', ...WHO, '--since', '1h')).rejects.toThrow(
      "starting a replay for topic orders, subscription billing failed: HTTP 400: The topic 'orders' keeps no archive, so there is nothing to replay.",
    );
    await expect(gridwire('events', 'replay', ...WHO, '--since', '1h')).rejects.toThrow(
      'failed: HTTP 409: The subscription has 3 replays running.',
    );
    await expect(gridwire('events', 'replay', ...WHO, '--since', 'yesterday')).rejects.toThrow(
      /--since must be an ISO 8601 time/,
    );
    await expect(gridwire('events', 'replay', ...WHO)).rejects.toThrow(/--since <time>' not specified/);
  });

  it('with --wait, follows the replay until it is over and prints what it found, queued and delivered', async () => {
    answers[`POST ${SUB}/replays`] = [{ status: 202, body: replay() }];
    answers[`GET ${SUB}/replays/rp-1`] = [
      { status: 200, body: replay({ eventsFound: 40, eventsQueued: 20, eventsDelivered: 5 }) },
      {
        status: 200,
        body: replay({
          state: 'Completed',
          eventsFound: 50,
          eventsQueued: 45,
          eventsDelivered: 45,
          lastModifiedAt: '2026-12-01T10:00:09.000Z',
        }),
      },
    ];
    const printed = await gridwire('events', 'replay', ...WHO, '--since', '2h', '--wait');
    expect(seen.filter(({ method }) => method === 'GET')).toHaveLength(2);
    expect(printed.split('\n')).toEqual([
      'Replay rp-1 of topic orders, subscription billing: Running, events published from 2026-12-01T08:00:00.000Z to 2026-12-01T10:00:00.000Z.',
      'Replay rp-1: Completed.',
      'events published from 2026-12-01T08:00:00.000Z to 2026-12-01T10:00:00.000Z',
      'events: 50 found, 45 queued, 45 delivered',
      'started 2026-12-01T10:00:00.000Z, last changed 2026-12-01T10:00:09.000Z',
    ]);
    expect(process.exitCode).toBeUndefined();
  });

  it('with --wait, a replay that fails exits with code 1, and a count the API does not give is left out', async () => {
    answers[`POST ${SUB}/replays`] = [{ status: 202, body: replay() }];
    answers[`GET ${SUB}/replays/rp-1`] = [
      {
        status: 200,
        body: replay({ state: 'Failed', reason: 'the archive could not be read', eventsFound: 3 }),
      },
    ];
    const printed = await gridwire('events', 'replay', ...WHO, '--since', '2h', '--wait', '--json');
    expect(JSON.parse(printed)).toMatchObject({ state: 'Failed', reason: 'the archive could not be read' });
    expect(process.exitCode).toBe(1);
    process.exitCode = undefined;
    const text = await gridwire('events', 'replay', ...WHO, '--since', '2h', '--wait');
    expect(text).toContain('Replay rp-1: Failed (the archive could not be read).');
    expect(text).toContain('events: 3 found, 0 queued\n');
  });
});

describe('gridwire events replays', () => {
  const listed = [
    replay({ id: 'rp-2', state: 'Running', eventsFound: 120, eventsQueued: 100, eventsDelivered: 80 }),
    replay({ id: 'rp-1', state: 'Cancelled', eventTypes: ['order.created', 'order.paid'], eventsFound: 7 }),
  ];

  it('lists the replays, with or without the word list', async () => {
    answers[`GET ${SUB}/replays`] = [{ status: 200, body: { value: listed } }];
    const table = [
      'ID    STATE      SINCE                     UNTIL                     EVENT TYPES               FOUND  QUEUED  DELIVERED  STARTED',
      'rp-2  Running    2026-12-01T08:00:00.000Z  2026-12-01T10:00:00.000Z  (all)                       120     100         80  2026-12-01T10:00:00.000Z',
      'rp-1  Cancelled  2026-12-01T08:00:00.000Z  2026-12-01T10:00:00.000Z  order.created,order.paid      7       0  -          2026-12-01T10:00:00.000Z',
    ];
    expect((await gridwire('events', 'replays', ...WHO)).split('\n')).toEqual(table);
    expect((await gridwire('events', 'replays', 'list', ...WHO)).split('\n')).toEqual(table);
    expect(JSON.parse(await gridwire('events', 'replays', ...WHO, '--json'))).toEqual({ value: listed });
    answers[`GET ${NS_SUB}/replays`] = [{ status: 200, body: { value: [] } }];
    expect(
      await gridwire(
        'events',
        'replays',
        '--namespace',
        'shop',
        '--topic',
        'carts',
        '--subscription',
        'billing',
      ),
    ).toBe('No replays of namespace shop, topic carts, subscription billing.');
  });

  it('shows one replay, and says when there is none of that id', async () => {
    answers[`GET ${SUB}/replays/rp-2`] = [{ status: 200, body: listed[0] }];
    expect((await gridwire('events', 'replays', 'show', 'rp-2', ...WHO)).split('\n')).toEqual([
      'Replay rp-2: Running.',
      'events published from 2026-12-01T08:00:00.000Z to 2026-12-01T10:00:00.000Z',
      'events: 120 found, 100 queued, 80 delivered',
      'started 2026-12-01T10:00:00.000Z, last changed 2026-12-01T10:00:00.000Z',
    ]);
    answers[`GET ${SUB}/replays/rp-9`] = [
      { status: 404, body: { error: { code: 'NotFound', message: "The replay 'rp-9' does not exist." } } },
    ];
    await expect(gridwire('events', 'replays', 'show', 'rp-9', ...WHO)).rejects.toThrow(
      "reading replay 'rp-9' of topic orders, subscription billing failed: HTTP 404: The replay 'rp-9' does not exist.",
    );
  });

  it('cancels a running replay, and says when it had already ended', async () => {
    answers[`DELETE ${SUB}/replays/rp-2`] = [{ status: 200 }];
    answers[`GET ${SUB}/replays/rp-2`] = [
      { status: 200, body: { ...listed[0], state: 'Cancelled', reason: 'cancelled (DELETE)' } },
    ];
    const cancelled = await gridwire('events', 'replays', 'cancel', 'rp-2', ...WHO);
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `DELETE ${SUB}/replays/rp-2`,
      `GET ${SUB}/replays/rp-2`,
    ]);
    expect(cancelled.split('\n').slice(0, 2)).toEqual([
      'Replay rp-2 cancelled; the events it queued already are still delivered.',
      'Replay rp-2: Cancelled (cancelled (DELETE)).',
    ]);
    answers[`DELETE ${SUB}/replays/rp-1`] = [{ status: 204 }];
    answers[`GET ${SUB}/replays/rp-1`] = [{ status: 200, body: listed[1] }];
    expect((await gridwire('events', 'replays', 'cancel', 'rp-1', ...WHO)).split('\n')[0]).toBe(
      'Replay rp-1 had already ended: nothing to cancel.',
    );
    expect(JSON.parse(await gridwire('events', 'replays', 'cancel', 'rp-1', ...WHO, '--json'))).toEqual(
      listed[1],
    );
  });
});

/** A recover answer: nothing done, with `changes` over it. */
const recovered = (changes: Partial<RecoverAnswer> = {}): RecoverAnswer => ({
  since: '2026-12-01T00:00:00.000Z',
  until: '2026-12-01T10:00:00.000Z',
  dryRun: false,
  eventsQueued: 0,
  deadLetters: { blobsSelected: 0, recordsMatched: 0, eventsQueued: 0, blobsSkipped: 0, failedKeys: [] },
  dropped: {
    deliveries: 0,
    matched: 0,
    eventsQueued: 0,
    alreadyRecovered: 0,
    withoutText: 0,
    filteredOut: 0,
  },
  ...changes,
});

describe('gridwire events recover', () => {
  it('calls again with until at each nextUntil until the range is covered, and prints the totals', async () => {
    answers[`POST ${SUB}/recover`] = [
      {
        status: 200,
        body: recovered({
          eventsQueued: 13,
          deadLetters: {
            blobsSelected: 4,
            recordsMatched: 9,
            eventsQueued: 9,
            blobsSkipped: 1,
            failedKeys: ['dead/b.json'],
          },
          dropped: {
            deliveries: 6,
            matched: 4,
            eventsQueued: 4,
            alreadyRecovered: 0,
            withoutText: 1,
            filteredOut: 1,
          },
          nextUntil: '2026-12-01T06:00:00.000Z',
        }),
      },
      {
        status: 200,
        body: recovered({
          until: '2026-12-01T06:00:00.000Z',
          eventsQueued: 3,
          // The same blobs again, replayed by the first call now; one that failed fails again.
          deadLetters: {
            blobsSelected: 3,
            recordsMatched: 0,
            eventsQueued: 0,
            blobsSkipped: 2,
            failedKeys: ['dead/b.json'],
          },
          dropped: {
            deliveries: 5,
            matched: 5,
            eventsQueued: 3,
            alreadyRecovered: 2,
            withoutText: 0,
            filteredOut: 0,
          },
          nextUntil: '2026-12-01T02:00:00.000Z',
        }),
      },
      {
        status: 200,
        body: recovered({
          until: '2026-12-01T02:00:00.000Z',
          eventsQueued: 1,
          deadLetters: {
            blobsSelected: 1,
            recordsMatched: 0,
            eventsQueued: 0,
            blobsSkipped: 1,
            failedKeys: [],
          },
          dropped: {
            deliveries: 1,
            matched: 1,
            eventsQueued: 1,
            alreadyRecovered: 0,
            withoutText: 0,
            filteredOut: 0,
          },
        }),
      },
    ];
    const printed = await gridwire('events', 'recover', ...WHO, '--since', '2026-12-01T00:00:00Z');
    expect(seen.map(({ body }) => body)).toEqual([
      { since: '2026-12-01T00:00:00Z' },
      { since: '2026-12-01T00:00:00Z', until: '2026-12-01T06:00:00.000Z' },
      { since: '2026-12-01T00:00:00Z', until: '2026-12-01T02:00:00.000Z' },
    ]);
    expect(printed.split('\n')).toEqual([
      'Recovery of topic orders, subscription billing, from 2026-12-01T00:00:00.000Z to 2026-12-01T10:00:00.000Z (3 calls):',
      '  dead-letter events queued   9  from 4 blobs; 1 replayed before, left out',
      '  dropped deliveries queued   8  of 12 dropped',
      '  already recovered           2  left out',
      '  without text                1  logged without the event (over 64 KiB): cannot be sent again',
      "  left out by the filter      1  the subscription's filter as it is now",
      '  events queued in all       17',
      '1 dead-letter blob failed (gridwire deadletters show <key> --topic orders --subscription billing):',
      '  dead/b.json',
    ]);
    expect(process.exitCode).toBe(1);
  });

  it('in a dry run, counts what would be queued, dead letters once; --json prints the totals', async () => {
    answers[`POST ${NS_SUB}/recover`] = [
      {
        status: 200,
        body: recovered({
          dryRun: true,
          deadLetters: {
            blobsSelected: 2,
            recordsMatched: 6,
            eventsQueued: 0,
            blobsSkipped: 0,
            failedKeys: [],
          },
          dropped: {
            deliveries: 3,
            matched: 3,
            eventsQueued: 0,
            alreadyRecovered: 0,
            withoutText: 0,
            filteredOut: 0,
          },
          nextUntil: '2026-12-01T05:00:00.000Z',
        }),
      },
      {
        status: 200,
        body: recovered({
          dryRun: true,
          until: '2026-12-01T05:00:00.000Z',
          deadLetters: {
            blobsSelected: 1,
            recordsMatched: 2,
            eventsQueued: 0,
            blobsSkipped: 0,
            failedKeys: [],
          },
          dropped: {
            deliveries: 2,
            matched: 1,
            eventsQueued: 0,
            alreadyRecovered: 0,
            withoutText: 1,
            filteredOut: 0,
          },
        }),
      },
    ];
    const ns = ['--namespace', 'shop', '--topic', 'carts', '--subscription', 'billing'];
    const args = [
      'events',
      'recover',
      ...ns,
      '--since',
      '2026-12-01T00:00:00Z',
      '--until',
      '2026-12-01T10:00:00Z',
    ];
    const printed = await gridwire(...args, '--dry-run');
    expect(seen[0]?.body).toEqual({
      since: '2026-12-01T00:00:00Z',
      until: '2026-12-01T10:00:00Z',
      dryRun: true,
    });
    expect(printed.split('\n')).toEqual([
      'Dry run, nothing queued: recovery of namespace shop, topic carts, subscription billing, from 2026-12-01T00:00:00.000Z to 2026-12-01T10:00:00.000Z (2 calls):',
      '  dead-letter events to queue  6  from 2 blobs',
      '  dropped deliveries to queue  4  of 5 dropped; those recovered before are left out when queued',
      '  without text                 1  logged without the event (over 64 KiB): cannot be sent again',
      "  left out by the filter       0  the subscription's filter as it is now",
    ]);
    expect(process.exitCode).toBeUndefined();
    seen.length = 0;
    answers[`POST ${NS_SUB}/recover`] = [
      {
        status: 200,
        body: recovered({ dryRun: true, deadLetters: null, nextUntil: '2026-12-01T05:00:00.000Z' }),
      },
      {
        status: 200,
        body: recovered({ dryRun: true, deadLetters: null, until: '2026-12-01T05:00:00.000Z' }),
      },
    ];
    expect(JSON.parse(await gridwire(...args, '--dry-run', '--json'))).toEqual({
      ...recovered({ dryRun: true, deadLetters: null }),
      calls: 2,
    });
    expect(await gridwire(...args)).toContain(
      'No dead letters: the subscription has no dead-letter destination (what fails is dropped).',
    );
  });

  it('says what the API refused', async () => {
    answers[`POST ${SUB}/recover`] = [
      { status: 400, body: { error: { code: 'BadRequest', message: 'until: must not be in the future.' } } },
    ];
    await expect(gridwire('events', 'recover', ...WHO, '--since', '1h')).rejects.toThrow(
      'recovering the events of topic orders, subscription billing failed: HTTP 400: until: must not be in the future.',
    );
  });
});

describe('recoverRange', () => {
  const target = (answers: Array<{ status: number; text: string; retryAfter?: string }>) => {
    const bodies: unknown[] = [];
    const api = apiTarget({
      where: 'test',
      url: 'http://test',
      call: async (_method, _path, body) => {
        bodies.push(JSON.parse(body ?? 'null'));
        const next = answers.shift() as { status: number; text: string; retryAfter?: string };
        return {
          status: next.status,
          text: next.text,
          headers: new Headers(next.retryAfter === undefined ? {} : { 'retry-after': next.retryAfter }),
        };
      },
    });
    return { api, bodies };
  };
  const io = () => {
    const slept: number[] = [];
    const progress: string[] = [];
    const terminal: ProgressIo = {
      progress: (line) => progress.push(line),
      progressDone: () => {},
      sleep: async (ms) => {
        slept.push(ms);
      },
    };
    return { terminal, slept, progress };
  };
  const ref = { topic: 'orders', subscription: 'billing', since: '2026-12-01T00:00:00Z' };
  const limited = { status: 429, text: '{"error":{"message":"Too many recover calls"}}', retryAfter: '7' };

  it("waits out the route's limit (Retry-After) and calls again, then goes on", async () => {
    const { api, bodies } = target([
      {
        status: 200,
        text: JSON.stringify(recovered({ eventsQueued: 2, nextUntil: '2026-12-01T04:00:00.000Z' })),
      },
      limited,
      { status: 200, text: JSON.stringify(recovered({ eventsQueued: 1 })) },
    ]);
    const { terminal, slept, progress } = io();
    const totals = await recoverRange(api, ref, terminal);
    expect(totals).toMatchObject({ eventsQueued: 3, calls: 2 });
    expect(slept).toEqual([7000]);
    expect(progress).toContain("the API's recover limit for this subscription: waiting 7 s");
    expect(bodies.slice(1)).toEqual([
      { since: ref.since, until: '2026-12-01T04:00:00.000Z' },
      { since: ref.since, until: '2026-12-01T04:00:00.000Z' },
    ]);
  });

  it('gives up after refusals in a row, saying what the calls before it queued', async () => {
    const { api } = target([
      {
        status: 200,
        text: JSON.stringify(recovered({ eventsQueued: 2, nextUntil: '2026-12-01T04:00:00.000Z' })),
      },
      ...Array.from({ length: 6 }, () => ({ ...limited })),
    ]);
    const { terminal, slept } = io();
    await expect(recoverRange(api, ref, terminal)).rejects.toThrow(
      /HTTP 429: Too many recover calls\n2 events queued by the calls before it stay queued/,
    );
    expect(slept).toHaveLength(5);
  });

  it('stops when nextUntil does not move the range back, rather than calling for ever', async () => {
    const { api } = target([
      { status: 200, text: JSON.stringify(recovered({ nextUntil: '2026-12-01T10:00:00.000Z' })) },
    ]);
    await expect(recoverRange(api, ref, io().terminal)).rejects.toThrow(
      /the API answered nextUntil 2026-12-01T10:00:00.000Z, not before the range's end it was given \(2026-12-01T10:00:00.000Z\)/,
    );
  });
});
