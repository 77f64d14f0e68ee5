/**
 * The soak: a local stack in a process of its own under an hour's kind of traffic (a third of the
 * machine's measured peak, by default 30 minutes), a mix of endpoints, and a schedule of faults;
 * then the ledger, event by event. See `scenarios/soak.ts` for what it reports.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_STATUS_PATH, type LocalStatusDocument } from '../../local/status';
import { log } from '../harness/log';
import { sampleTree } from '../process-tree-memory';
import { type FaultKind, faultSchedule, type ScheduledFault } from './faults';
import { SoakLedger } from './ledger';
import {
  FIRST_SIGNING_SECRET,
  numberOf,
  SECOND_SIGNING_SECRET,
  SOAK_SUBSCRIPTIONS,
  subscriptionOf,
} from './mix';
import type { FaultRecord, SoakMinute, SoakOptions, SoakOutcome } from './outcome';
import {
  ADMIN_TOKEN,
  admin,
  DeadLetterReader,
  heldUntilOf,
  subscriptionBody,
  subscriptionPath,
  TOPIC,
} from './soak-api';
import { buildSoakStack, SoakStackControl } from './stack-control';
import { SoakTraffic } from './traffic';
import { SoakWebhook } from './webhook';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Faults that stop or cut off the stack (the others change an endpoint or a setting). */
const STACK_FAULTS: ReadonlySet<FaultKind> = new Set(['kill-emulator', 'kill-stack', 'table-outage']);
const DESTINATION_QUEUE = 'soak-destination';

