/**
 * The real sender against a loopback server that answers when the test says: after a request
 * has timed out, a listened request still reports a late success, and only a success that comes
 * in time. Every step waits on an event (the server got the request, the sender returned, the
 * listen ended), never on a timer racing another.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LateListen, UndiciWebhookSender } from '../../../shared/delivery/webhook-sender';
import { systemClock } from '../../../shared/platform/clock';

/** Requests the server holds, answered by the test. */
const held: ServerResponse[] = [];
const arrivals: Array<() => void> = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      held.push(response);
      arrivals.shift()?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  for (const response of held) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The next request the server receives. */
const nextArrival = () => new Promise<void>((resolve) => arrivals.push(resolve));

/** A listen whose end is a promise. */
function listen(until: number) {
  let ended: (answer: { httpStatus: number; at: number } | undefined) => void = () => {};
  const end = new Promise<{ httpStatus: number; at: number } | undefined>((resolve) => {
    ended = resolve;
  });
  const late: LateListen = { until, ended: (answer) => ended(answer) };
  return { late, end };
}

const body = { url: '', headers: { 'content-type': 'application/json' }, body: '[]' };

describe('the sender after a timeout', () => {
  // The timeout is short, the window long: the answer is given after the sender returned.
  const sender = () => new UndiciWebhookSender({ clock: systemClock, timeoutMs: 100, lateWindowMs: 60_000 });

  it('keeps listening to a timed-out request and reports a success that comes later', async () => {
    const http = sender();
    const { late, end } = listen(Date.now() + 60_000);
    const arrived = nextArrival();

    const result = await http.send({ ...body, url }, late);
    await arrived;

    expect(result).toMatchObject({ delivered: false, outcome: 'TimedOut', listeningUntil: late.until });
    expect(result.error).toBe('no answer within 0.1 s');
    held.shift()?.writeHead(202).end('ok');
    expect(await end).toMatchObject({ httpStatus: 202 });
    await http.close();
  });

  it('reports no answer for a late failure', async () => {
    const http = sender();
    const { late, end } = listen(Date.now() + 60_000);
    const arrived = nextArrival();

    await http.send({ ...body, url }, late);
    await arrived;
    held.shift()?.writeHead(503).end();

    expect(await end).toBeUndefined();
    await http.close();
  });

  it('stops listening at the end of the window, with no answer', async () => {
    const http = sender();
    // The window closes 3 s after the request started (well after its 0.1 s timeout, however
    // busy the machine); the server never answers.
    const { late, end } = listen(Date.now() + 3000);
    const arrived = nextArrival();

    const result = await http.send({ ...body, url }, late);
    await arrived;

    expect(result.listeningUntil).toBe(late.until);
    expect(await end).toBeUndefined();
    held.shift()?.destroy();
    await http.close();
  });

  it('stops listening when told to, with no answer', async () => {
    const http = sender();
    const stopping = new AbortController();
    const { late, end } = listen(Date.now() + 60_000);
    const arrived = nextArrival();

    const result = await http.send({ ...body, url }, { ...late, stop: stopping.signal });
    await arrived;
    expect(result.listeningUntil).toBe(late.until);
    stopping.abort();

    expect(await end).toBeUndefined();
    held.shift()?.destroy();
    await http.close();
  });

  it('ends the listen at once when the request is answered in time, or when there is no window left', async () => {
    // Answered within a timeout no busy machine reaches.
    const patient = new UndiciWebhookSender({ clock: systemClock, timeoutMs: 60_000 });
    const answered = listen(Date.now() + 60_000);
    const arrived = nextArrival();
    const sending = patient.send({ ...body, url }, answered.late);
    await arrived;
    held.shift()?.writeHead(200).end();

    expect(await sending).toMatchObject({ delivered: true, httpStatus: 200 });
    expect(await answered.end).toBeUndefined();
    await patient.close();

    const http = sender();
    // The window is over before the timeout: a plain timeout, the request given up.
    const over = listen(Date.now() - 1);
    const next = nextArrival();
    const result = await http.send({ ...body, url }, over.late);
    await next;
    expect(result.outcome).toBe('TimedOut');
    expect(result.listeningUntil).toBeUndefined();
    expect(await over.end).toBeUndefined();
    held.shift()?.destroy();
    await http.close();
  });
});
