import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  apiTarget,
  regionOfApiUrl,
  sigV4Target,
  subscriptionAdminPath,
  subscriptionsAdminPath,
} from '../../../cli/admin-api';
import {
  type BlobReplayAnswer,
  formatBlob,
  formatListing,
  indentJson,
  listDeadLetters,
  type ReplayIo,
  replayDeadLetters,
  showDeadLetters,
} from '../../../cli/deadletters';
import { CliError } from '../../../cli/errors';

describe('indentJson', () => {
  it('indents without parsing: numbers, escapes and brackets in strings stay as written', () => {
    const text = '{"a":9007199254740993,"b":[1.50,{}],"c":"x, [y]: {z} \\" ]","d":[]}';
    expect(indentJson(text)).toBe(
      [
        '{',
        '  "a": 9007199254740993,',
        '  "b": [',
        '    1.50,',
        '    {}',
        '  ],',
        '  "c": "x, [y]: {z} \\" ]",',
        '  "d": []',
        '}',
      ].join('\n'),
    );
  });

  it('shows a blob record by record', () => {
    expect(formatBlob({ key: 'dead/A/1.json', records: ['{"id":"e1"}'] })).toBe(
      'dead/A/1.json: 1 record, not replayed\n\nRecord 1 of 1:\n{\n  "id": "e1"\n}',
    );
  });

  it('prints a record stored nested 100,000 levels deep as stored, saying why, instead of failing', () => {
    const deep = `{"id":"e2","data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const shown = formatBlob({ key: 'dead/A/2.json', records: ['{"id":"e1"}', deep] });
    expect(shown.split('\n').slice(-2)).toEqual([
      'Record 2 of 2 nested 100001 levels deep (publishing allows 100), so printed as stored, not indented:',
      deep,
    ]);
    expect(shown).toContain('Record 1 of 2:\n{\n  "id": "e1"\n}');
  });

  it('gives up indenting past a size, rather than building a string too long to hold', () => {
    const wide = `[${Array.from({ length: 1000 }, () => '[[[[[1]]]]]').join(',')}]`;
    expect(indentJson(wide)?.length).toBeGreaterThan(20_000);
    expect(indentJson(wide, '  ', 20_000)).toBeUndefined();
  });
});

describe('admin paths', () => {
  it("builds a classic or namespace subscription's path, names encoded", () => {
    expect(subscriptionAdminPath({ topic: 'orders', subscription: 'S' })).toBe(
      '/admin/topics/orders/eventSubscriptions/S',
    );
    expect(subscriptionAdminPath({ namespace: 'shop', topic: 'orders', subscription: 'S' })).toBe(
      '/admin/namespaces/shop/topics/orders/eventSubscriptions/S',
    );
    expect(subscriptionsAdminPath({ namespace: 'a b', topic: 'x/y' })).toBe(
      '/admin/namespaces/a%20b/topics/x%2Fy/eventSubscriptions',
    );
  });
});

describe('list and show with --namespace', () => {
  const ref = { namespace: 'shop', topic: 'orders', subscription: 'S' };
  const base = '/admin/namespaces/shop/topics/orders/eventSubscriptions/S/deadLetters';

  it('call the namespace routes and name the namespace', async () => {
    const paths: string[] = [];
    const target = apiTarget({
      where: 'test',
      url: 'http://127.0.0.1:9',
      call: async (method, path) => {
        paths.push(`${method} ${path}`);
        return {
          status: 200,
          text: path.includes('/blob?')
            ? '{"key":"k","records":[{"a":1}]}'
            : '{"value":[{"key":"k","writtenAt":"2026-11-22T10:00:00.000Z","bytes":9}]}',
        };
      },
    });
    const blobs = await listDeadLetters(target, { ...ref, since: '2026-11-22T00:00:00Z' });
    expect(formatListing(ref, blobs).split('\n')[0]).toBe(
      '1 dead-letter blob of namespace shop, topic orders, subscription S, newest first:',
    );
    expect(formatListing({ topic: 'orders', subscription: 'S' }, [])).toBe(
      'No dead letters of topic orders, subscription S.',
    );
    expect((await showDeadLetters(target, { ...ref, key: 'k' })).records).toEqual(['{"a":1}']);
    expect(paths).toEqual([`GET ${base}?since=2026-11-22T00%3A00%3A00Z`, `GET ${base}/blob?key=k`]);
  });
});

describe('SigV4 target', () => {
  it('finds the region in an API Gateway URL', () => {
    expect(regionOfApiUrl('https://abc123.execute-api.eu-west-1.amazonaws.com/')).toBe('eu-west-1');
    expect(regionOfApiUrl('https://api.example.com')).toBeUndefined();
  });

  it('signs each request for execute-api with the credentials and region given', async () => {
    const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"value":[]}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const target = sigV4Target(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
      });
      const answer = await target.call('POST', '/admin/topics/t/x?key=a%2Fb.json', '{"dryRun":true}');
      expect(answer).toMatchObject({ status: 200, text: '{"value":[]}' });
      const request = seen[0];
      expect(request).toMatchObject({
        method: 'POST',
        url: '/admin/topics/t/x?key=a%2Fb.json',
        body: '{"dryRun":true}',
      });
      expect(request?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[^ ]*host[^ ]*, Signature=[0-9a-f]{64}$/,
      );
      expect(request?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
      expect(request?.headers['x-amz-security-token']).toBe('token');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('needs a region', () => {
    const saved = { region: process.env.AWS_REGION, fallback: process.env.AWS_DEFAULT_REGION };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    try {
      expect(() => sigV4Target('https://api.example.com')).toThrow('pass --region or set AWS_REGION');
    } finally {
      if (saved.region !== undefined) process.env.AWS_REGION = saved.region;
      if (saved.fallback !== undefined) process.env.AWS_DEFAULT_REGION = saved.fallback;
    }
  });
});

/** How a scripted blob fails: in the dry run too, or on replay (after queueing, if `marked` is false). */
interface ScriptedFailure {
  reason: string;
  inDryRun?: boolean;
  marked?: false;
}

/**
 * A replay route with two blobs: `old` (replayed before, 1 event) and `new` (2 events), plus the
 * `extra` blobs given (written after them, not replayed before), listed newest first.
 */
function scriptedApi(
  options: {
    extra?: Record<string, number>;
    failures?: Record<string, ScriptedFailure>;
    alreadyReplayed?: Record<string, number>;
    /** Replay calls (not dry runs) refused by the route's limit first, with `Retry-After: 30`. */
    limited?: number;
  } = {},
) {
  let limited = options.limited ?? 0;
  const replayedBefore = new Set(['dead/S/old.json']);
  const events: Record<string, number> = { 'dead/S/old.json': 1, 'dead/S/new.json': 2, ...options.extra };
  const listed = Object.keys(events).reverse();
  const calls: Array<Record<string, unknown>> = [];
  const paths: string[] = [];
  const target = apiTarget({
    where: 'test',
    url: 'http://127.0.0.1:9',
    call: async (method, path, body) => {
      paths.push(`${method} ${path}`);
      if (method === 'GET') {
        return {
          status: 200,
          text: JSON.stringify({
            value: listed.map((key) => ({ key, writtenAt: '', bytes: 1 })),
          }),
        };
      }
      const request = JSON.parse(body ?? '{}') as { keys: string[]; dryRun?: boolean; force?: boolean };
      if (request.dryRun !== true && limited > 0) {
        limited -= 1;
        return {
          status: 429,
          text: JSON.stringify({ error: { code: 'TooManyRequests', message: 'replay limit' } }),
          headers: new Headers({ 'retry-after': '30' }),
        };
      }
      calls.push(request);
      const blobs: BlobReplayAnswer[] = request.keys.map((key) => {
        const skipped = replayedBefore.has(key) && request.force !== true;
        const already = request.force === true ? 0 : (options.alreadyReplayed?.[key] ?? 0);
        const failure = options.failures?.[key];
        const counts = {
          records: events[key],
          matched: events[key],
          ...(already === 0 ? {} : { alreadyReplayed: already }),
        };
        if (failure !== undefined && (failure.inDryRun === true || request.dryRun !== true)) {
          const queued = failure.marked === false ? (events[key] ?? 0) - already : 0;
          return {
            key,
            ...counts,
            queued,
            ...(failure.marked === false ? { marked: false } : {}),
            skipped: false,
            failed: failure.reason,
          };
        }
        const queued = skipped || request.dryRun === true ? 0 : (events[key] ?? 0) - already;
        if (queued > 0) replayedBefore.add(key);
        return { key, ...counts, queued, ...(queued > 0 ? { marked: true } : {}), skipped };
      });
      const answer = {
        dryRun: request.dryRun === true,
        blobsSelected: blobs.length,
        recordsMatched: 0,
        eventsQueued: blobs.reduce((sum, blob) => sum + blob.queued, 0),
        blobsSkipped: blobs.filter((blob) => blob.skipped).length,
        skippedKeys: blobs.filter((blob) => blob.skipped).map((blob) => blob.key),
        notFound: [],
        otherTopic: 0,
        blobsFailed: blobs.filter((blob) => blob.failed !== undefined).length,
        failedKeys: blobs.filter((blob) => blob.failed !== undefined).map((blob) => blob.key),
        unmarkedKeys: blobs.filter((blob) => blob.marked === false).map((blob) => blob.key),
        notStarted: [],
        blobs,
      };
      return { status: 200, text: JSON.stringify(answer) };
    },
  });
  return { target, calls, paths };
}

function scriptedIo(options: { interactive: boolean; answer?: boolean }) {
  let now = 0;
  const lines: string[] = [];
  const sleeps: number[] = [];
  const questions: string[] = [];
  const io: ReplayIo = {
    interactive: options.interactive,
    confirm: async (question) => {
      questions.push(question);
      return options.answer === true;
    },
    progress: () => {},
    progressDone: () => {},
    log: (line) => lines.push(line),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    now: () => now,
  };
  return { io, lines, sleeps, questions };
}

const ref = { topic: 'orders', subscription: 'S' };

describe('replay', () => {
  it('refuses blobs replayed before without --yes when it cannot ask, replaying nothing', async () => {
    const { target, calls } = scriptedApi();
    const { io } = scriptedIo({ interactive: false });
    await expect(replayDeadLetters(target, ref, io)).rejects.toThrow(
      new CliError(
        '1 blob of the selection was replayed before; pass --yes to replay them again, or choose blobs with --key',
      ),
    );
    expect(calls.every((call) => call.dryRun === true)).toBe(true);
  });

  it('asks on a terminal; no leaves them out, and the rest is replayed oldest first, one call per blob', async () => {
    const { target, calls } = scriptedApi();
    const { io, questions, lines } = scriptedIo({ interactive: true, answer: false });
    const summary = await replayDeadLetters(target, ref, io);
    expect(questions).toEqual(['Replay the 1 blob replayed before again? [y/N] ']);
    expect(summary).toEqual({
      dryRun: false,
      blobs: ['dead/S/new.json'],
      events: 2,
      skipped: ['dead/S/old.json'],
      missing: [],
      failed: [],
      unmarked: [],
      busy: [],
    });
    expect(calls).toEqual([
      { keys: ['dead/S/old.json', 'dead/S/new.json'], dryRun: true },
      { keys: ['dead/S/new.json'], force: false },
    ]);
    expect(lines[0]).toBe('2 events in 1 blob to replay to topic orders, subscription S.');
  });

  it('replays blobs replayed before with --yes, forcing only those, paced to the rate', async () => {
    const { target, calls } = scriptedApi();
    const { io, sleeps } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, yes: true, rate: 2 }, io);
    expect(summary.events).toBe(3);
    expect(calls.slice(1)).toEqual([
      { keys: ['dead/S/old.json'], force: true },
      { keys: ['dead/S/new.json'], force: false },
    ]);
    // One event at 2 per second: half a second before the next blob (none after the last).
    expect(sleeps).toEqual([500]);
  });

  it("waits out the replay route's limit (its Retry-After) and goes on with the same blob", async () => {
    const { target, calls } = scriptedApi({ limited: 2 });
    const { io, sleeps } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, yes: true, rate: 1000 }, io);
    expect(summary.events).toBe(3);
    expect(calls.slice(1)).toEqual([
      { keys: ['dead/S/old.json'], force: true },
      { keys: ['dead/S/new.json'], force: false },
    ]);
    expect(sleeps.slice(0, 2)).toEqual([30_000, 30_000]);
  });

  it('gives up when the limit refuses six calls in a row, saying another replay may be running', async () => {
    const { target } = scriptedApi({ limited: 100 });
    const { io, sleeps } = scriptedIo({ interactive: false });
    await expect(replayDeadLetters(target, { ...ref, yes: true }, io)).rejects.toThrow(
      /the API's replay limit for this subscription refused 6 calls in a row \(another replay of it may be running\)/,
    );
    expect(sleeps).toEqual([30_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("lists and replays a namespace topic's subscription through the namespace routes", async () => {
    const { target, paths } = scriptedApi();
    const { io, lines } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, namespace: 'shop', dryRun: true }, io);
    expect(summary).toMatchObject({ dryRun: true, blobs: ['dead/S/new.json'], events: 2 });
    const base = '/admin/namespaces/shop/topics/orders/eventSubscriptions/S/deadLetters';
    expect(paths).toEqual([`GET ${base}`, `POST ${base}/replay`]);
    expect(lines[0]).toBe('2 events in 1 blob to replay to namespace shop, topic orders, subscription S.');
  });

  it('only shows the plan in a dry run', async () => {
    const { target, calls } = scriptedApi();
    const { io, lines } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, dryRun: true }, io);
    expect(summary).toMatchObject({ dryRun: true, blobs: ['dead/S/new.json'], events: 2 });
    expect(calls.every((call) => call.dryRun === true)).toBe(true);
    expect(lines).toContain('Dry run: nothing was replayed.');
  });

  it('stops at a failing blob, lists it and what was replayed before it', async () => {
    const { target, calls } = scriptedApi({
      extra: { 'dead/S/third.json': 1, 'dead/S/fourth.json': 1 },
      failures: { 'dead/S/third.json': { reason: 'Its events could not all be queued: SQS is down' } },
    });
    const { io, lines } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, yes: true }, io);
    expect(summary).toMatchObject({
      blobs: ['dead/S/old.json', 'dead/S/new.json'],
      events: 3,
      failed: [{ key: 'dead/S/third.json', reason: 'Its events could not all be queued: SQS is down' }],
      unmarked: [],
      busy: [],
    });
    // The fourth blob is never asked for.
    expect(calls.slice(1).map((call) => call.keys)).toEqual([
      ['dead/S/old.json'],
      ['dead/S/new.json'],
      ['dead/S/third.json'],
    ]);
    expect(lines).toEqual(
      expect.arrayContaining([
        '  FAILED dead/S/third.json: Its events could not all be queued: SQS is down',
        'Replayed 3 events from 2 blobs before it; 1 blob not started.',
      ]),
    );
  });

  it('says which blobs were queued but not marked', async () => {
    const { target } = scriptedApi({
      failures: { 'dead/S/new.json': { reason: 'could not be marked', marked: false } },
    });
    const { io, lines } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, keys: ['dead/S/new.json'] }, io);
    expect(summary).toMatchObject({
      blobs: ['dead/S/new.json'],
      events: 2,
      unmarked: ['dead/S/new.json'],
      failed: [{ key: 'dead/S/new.json', reason: 'could not be marked' }],
    });
    expect(
      lines.some(
        (line) => line.startsWith('Queued but NOT marked replayed') && line.includes('dead/S/new.json'),
      ),
    ).toBe(true);
  });

  it('replays nothing when the dry run reports a failing blob', async () => {
    const { target, calls } = scriptedApi({
      failures: { 'dead/S/new.json': { reason: 'An event is too large to queue', inDryRun: true } },
    });
    const { io, lines } = scriptedIo({ interactive: false });
    const summary = await replayDeadLetters(target, { ...ref, yes: true }, io);
    expect(summary).toMatchObject({
      events: 0,
      blobs: [],
      failed: [{ key: 'dead/S/new.json', reason: 'An event is too large to queue' }],
    });
    expect(calls.every((call) => call.dryRun === true)).toBe(true);
    expect(lines).toContain('  dead/S/new.json: An event is too large to queue');
  });

  it('counts only the events not replayed before in a partly replayed blob, and does not force it', async () => {
    const { target, calls } = scriptedApi({ alreadyReplayed: { 'dead/S/new.json': 1 } });
    const { io, lines, questions } = scriptedIo({ interactive: true, answer: false });
    const summary = await replayDeadLetters(target, ref, io);
    expect(lines[0]).toBe('1 event in 1 blob to replay to topic orders, subscription S.');
    expect(summary).toMatchObject({ blobs: ['dead/S/new.json'], events: 1 });
    expect(questions).toEqual(['Replay the 1 blob replayed before again? [y/N] ']);
    expect(calls[1]).toEqual({ keys: ['dead/S/new.json'], force: false });
  });
});
