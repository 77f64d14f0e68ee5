import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { currentFunction } from '../../../local/current-function';
import {
  POLLER_GROWTH_INTERVAL_MS,
  type PollerOptions,
  QueuePoller,
  REAL_POLLER_CLOCK,
  type SqsHandler,
  toSqsRecord,
} from '../../../local/poller';
import { LAMBDA_SQS_LIMITS } from '../../../shared/config/event-source-mapping';
import { FUNCTIONS } from '../../../shared/config/resources';
import { silentLogger } from '../../../shared/observability/logging';

/** Time that moves only when told: a fake queue's receives and the poller's pauses move it. */
class FakeClock {
  t = 0;
  now = (): number => this.t;
  sleep = async (ms: number): Promise<void> => {
    this.t += ms;
    await new Promise((resolve) => setImmediate(resolve));
  };
}

/** A clock that never moves: pollers never grow (each test's pollers stay as it made them). */
const frozenClock = { now: () => 0, sleep: REAL_POLLER_CLOCK.sleep };

/**
 * A queue in memory that answers receives (up to `perReceive` messages each, and never more than
 * asked) and records deletes and what each receive asked for. With a clock, time is virtual: a
 * receive that returns messages takes `receiveMs`, an empty one its whole wait.
 */
class FakeSqs {
  readonly messages: Message[] = [];
  readonly deleted: string[] = [];
  /** Each receive's MaxNumberOfMessages and WaitTimeSeconds. */
  readonly asked: Array<{ max: number; wait: number }> = [];
  receives = 0;
  private next = 0;

  constructor(
    private readonly time?: { clock: FakeClock; receiveMs: number; perReceive?: number },
    private readonly onReceive?: () => void,
  ) {}

  /** Adds `count` messages; with `sentAt` (epoch ms), stamped as sent then (`SentTimestamp`). */
  add(count: number, body = (id: string) => id, sentAt?: number): void {
    for (let i = 0; i < count; i += 1) {
      const id = `m${this.next++}`;
      this.messages.push({
        MessageId: id,
        ReceiptHandle: id,
        Body: body(id),
        ...(sentAt === undefined ? {} : { Attributes: { SentTimestamp: String(sentAt) } }),
      });
    }
  }

