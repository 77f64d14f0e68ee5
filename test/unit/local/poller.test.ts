import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { currentFunction } from '../../../local/current-function';
import { QueuePoller, type SqsHandler } from '../../../local/poller';
import { FUNCTIONS } from '../../../shared/config/resources';
import { silentLogger } from '../../../shared/observability/logging';

/** A queue in memory that answers receives (one message each) and records deletes. */
class FakeSqs {
  readonly messages: Message[] = [];
  readonly deleted: string[] = [];
  receives = 0;
  private next = 0;

  add(count: number): void {
    for (let i = 0; i < count; i += 1) {
      const id = `m${this.next++}`;
      this.messages.push({ MessageId: id, ReceiptHandle: id, Body: id });
    }
  }

  send = async (command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown> => {
    if (command instanceof ReceiveMessageCommand) {
      this.receives += 1;
      const message = this.messages.shift();
      if (message !== undefined) return { Messages: [message] };
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
  receivers = 2,
  handOffAfterMs = 0,
) {
  return new QueuePoller({
    sqs: sqs as unknown as SQSClient,
    queueUrl: 'http://sqs.local/queue',
    queueArn: 'arn:aws:sqs:us-east-1:000000000000:queue',
    batchSize: 1,
    receivers,
    maxConcurrency,
    handOffAfterMs,
    fn: FUNCTIONS.delivery,
    fnKey: 'delivery',
    handler,
    logger: silentLogger,
  });
}

async function until(condition: () => boolean, what: string, ms = 2000): Promise<void> {
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
      receivers: 1,
      maxConcurrency: 3,
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
