/**
 * The emulator process killed (SIGKILL) under a running `gridwire start`, while events are being
 * published and delivered: the stack exits with status 1 and says what happened and what to do;
 * started again on the same data directory, it delivers every event that was answered 200.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiCaller,
  emulatorPid,
  groupGone,
  killGroup,
  type RunningCli,
  signalGroup,
  startCli,
} from '../support/cli-stack';
import { event } from '../support/local-stack';
import { eventually, type ReceivedRequest, WebhookServer } from '../support/webhook-server';

const TOKEN = 'emulator-kill-token';
let webhook: WebhookServer;
let dataDir: string;
/** The stacks started, so a failed test leaves none running. */
const started: RunningCli[] = [];

beforeAll(async () => {
  webhook = await new WebhookServer().start();
  dataDir = await mkdtemp(join(tmpdir(), 'gridwire-emulator-kill-'));
});

afterAll(async () => {
  for (const running of started) killGroup(running);
  await webhook?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const call = apiCaller(TOKEN);

const delivered = () =>
  new Set(
    webhook
      .requestsTo('/kept')
      .flatMap((request: ReceivedRequest) =>
        (JSON.parse(request.body) as Array<{ id: string }>).map((e) => e.id),
      ),
  );

it('exits with a clear message when its emulator process is killed, and a restart delivers every accepted event', async () => {
  // A slow receiver, so most events are still queued or in flight when the emulators die.
  const url = webhook.url('/kept', () => ({ status: 200, delayMs: 200 }));
  const first = await startCli(dataDir, { adminToken: TOKEN });
  started.push(first);
  expect((await call(first.apiUrl, 'PUT', '/admin/topics/kept', {})).status).toBe(201);
  const subscribed = await call(first.apiUrl, 'PUT', '/admin/topics/kept/eventSubscriptions/hook', {
    properties: { destination: { endpointType: 'WebHook', properties: { endpointUrl: url } } },
  });
  expect(subscribed.status).toBe(201);
  const key = (await call(first.apiUrl, 'POST', '/admin/topics/kept/listKeys')).body.key1;
  const publish = (events: unknown[]) =>
    call(first.apiUrl, 'POST', '/topics/kept/api/events', events, { 'aeg-sas-key': key });

  const accepted: string[] = [];
  for (let request = 0; request < 5; request += 1) {
    const events = Array.from({ length: 100 }, (_, i) => event(`before-${request * 100 + i}`));
    expect((await publish(events)).status).toBe(200);
    accepted.push(...events.map((e) => e.id));
  }
  await eventually(() => delivered().size >= 20, 15_000, 'the first deliveries');

  // Publishing goes on while the emulators are killed: what is answered 200 counts as accepted.
  let stopped = false;
  const answers: number[] = [];
  const publishing = (async () => {
    for (let round = 0; !stopped; round += 1) {
      const events = Array.from({ length: 10 }, (_, i) => event(`during-${round * 10 + i}`));
      try {
        const answer = await publish(events);
        answers.push(answer.status);
        if (answer.status === 200) accepted.push(...events.map((e) => e.id));
      } catch {
        // The stack is gone: no answer, nothing accepted.
        return;
      }
    }
  })();
  await eventually(() => answers.length >= 3, 15_000, 'publishing under way');

  process.kill(await emulatorPid(first), 'SIGKILL');
  const exit = await first.exited;
  stopped = true;
  await publishing;
  await groupGone(first);
  expect(exit.code).toBe(1);
  expect(first.output()).toContain(
    'gridwire: the emulator process stopped unexpectedly (killed by SIGKILL); the local stack cannot continue.',
  );
  expect(first.output()).toContain(
    'Nothing accepted is lost: run gridwire start again with the same data directory',
  );
  // Killed mid-delivery: events were left undelivered.
  expect(delivered().size).toBeLessThan(accepted.length);
  // Publishing was under way when the emulators died: some requests made it, none after.
  expect(answers.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);

  const second = await startCli(dataDir, { adminToken: TOKEN });
  started.push(second);
  try {
    await eventually(
      () => accepted.every((id) => delivered().has(id)),
      90_000,
      'every accepted event after the restart',
    ).catch((error: Error) => {
      // Say which events are missing and what the restarted stack said, to find where they are.
      const missing = accepted.filter((id) => !delivered().has(id));
      throw new Error(
        `${error.message}: ${missing.length} of ${accepted.length} missing (${missing.slice(0, 10).join(', ')}); the restarted stack said:\n${second.output().slice(-3000)}`,
      );
    });
  } finally {
    await signalGroup(second, 'SIGTERM');
  }
}, 180_000);