  send = async (command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown> => {
    if (command instanceof ReceiveMessageCommand) {
      this.receives += 1;
      this.onReceive?.();
      const max = command.input.MaxNumberOfMessages ?? 1;
      const wait = command.input.WaitTimeSeconds ?? 0;
      this.asked.push({ max, wait });
      const taken = this.messages.splice(0, Math.min(max, this.time?.perReceive ?? 10));
      if (this.time !== undefined) {
        this.time.clock.t += taken.length > 0 ? this.time.receiveMs : wait * 1000;
        await new Promise((resolve) => setImmediate(resolve));
        if (options?.abortSignal?.aborted === true) {
          this.messages.unshift(...taken);
          throw new Error('aborted');
        }
        return taken.length > 0 ? { Messages: taken } : {};
      }
      if (taken.length > 0) return { Messages: taken };
      // Long polling: an empty answer after a moment, or at once when aborted.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20);
        options?.abortSignal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (options?.abortSignal?.aborted === true) throw new Error('aborted');
      return {};
    }
    if (command instanceof DeleteMessageBatchCommand) {
      for (const entry of command.input.Entries ?? []) this.deleted.push(entry.ReceiptHandle ?? '');
      return {};
    }
    throw new Error('unexpected command');
  };
}

const idsOf = (event: SQSEvent) => event.Records.map((record) => record.body);

function poller(
  sqs: FakeSqs,
  handler: SqsHandler,
  maxConcurrency: number,
  initialPollers = 2,
  handOffAfterMs = 0,
) {
  return new QueuePoller({
    sqs: sqs as unknown as SQSClient,
    queueUrl: 'http://sqs.local/queue',
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:queue',
    batchSize: 1,
    initialPollers,
    maxConcurrency,
    handOffAfterMs,
    clock: frozenClock,
    fn: FUNCTIONS.delivery,
    fnKey: 'delivery',
    handler,
    logger: silentLogger,
  });
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A handler whose first message (`m0`) hangs until released; the others take `quickMs` each. */
function firstHangs(quickMs: number) {
  let running = 0;
  let most = 0;
  const done: string[] = [];
  let releaseHung: () => void = () => {};
  const hung = new Promise<void>((resolve) => {
    releaseHung = resolve;
  });
  const handler: SqsHandler = async (event) => {
    running += 1;
    most = Math.max(most, running);
    await (idsOf(event)[0] === 'm0' ? hung : new Promise((resolve) => setTimeout(resolve, quickMs)));
    running -= 1;
    done.push(...idsOf(event));
    return { batchItemFailures: [] };
  };
  return { handler, done, most: () => most, releaseHung: () => releaseHung() };
}

describe('QueuePoller', () => {
  it("receives and deletes as its consumer function, as an event source mapping uses the function's role", async () => {
    const sqs = new FakeSqs();
    sqs.add(1);
    const callers: Array<string | undefined> = [];
    const send = sqs.send;
    sqs.send = (command, options) => {
      callers.push(`${(command as object).constructor.name} as ${currentFunction()}`);
      return send(command, options);
    };
    const subject = poller(sqs, async () => ({ batchItemFailures: [] }), 1, 1);
    subject.start();
    await until(() => sqs.deleted.length === 1, 'the delete');
    await subject.stop();
    expect(new Set(callers)).toEqual(
      new Set(['ReceiveMessageCommand as delivery', 'DeleteMessageBatchCommand as delivery']),
    );
    expect(currentFunction()).toBeUndefined();
  });

  it('keeps invoking while one invocation hangs, up to maxConcurrency at once', async () => {
    const sqs = new FakeSqs();
    sqs.add(12);
    const { handler, done, most, releaseHung } = firstHangs(10);
    const subject = poller(sqs, handler, 4);
    subject.start();
    await until(() => done.length === 11, 'the eleven other messages');
    expect(done).not.toContain('m0');
    expect(most()).toBe(4);
    expect(sqs.deleted).toHaveLength(11);

    const stopped = subject.stop();
    let stoppedYet = false;
    void stopped.then(() => {
      stoppedYet = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // stop() waits for the invocation in progress.
    expect(stoppedYet).toBe(false);
    expect(subject.invocations).toBe(1);
    releaseHung();
    await stopped;
    expect(done).toContain('m0');
    expect(sqs.deleted).toHaveLength(12);
  });

  it('waits for a quick invocation before receiving again, and hands a slow one off', async () => {
    const sqs = new FakeSqs();
    sqs.add(6);
    const { handler, done, most, releaseHung } = firstHangs(5);
    // One receive loop: quick invocations run one after the other; the hanging one is handed off.
    const subject = poller(sqs, handler, 4, 1, 100);
    subject.start();
    await until(() => done.length === 5, 'the five other messages');
    expect(most()).toBe(2);
    releaseHung();
    await subject.stop();
    expect(done).toContain('m0');
  });

  it('receives only when an invocation can start', async () => {
    const sqs = new FakeSqs();
    sqs.add(5);
    const releases: Array<() => void> = [];
    const handler: SqsHandler = () =>
      new Promise((resolve) => {
        releases.push(() => resolve({ batchItemFailures: [] }));
      });
    const subject = poller(sqs, handler, 2);
    subject.start();
    await until(() => releases.length === 2, 'two invocations');
    const receivesAtLimit = sqs.receives;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Both slots are taken: no receive (and no message taken from the queue) until one is free.
    expect(sqs.receives).toBe(receivesAtLimit);
    expect(sqs.messages).toHaveLength(3);
    releases[0]?.();
    await until(() => releases.length === 3, 'a third invocation');
    expect(subject.invocations).toBe(2);
    const stopped = subject.stop();
    for (const release of releases) release();
    await stopped;
    expect(subject.invocations).toBe(0);
  });

  it('leaves failed records (or a whole batch that threw) in the queue, and reports each invocation', async () => {
    const sqs = new FakeSqs();
    sqs.add(3);
    const stats: Array<{ records: number; failed: number }> = [];
    const handler: SqsHandler = async (event) => {
      const [id] = idsOf(event);
      if (id === 'm1') throw new Error('boom');
      return { batchItemFailures: id === 'm2' ? [{ itemIdentifier: 'm2' }] : [] };
    };
    const subject = new QueuePoller({
      sqs: sqs as unknown as SQSClient,
      queueUrl: 'q',
      queueArn: 'arn',
      batchSize: 1,
      initialPollers: 1,
      maxConcurrency: 3,
      clock: frozenClock,
      fn: FUNCTIONS.delivery,
      fnKey: 'delivery',
      handler,
      logger: silentLogger,
      onInvocation: (invocation) => stats.push({ records: invocation.records, failed: invocation.failed }),
    });
    subject.start();
    await until(() => stats.length === 3, 'three invocations');
    await subject.stop();
    expect(sqs.deleted).toEqual(['m0']);
    expect(stats).toEqual(
      expect.arrayContaining([
        { records: 1, failed: 0 },
        { records: 1, failed: 1 },
        { records: 1, failed: 1 },
      ]),
    );
  });

  it('refuses a maxConcurrency below 1', () => {
    expect(() => poller(new FakeSqs(), async () => undefined, 0)).toThrow(RangeError);
  });
});

/** Invocation sizes (and ids), for pollers on virtual time. */
function recording(onInvoke?: () => void) {
  const batches: string[][] = [];
  const handler: SqsHandler = async (event) => {
    onInvoke?.();
    batches.push(idsOf(event));
    return { batchItemFailures: [] };
  };
  return { batches, handler, sizes: () => batches.map((batch) => batch.length) };
}

/** A poller on `clock`: one poller, one invocation at a time unless `overrides` say otherwise. */
function timedPoller(sqs: FakeSqs, clock: FakeClock, handler: SqsHandler, overrides: Partial<PollerOptions>) {
  return new QueuePoller({
    sqs: sqs as unknown as SQSClient,
    queueUrl: 'q',
    queueArn: 'arn',
    batchSize: 10,
    initialPollers: 1,
    maxConcurrency: 1,
    handOffAfterMs: 0,
    fn: FUNCTIONS.delivery,
    fnKey: 'delivery',
    handler,
    logger: silentLogger,
    clock,
    ...overrides,
  });
}

describe('QueuePoller batching (virtual time)', () => {
  it('without a window, invokes with what one receive returned', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100 });
    sqs.add(3);
    const { handler, batches } = recording();
    const subject = timedPoller(sqs, clock, handler, {});
    subject.start();
    await until(() => batches.length === 1, 'the invocation');
    await subject.stop();
    expect(batches).toEqual([['m0', 'm1', 'm2']]);
  });

  it('without a window, one message per receive is one message per invocation', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100, perReceive: 1 });
    sqs.add(3);
    const { handler, sizes } = recording();
    const subject = timedPoller(sqs, clock, handler, {});
    subject.start();
    await until(() => sizes().length === 3, 'three invocations');
    await subject.stop();
    expect(sizes()).toEqual([1, 1, 1]);
  });

  it('with a window, keeps receiving until it has passed, each receive a long poll', async () => {
    const clock = new FakeClock();
    // One message per receive, each receive taking 400 ms.
    const sqs = new FakeSqs({ clock, receiveMs: 400, perReceive: 1 });
    sqs.add(5);
    const { handler, batches } = recording();
    const subject = timedPoller(sqs, clock, handler, { batchingWindowMs: 1000, waitTimeSeconds: 20 });
    subject.start();
    await until(() => batches.length === 2, 'two invocations');
    await subject.stop();
    // m0 arrives at 400 ms and starts the window; m1, m2 and m3 arrive 400, 800 and 1,200 ms into
    // it, and the window is seen to have passed when m3's receive returns. m4 starts the next
    // window, which the empty receive after it ends (20 s later: the queue is quiet).
    expect(batches).toEqual([['m0', 'm1', 'm2', 'm3'], ['m4']]);
    expect(sqs.asked.slice(0, 6).map((receive) => receive.wait)).toEqual([20, 20, 20, 20, 20, 20]);
  });

  it('with a window, a quiet queue holds a batch until the long poll returns, past the window (as on AWS)', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100, perReceive: 1 });
    sqs.add(1);
    const invokedAt: number[] = [];
    let countsAtInvocation: unknown;
    const { handler, batches } = recording(() => {
      invokedAt.push(clock.now());
      countsAtInvocation = subject.counts();
    });
    const subject = timedPoller(sqs, clock, handler, { batchingWindowMs: 1000, waitTimeSeconds: 20 });
    subject.start();
    await until(() => batches.length === 1, 'the invocation');
    await subject.stop();
    // m0 at 100 ms; the next receive finds nothing and returns after its whole 20 s wait.
    expect(batches).toEqual([['m0']]);
    expect(invokedAt).toEqual([100 + 20_000]);
    expect(countsAtInvocation).toMatchObject({ receives: 2, emptyReceives: 1, invocations: 1 });
  });

  it('with receives that do not wait, pauses after each empty one', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100, perReceive: 1 });
    sqs.add(1);
    const invokedAt: number[] = [];
    const { handler, batches } = recording(() => invokedAt.push(clock.now()));
    const subject = timedPoller(sqs, clock, handler, { batchingWindowMs: 1000, waitTimeSeconds: 0 });
    subject.start();
    await until(() => batches.length === 1, 'the invocation');
    await subject.stop();
    // m0 at 100 ms, then ten empty short polls 100 ms apart until the window has passed.
    expect(invokedAt).toEqual([1100]);
    expect(sqs.asked.slice(0, 11).map((receive) => receive.wait)).toEqual(Array(11).fill(0));
  });

  it('refuses a receive wait beyond SQS long polling (20 s)', () => {
    const { handler } = recording();
    expect(() => timedPoller(new FakeSqs(), new FakeClock(), handler, { waitTimeSeconds: 21 })).toThrow(
      /waitTimeSeconds must be an integer from 0 to 20 \(got 21\)/,
    );
  });

  it('with a window, invokes as soon as the batch is full', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100, perReceive: 1 });
    sqs.add(5);
    const invokedAt: number[] = [];
    const { handler, sizes } = recording(() => invokedAt.push(clock.now()));
    const subject = timedPoller(sqs, clock, handler, { batchSize: 3, batchingWindowMs: 300_000 });
    subject.start();
    await until(() => sizes().length === 2, 'the full batch, then the rest once the window has passed');
    await subject.stop();
    expect(sizes()).toEqual([3, 2]);
    // The full batch at once (three receives); the rest when the first receive to return 300 s
    // or more after its first message (m4 at 500 ms, then empty 2 s long polls) does.
    expect(invokedAt).toEqual([300, 500 + 150 * 2000]);
  });

  it('gathers a batch of more than 10 over several receives', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100 });
    sqs.add(30);
    const { handler, sizes } = recording();
    const subject = timedPoller(sqs, clock, handler, { batchSize: 25, batchingWindowMs: 5000 });
    subject.start();
    await until(() => sizes().length === 2, 'two invocations');
    await subject.stop();
    expect(sizes()).toEqual([25, 5]);
    // Never more than 10 per receive, nor more than the batch still takes.
    expect(sqs.asked.slice(0, 4).map((receive) => receive.max)).toEqual([10, 10, 5, 10]);
    expect(subject.counts()).toMatchObject({ invocations: 2, messages: 30 });
  });

  it("stops a batch before its payload would pass Lambda's 6 MB, the rest starting the next", async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100 });
    sqs.add(7, (id) => id.padEnd(1_000_000, '.'));
    const { handler, sizes } = recording();
    const subject = timedPoller(sqs, clock, handler, { batchingWindowMs: 5000 });
    subject.start();
    await until(() => sizes().length === 2, 'two invocations');
    await subject.stop();
    expect(6 * 1_000_000).toBeLessThan(LAMBDA_SQS_LIMITS.maxPayloadBytes);
    expect(sizes()).toEqual([6, 1]);
    expect(sqs.deleted).toHaveLength(7);
  });

  it('refuses a batch size above 10 without a window of at least 1 s', () => {
    const { handler } = recording();
    expect(() => timedPoller(new FakeSqs(), new FakeClock(), handler, { batchSize: 11 })).toThrow(RangeError);
    expect(() =>
      timedPoller(new FakeSqs(), new FakeClock(), handler, { batchSize: 11, batchingWindowMs: 500 }),
    ).toThrow(RangeError);
    expect(() =>
      timedPoller(new FakeSqs(), new FakeClock(), handler, { batchSize: 10_000, batchingWindowMs: 1000 }),
    ).not.toThrow();
  });
});