export async function runSoak(options: SoakOptions): Promise<SoakOutcome> {
  // Built first: a build that fails leaves nothing running.
  const built = await buildSoakStack();
  const dataDir = await mkdtemp(join(tmpdir(), 'gridwire-soak-'));
  const startedAt = Date.now();
  const ledger = new SoakLedger(
    subscriptionOf,
    SOAK_SUBSCRIPTIONS.map((subscription) => subscription.name),
    SOAK_SUBSCRIPTIONS.map((subscription) => subscription.immediate),
    startedAt,
  );
  const webhook = await new SoakWebhook(ledger).start();
  webhook.secrets = [FIRST_SIGNING_SECRET];
  const control = new SoakStackControl(
    { dataDir, adminToken: ADMIN_TOKEN, timeScale: options.timeScale, destinationQueue: DESTINATION_QUEUE },
    (ids) => {
      const at = Date.now();
      for (const id of ids) ledger.delivered(numberOf(id), at);
    },
    built,
  );
  let traffic: SoakTraffic | undefined;
  let sampling: ReturnType<typeof setInterval> | undefined;
  try {
    let running = await control.start();
    let apiUrl: string | undefined = running.apiUrl;
    const queueArn = running.destinationQueueArn;
    log(`soak: stack up at ${apiUrl} (data ${dataDir}), time scale ${options.timeScale}`);
    await admin(apiUrl, 'PUT', `/admin/topics/${TOPIC}`, { properties: { inputSchema: 'EventGridSchema' } });
    for (const subscription of SOAK_SUBSCRIPTIONS) {
      await admin(
        apiUrl,
        'PUT',
        subscriptionPath(subscription.name),
        subscriptionBody(subscription.name, webhook.url, queueArn),
      );
    }
    let keys = (await admin(apiUrl, 'POST', `/admin/topics/${TOPIC}/listKeys`)) as {
      key1: string;
      key2: string;
    };
    let key = keys.key1;

    // ---- idle memory: the stack up, nothing sent, a settle first.
    await sleep(20_000);
    const idleBefore = await sampleTree(running.child.pid as number).catch(() => undefined);
    log(
      `soak: idle ${idleBefore === undefined ? '?' : (idleBefore.totalRssBytes / 1e6).toFixed(0)} MB resident`,
    );

    // ---- the load, the sampler and the faults
    const loadStartedAt = Date.now();
    traffic = new SoakTraffic(ledger, { apiUrl: () => apiUrl, key: () => key }, TOPIC, {
      eventsPerSecond: options.eventsPerSecond,
      singlesPerSecond: options.singlesPerSecond,
      maxInFlight: 64,
      startedAt: loadStartedAt,
    });
    const minutes: SoakMinute[] = [];
    const minuteOf = (at: number) => Math.max(0, Math.floor((at - loadStartedAt) / 60_000));
    const minute = (at: number): SoakMinute => {
      const index = minuteOf(at);
      while (minutes.length <= index) {
        minutes.push({
          minute: minutes.length,
          accepted: 0,
          settled: 0,
          worstUnattemptedSeconds: 0,
          worstVisibleMessages: 0,
          overdueWakes: [],
          faults: [],
        });
      }
      return minutes[index] as SoakMinute;
    };
    let peakRssBytes = 0;
    let peakAt: number | undefined;
    let worstUnattemptedSeconds = 0;
    let worstUnattemptedId: string | undefined;
    let worstStackOverdueSeconds: number | undefined;
    let lastSettled = { accepted: 0, settled: 0 };
    let lastMemoryMinute = -1;
    const sample = async () => {
      const at = Date.now();
      const row = minute(at);
      const progress = ledger.progress();
      row.accepted += progress.accepted - lastSettled.accepted;
      row.settled += progress.settled - lastSettled.settled;
      lastSettled = progress;
      const overdue = ledger.oldestUnattempted(at);
      if (overdue.id !== undefined && overdue.seconds >= row.worstUnattemptedSeconds) {
        const subscription = ledger.subscriptionOfId(overdue.id);
        if (subscription !== undefined) row.worstUnattemptedSubscription = subscription;
      }
      row.worstUnattemptedSeconds = Math.max(row.worstUnattemptedSeconds, overdue.seconds);
      if (overdue.seconds > worstUnattemptedSeconds) {
        worstUnattemptedSeconds = overdue.seconds;
        worstUnattemptedId = overdue.id;
      }
      const pid = control.running?.child.pid;
      if (pid !== undefined) {
        const tree = await sampleTree(pid, { pss: minuteOf(at) !== lastMemoryMinute }).catch(() => undefined);
        if (tree !== undefined) {
          if (tree.totalRssBytes > peakRssBytes) {
            peakRssBytes = tree.totalRssBytes;
            peakAt = at;
          }
          row.rssMb = Math.round(tree.totalRssBytes / 1e5) / 10;
          if (tree.totalPssBytes > 0) row.pssMb = Math.round(tree.totalPssBytes / 1e5) / 10;
          lastMemoryMinute = minuteOf(at);
        }
      }
      const url = apiUrl;
      if (url !== undefined) {
        const status = (await admin(url, 'GET', LOCAL_STATUS_PATH).catch(() => undefined)) as
          | LocalStatusDocument
          | undefined;
        if (status !== undefined) {
          const visible = status.queues.reduce((sum, queue) => sum + queue.visible, 0);
          if (visible > row.worstVisibleMessages) {
            row.worstVisibleMessages = visible;
            const busiest = status.queues.reduce((most, queue) =>
              queue.visible > most.visible ? queue : most,
            );
            if (busiest.visible > 0) row.worstVisibleQueue = busiest.queue;
          }
          const overdueSeconds = status.backlogs.oldestOverdueSeconds;
          const wake = status.backlogs.oldestOverdue;
          if (wake !== undefined && !row.overdueWakes.includes(wake.subscription))
            row.overdueWakes.push(wake.subscription);
          row.worstStackOverdueSeconds = Math.max(row.worstStackOverdueSeconds ?? 0, overdueSeconds);
          worstStackOverdueSeconds = Math.max(worstStackOverdueSeconds ?? 0, overdueSeconds);
        }
      }
    };
    let sampling_ = false;
    sampling = setInterval(() => {
      if (sampling_) return;
      sampling_ = true;
      void sample().finally(() => {
        sampling_ = false;
      });
    }, 10_000);

    const restart = async (): Promise<number> => {
      apiUrl = undefined;
      const began = Date.now();
      running = await control.start();
      apiUrl = running.apiUrl;
      return (Date.now() - began) / 1000;
    };
    const records: FaultRecord[] = [];
    const perform = async (fault: ScheduledFault): Promise<FaultRecord> => {
      const began = Date.now();
      const record: FaultRecord = {
        kind: fault.kind,
        description: fault.description,
        startedAtSeconds: Math.round((began - loadStartedAt) / 1000),
        lastedSeconds: 0,
      };
      minute(began).faults.push(fault.kind);
      const window = { name: fault.kind, startMs: began - startedAt, endMs: Number.POSITIVE_INFINITY };
      // Only a fault of the stack's can leave a delivery unsettled, so only those explain duplicates.
      if (STACK_FAULTS.has(fault.kind)) ledger.fault(window);
      log(`soak: ${record.startedAtSeconds} s: ${fault.description}`);
      const url = () => apiUrl ?? running.apiUrl;
      try {
        switch (fault.kind) {
          case 'rotate-topic-keys': {
            keys = (await admin(url(), 'POST', `/admin/topics/${TOPIC}/regenerateKey`, {
              keyName: 'key2',
            })) as typeof keys;
            // Every publish function sees a new key within its topic cache time (1 s).
            await sleep(2000);
            key = keys.key2;
            keys = (await admin(url(), 'POST', `/admin/topics/${TOPIC}/regenerateKey`, {
              keyName: 'key1',
            })) as typeof keys;
            break;
          }
          case 'kill-emulator': {
            const exit = await control.killEmulator();
            record.exit = `code ${exit.code}, signal ${exit.signal}`;
            record.restartSeconds = await restart();
            break;
          }
          case 'kill-stack': {
            await control.killAll();
            record.restartSeconds = await restart();
            break;
          }
          case 'endpoint-dead':
            webhook.dead = true;
            await sleep(fault.forMs);
            webhook.dead = false;
            break;
          case 'pause-subscription':
            await admin(url(), 'POST', `${subscriptionPath('batched')}/pause`);
            await sleep(fault.forMs);
            await admin(url(), 'POST', `${subscriptionPath('batched')}/resume`);
            break;
          case 'edit-subscriptions':
            await admin(
              url(),
              'PUT',
              subscriptionPath('flaky'),
              subscriptionBody('flaky', webhook.url, queueArn, { query: '?edited=1' }),
            );
            await admin(
              url(),
              'PUT',
              subscriptionPath('limited'),
              subscriptionBody('limited', webhook.url, queueArn, {
                destination: { maxDeliveriesPerSecond: 20 },
              }),
            );
            break;
          case 'table-outage':
            await control.table(true);
            await sleep(fault.forMs);
            await control.table(false);
            break;
          case 'rotate-signing-secret':
            webhook.secrets = [FIRST_SIGNING_SECRET, SECOND_SIGNING_SECRET];
            await admin(
              url(),
              'PUT',
              subscriptionPath('signed'),
              subscriptionBody('signed', webhook.url, queueArn, {
                destination: { signing: { secret: SECOND_SIGNING_SECRET } },
              }),
            );
            break;
        }
      } catch (error) {
        record.error = (error as Error).message;
        log(`soak: the fault ${fault.kind} failed: ${record.error}`);
      }
      const ended = Date.now();
      record.lastedSeconds = Math.round((ended - began) / 100) / 10;
      window.endMs = ended - startedAt;
      return record;
    };

    traffic.start();
    const schedule = faultSchedule(options.minutes);
    const loadMs = options.minutes * 60_000;
    // Faults run one after another, each at its time; a concurrent one runs beside those after it.
    const faultsDone = (async () => {
      const beside: Array<Promise<void>> = [];
      for (const fault of schedule) {
        const wait = loadStartedAt + fault.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        const done = perform(fault).then((record) => {
          records.push(record);
        });
        if (fault.concurrent === true) beside.push(done);
        else await done;
      }
      await Promise.all(beside);
      records.sort((a, b) => a.startedAtSeconds - b.startedAtSeconds);
    })();
    // Restarts nobody asked for: the stack died on its own; start it again and say so.
    const watchdog = setInterval(() => {
      if (control.running === undefined && apiUrl !== undefined && control.unplannedExits.length > 0) {
        log(`soak: the stack exited unasked: ${control.unplannedExits.at(-1)}`);
        void restart();
      }
    }, 1000);
    let lastProgressLog = 0;
    while (Date.now() - loadStartedAt < loadMs) {
      await sleep(1000);
      if (Date.now() - lastProgressLog >= 60_000) {
        lastProgressLog = Date.now();
        const progress = ledger.progress();
        log(
          `soak: minute ${minuteOf(Date.now())}: offered ${traffic.offered.toLocaleString('en-US')}, accepted ${progress.accepted.toLocaleString('en-US')}, settled ${progress.settled.toLocaleString('en-US')}`,
        );
      }
    }
    await traffic.stop();
    await faultsDone;
    clearInterval(watchdog);
    const loadEndedAt = Date.now();
    log(`soak: load over after ${Math.round((loadEndedAt - loadStartedAt) / 1000)} s; draining`);

    // ---- drain: until every accepted event is delivered or ended, or nothing moves for a while
    const deadLetters = new DeadLetterReader(
      (method, path) => admin(apiUrl ?? running.apiUrl, method, path),
      ledger,
    );
    let lastMove = Date.now();
    let best = -1;
    let drainedAll = false;
    let lastRead = 0;
    for (;;) {
      if (Date.now() - lastRead >= 15_000) {
        lastRead = Date.now();
        await deadLetters
          .readAll()
          .catch((error: Error) => log(`soak: dead letters not read: ${error.message}`));
      }
      const progress = ledger.progress();
      if (progress.settled >= progress.accepted) {
        drainedAll = true;
        break;
      }
      if (progress.settled > best) {
        best = progress.settled;
        lastMove = Date.now();
      }
      // A backlog held until a time still to come is waiting, not stuck: the drain waits for it
      // (up to the longest hold, 3 h at the time scale, and a minute).
      const heldUntil = await heldUntilOf(ledger, (path) => admin(apiUrl ?? running.apiUrl, 'GET', path));
      const longestHoldMs = (3 * 3_600_000) / options.timeScale + 60_000;
      if (heldUntil !== undefined && heldUntil > Date.now() && Date.now() - loadEndedAt < longestHoldMs) {
        lastMove = Math.max(lastMove, Date.now());
      }
      if (Date.now() - lastMove > options.drainStallMs) break;
      const waiting = new Map<string, number>();
      for (const n of ledger.outstanding()) {
        const name = SOAK_SUBSCRIPTIONS[subscriptionOf(n)]?.name as string;
        waiting.set(name, (waiting.get(name) ?? 0) + 1);
      }
      log(
        `soak: draining: ${(progress.accepted - progress.settled).toLocaleString('en-US')} accepted events not settled yet (${[...waiting].map(([name, n]) => `${name} ${n}`).join(', ')})${heldUntil === undefined ? '' : `; a backlog held until ${new Date(heldUntil).toISOString()}`}`,
      );
      await sleep(5000);
    }
    const drainSeconds = Math.round((Date.now() - loadEndedAt) / 1000);
    // What is still outstanding: its history says whether it was dropped, and why.
    let historyLookups = 0;
    for (const n of ledger.outstanding().slice(0, 500)) {
      historyLookups += 1;
      const subscription = SOAK_SUBSCRIPTIONS[subscriptionOf(n)]?.name as string;
      const found = (await admin(
        apiUrl ?? running.apiUrl,
        'GET',
        `${subscriptionPath(subscription)}/deliveries?eventId=s${n}`,
      ).catch(() => undefined)) as
        | { value?: Array<{ outcome?: string; state?: string; reason?: string }> }
        | undefined;
      const final = found?.value?.find(
        (delivery) => delivery.state === 'Dropped' || delivery.outcome === 'Dropped',
      );
      if (final !== undefined) ledger.dropped(n, final.reason ?? final.outcome ?? 'dropped');
    }

    // ---- memory a minute after the load (the drain done or given up on)
    const sinceLoad = Date.now() - loadEndedAt;
    if (sinceLoad < 60_000) await sleep(60_000 - sinceLoad);
    const afterMinute = await sampleTree(running.child.pid as number).catch(() => undefined);
    clearInterval(sampling);
    sampling = undefined;
    await sample();
    return {
      options,
      faults: records,
      minutes,
      ledger: ledger.close(),
      traffic: traffic.counts,
      webhook: webhook.counts,
      unplannedExits: control.unplannedExits,
      drainSeconds,
      drainedAll,
      memory: {
        ...(idleBefore === undefined ? {} : { idleBefore }),
        peakRssBytes,
        ...(peakAt === undefined ? {} : { peakAt }),
        ...(afterMinute === undefined ? {} : { afterMinute }),
      },
      worstUnattemptedSeconds,
      worstUnattemptedId,
      worstStackOverdueSeconds,
      historyLookups,
    };
  } finally {
    if (sampling !== undefined) clearInterval(sampling);
    await control.stop().catch(() => undefined);
    await webhook.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