describe('QueuePoller on a FIFO queue', () => {
  const fifoMessage = (id: string, group: string, sequence: string): Message => ({
    MessageId: id,
    ReceiptHandle: id,
    Body: id,
    Attributes: {
      ApproximateReceiveCount: '2',
      SentTimestamp: '1700000000000',
      ApproximateFirstReceiveTimestamp: '1700000001000',
      SenderId: '000000000000',
      MessageGroupId: group,
      MessageDeduplicationId: `dedup-${id}`,
      SequenceNumber: sequence,
    },
  });

  it("hands each record its message's group, de-duplication id and sequence number, as Lambda does", async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100 });
    sqs.messages.push(
      fifoMessage('a1', 'sub-a#key-1', '00000000000000000001'),
      fifoMessage('b1', 'sub-a#key-2', '00000000000000000002'),
    );
    const events: SQSEvent[] = [];
    const subject = timedPoller(
      sqs,
      clock,
      async (event) => {
        events.push(event);
        return { batchItemFailures: [] };
      },
      { fifo: true },
    );
    subject.start();
    await until(() => events.length === 1, 'the invocation');
    await subject.stop();
    expect(events[0]?.Records.map((record) => record.attributes)).toEqual([
      {
        ApproximateReceiveCount: '2',
        SentTimestamp: '1700000000000',
        ApproximateFirstReceiveTimestamp: '1700000001000',
        SenderId: '000000000000',
        MessageGroupId: 'sub-a#key-1',
        MessageDeduplicationId: 'dedup-a1',
        SequenceNumber: '00000000000000000001',
      },
      {
        ApproximateReceiveCount: '2',
        SentTimestamp: '1700000000000',
        ApproximateFirstReceiveTimestamp: '1700000001000',
        SenderId: '000000000000',
        MessageGroupId: 'sub-a#key-2',
        MessageDeduplicationId: 'dedup-b1',
        SequenceNumber: '00000000000000000002',
      },
    ]);
  });

  it("leaves a standard queue's records without them", () => {
    const record = toSqsRecord({ MessageId: 'm', ReceiptHandle: 'm', Body: 'm', Attributes: {} }, 'arn');
    expect(Object.keys(record.attributes).sort()).toEqual([
      'ApproximateFirstReceiveTimestamp',
      'ApproximateReceiveCount',
      'SenderId',
      'SentTimestamp',
    ]);
  });

  it('asks SQS for every system attribute, the FIFO ones among them', async () => {
    const sent: ReceiveMessageCommand[] = [];
    const sqs = new FakeSqs(undefined, undefined);
    const send = sqs.send;
    sqs.send = async (command, options) => {
      if (command instanceof ReceiveMessageCommand) sent.push(command);
      return send(command, options);
    };
    const subject = timedPoller(sqs, new FakeClock(), async () => undefined, { fifo: true });
    subject.start();
    await until(() => sent.length > 0, 'a receive');
    await subject.stop();
    expect(sent[0]?.input.MessageSystemAttributeNames).toEqual(['All']);
  });

  it('refuses a batching window and a batch above 10, as Lambda refuses them for a FIFO queue', () => {
    const { handler } = recording();
    expect(() =>
      timedPoller(new FakeSqs(), new FakeClock(), handler, { fifo: true, batchingWindowMs: 1000 }),
    ).toThrow(/a FIFO queue's event source takes no batching window/);
    expect(() =>
      timedPoller(new FakeSqs(), new FakeClock(), handler, { fifo: true, batchingWindowMs: 1 }),
    ).toThrow(RangeError);
    expect(() => timedPoller(new FakeSqs(), new FakeClock(), handler, { fifo: true, batchSize: 11 })).toThrow(
      /batchSize must be an integer from 1 to 10 from a FIFO queue \(got 11\)/,
    );
    expect(() =>
      timedPoller(new FakeSqs(), new FakeClock(), handler, { fifo: true, batchSize: 10 }),
    ).not.toThrow();
  });
});

describe('QueuePoller pollers (virtual time)', () => {
  it('adds a poller per growth interval while receives come back full, up to maxConcurrency, and drops back when idle', async () => {
    const clock = new FakeClock();
    const seen: Array<{ t: number; pollers: number }> = [];
    let subject: QueuePoller | undefined;
    const sqs = new FakeSqs({ clock, receiveMs: 250 }, () => {
      if (subject !== undefined) seen.push({ t: clock.now(), pollers: subject.pollers });
    });
    sqs.add(300);
    const { handler, sizes } = recording();
    subject = timedPoller(sqs, clock, handler, { initialPollers: 1, maxConcurrency: 4 });
    subject.start();
    await until(() => sqs.deleted.length === 300, 'every message');
    // Never more than one poller added per growth interval, never more than maxConcurrency.
    for (const { t, pollers } of seen) {
      expect(pollers).toBeLessThanOrEqual(Math.min(4, 1 + Math.floor(t / POLLER_GROWTH_INTERVAL_MS)));
    }
    expect(subject.counts().peakPollers).toBe(4);
    // The queue is empty: each poller above the initial one stops after an empty receive.
    await until(() => subject?.pollers === 1, 'the pollers back to one');
    const counts = subject.counts();
    await subject.stop();
    expect(sizes().every((size) => size === 10)).toBe(true);
    expect(counts).toMatchObject({ invocations: 30, messages: 300, pollers: 1, peakPollers: 4 });
    expect(counts.emptyReceives).toBeGreaterThanOrEqual(3);
    expect(counts.receives).toBe(sqs.receives);
    expect(subject.pollers).toBe(0);
  });

  it('adds pollers when a receive for a new batch finds messages that were waiting, though not a full one', async () => {
    const grown = async (sentAt: number) => {
      const clock = new FakeClock();
      // One message per receive: never a full receive.
      const sqs = new FakeSqs({ clock, receiveMs: 400, perReceive: 1 });
      sqs.add(40, (id) => id, sentAt);
      const { handler } = recording();
      const subject = timedPoller(sqs, clock, handler, { initialPollers: 1, maxConcurrency: 4 });
      subject.start();
      await until(() => sqs.deleted.length === 40, 'every message');
      const { peakPollers } = subject.counts();
      await subject.stop();
      return peakPollers;
    };
    // Sent long before any receive: they waited for a free poller.
    expect(await grown(0)).toBe(4);
    // Stamped after every receive was made (as a message arriving during a long poll is).
    expect(await grown(Date.now() + 3_600_000)).toBe(1);
  });

  it('starts with 5 pollers by default, as an event source mapping does', async () => {
    const clock = new FakeClock();
    const sqs = new FakeSqs({ clock, receiveMs: 100 });
    const { handler } = recording();
    const subject = new QueuePoller({
      sqs: sqs as unknown as SQSClient,
      queueUrl: 'q',
      queueArn: 'arn',
      batchSize: 10,
      maxConcurrency: 50,
      fn: FUNCTIONS.delivery,
      fnKey: 'delivery',
      handler,
      logger: silentLogger,
      clock,
    });
    subject.start();
    expect(subject.pollers).toBe(5);
    await until(() => sqs.receives >= 10, 'some empty receives');
    // Idle pollers never drop below the initial count.
    expect(subject.pollers).toBe(5);
    await subject.stop();
    expect(subject.pollers).toBe(0);
  });
});
