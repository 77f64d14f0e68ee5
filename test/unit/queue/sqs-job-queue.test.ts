import { createHash } from 'node:crypto';
import { SQSClient } from '@aws-sdk/client-sqs';
import { archiveJobsOf } from '../../../shared/archive/forward';
import { replayPageBody } from '../../../shared/archive/replay';
import type { QueueKey } from '../../../shared/config/resources';
import type { DeadLetterTarget } from '../../../shared/domain/delivery';
import { JOB_SCHEMAS, type JobKind } from '../../../shared/domain/delivery';
import {
  backlogTickBody,
  messageGroupId,
  messageGroupOf,
  orderedGroupId,
  packEndedJobs,
  packFanOut,
  packJobs,
  packOrderedJobs,
  packStoreJobs,
  parseJob,
  storedFanOutBody,
  targetGroupId,
  validationJobBody,
} from '../../../shared/queue/job-codec';
import {
  batchJobs,
  type OutgoingJob,
  QueueRejectedError,
  SqsJobQueue,
} from '../../../shared/queue/sqs-job-queue';
import { deliveryTarget, item } from '../../support/fakes';

describe('job queue', () => {
  it('batches at ten entries or the byte limit', () => {
    const small = Array.from({ length: 23 }, () => ({ body: 'x', delaySeconds: 0, groupId: 'g' }));
    expect(batchJobs(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const big = Array.from({ length: 5 }, () => ({ body: 'y'.repeat(400), delaySeconds: 0, groupId: 'g' }));
    expect(batchJobs(big, 1000).map((b) => b.length)).toEqual([2, 2, 1]);
  });

  it('re-sends entries SQS reports as failed, then succeeds', async () => {
    const calls: string[][] = [];
    const sqs = {
      send: async (command: { input: { Entries: { Id: string }[] } }) => {
        calls.push(command.input.Entries.map((e) => e.Id));
        return calls.length === 1 ? { Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] } : {};
      },
    } as unknown as SQSClient;
    await new SqsJobQueue(sqs, { delivery: 'q' }, { backoffMs: 1 }).send('delivery', [
      { body: 'a', delaySeconds: 0, groupId: 'g' },
      { body: 'b', delaySeconds: 0, groupId: 'g' },
    ]);
    expect(calls).toEqual([['0', '1'], ['1']]);
  });

  it('gives up at once on a sender fault and names it', async () => {
    const sqs = {
      send: async () => ({
        Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'too big' }],
      }),
    } as unknown as SQSClient;
    const sent = new SqsJobQueue(sqs, { retry: 'q' }).send('retry', [
      { body: 'a', delaySeconds: 5, groupId: 'g' },
    ]);
    await expect(sent).rejects.toThrow('SQS refused 1 of 1 messages: InvalidParameterValue too big');
    // A permanent refusal is typed, so callers can tell it from a transient one.
    await expect(sent).rejects.toBeInstanceOf(QueueRejectedError);
    await expect(sent).rejects.toMatchObject({ code: 'InvalidParameterValue' });
  });

  it('refuses to send to a queue it has no URL for', async () => {
    await expect(
      new SqsJobQueue({} as SQSClient, {}).send('retry', [{ body: 'a', delaySeconds: 0, groupId: 'g' }]),
    ).rejects.toThrow('no URL configured for the retry queue');
  });
});

describe('message groups for fair queues', () => {
  it.each([
    ['a subscription', { name: 'orders' }, 'audit', 'orders/audit'],
    [
      "a namespace topic's subscription",
      { namespace: 'shop', name: 'orders' },
      'billing',
      'shop/orders/billing',
    ],
    ['names in any case, as the same subscription', { name: 'Orders' }, 'AUDIT', 'orders/audit'],
    ['a fan-out: the topic', { name: 'orders' }, undefined, 'orders/*'],
    ["a namespace topic's fan-out", { namespace: 'shop', name: 'orders' }, undefined, 'shop/orders/*'],
  ])('names the tenant of %s', (_case, topic, subscription, expected) => {
    expect(messageGroupId(topic, subscription)).toBe(expected);
  });

  it("keeps a namespace topic apart from a classic topic's subscription of the same names", () => {
    expect(messageGroupId({ namespace: 'orders', name: 'audit' })).not.toBe(
      messageGroupId({ name: 'orders' }, 'audit'),
    );
  });

  it('hashes a tenant longer than SQS takes, the same for any case', () => {
    const topic = { namespace: 'n'.repeat(50), name: 't'.repeat(50) };
    const subscription = 's'.repeat(64);
    const id = messageGroupId(topic, subscription);
    expect(id).toMatch(/^#[0-9a-f]{64}$/);
    expect(messageGroupId({ namespace: 'N'.repeat(50), name: 'T'.repeat(50) }, 'S'.repeat(64))).toBe(id);
    expect(messageGroupId(topic, 's'.repeat(63))).not.toBe(id);
    // At the limit it stays readable.
    const longest = messageGroupId({ name: 't'.repeat(63) }, 's'.repeat(64));
    expect(longest).toHaveLength(128);
    expect(longest.startsWith('ttt')).toBe(true);
  });

  it.each([
    ['a space', 'audit log'],
    ['a letter beyond ASCII', 'prüfung'],
    ['a control character', 'a\u0001b'],
  ])('hashes a tenant holding %s, which SQS refuses', (_case, subscription) => {
    expect(messageGroupId({ name: 'orders' }, subscription)).toMatch(/^#[0-9a-f]{64}$/);
  });
});

/**
 * A real SQS client whose SendMessageBatch requests are caught once serialized (what would go on
 * the wire) and answered as all taken; nothing leaves the process.
 */
function capturingClient(): { sqs: SQSClient; entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  const sqs = new SQSClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  sqs.middlewareStack.add(
    () => async (args) => {
      const { body } = args.request as { body: string | Uint8Array };
      const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
      const sent = JSON.parse(text) as { Entries: Array<Record<string, unknown>> };
      entries.push(...sent.Entries);
      return {
        output: {
          $metadata: {},
          Successful: sent.Entries.map((entry) => ({
            Id: entry.Id,
            MessageId: `m-${String(entry.Id)}`,
            // The client checks each body's digest, as it would SQS's answer.
            MD5OfMessageBody: createHash('md5').update(String(entry.MessageBody)).digest('hex'),
          })),
          Failed: [],
        },
        response: {},
      };
    },
    { step: 'finalizeRequest', priority: 'high', name: 'captureSendMessageBatch' },
  );
  return { sqs, entries };
}

describe('every job kind is sent with its message group', () => {
  const now = 1_700_000_000_000;
  const target = deliveryTarget({ topic: 'Orders', name: 'Audit' });
  const namespaceTarget = deliveryTarget({
    topic: 'shop/orders',
    name: 'billing',
    deliveryProfile: 'namespace',
  });
  const deadLetter: DeadLetterTarget = {
    ...target,
    deadLetter: { container: 'dead', format: 'EventGridSchema' },
  };
  const items = [item('e1', now), item('e2', now)];
  const fanOut = packFanOut(namespaceTarget.topic, items, [
    { target: namespaceTarget, matched: [0] },
    { target: { ...namespaceTarget, subscription: 'audit' }, matched: [0, 1] },
  ]);

  // Each kind as its sender packs and groups it (publisher, engine follow-ups, backlog,
  // management), on a queue that carries it.
  const sent: ReadonlyArray<[JobKind, QueueKey, OutgoingJob, string]> = [
    [
      'deliver',
      'delivery',
      { body: packJobs({ target }, items)[0] ?? '', delaySeconds: 0, groupId: targetGroupId(target) },
      'orders/audit',
    ],
    [
      'deliver',
      'retry',
      {
        body: packJobs({ target: namespaceTarget, dueAt: now }, items)[0] ?? '',
        delaySeconds: 60,
        groupId: targetGroupId(namespaceTarget),
      },
      'shop/orders/billing',
    ],
    [
      'validate',
      'delivery',
      {
        body: validationJobBody({ target, code: 'c', validationUrl: 'https://x.test/v' }),
        delaySeconds: 0,
        groupId: targetGroupId(target),
      },
      'orders/audit',
    ],
    [
      'fanout',
      'delivery',
      { body: fanOut, delaySeconds: 0, groupId: messageGroupId(namespaceTarget.topic) },
      'shop/orders/*',
    ],
    [
      'stored-fanout',
      'delivery',
      {
        body: storedFanOutBody(namespaceTarget.topic, 'k', 10),
        delaySeconds: 0,
        groupId: messageGroupId(namespaceTarget.topic),
      },
      'shop/orders/*',
    ],
    [
      'ended',
      'endedDelivery',
      {
        body:
          packEndedJobs(deadLetter, [
            { item: items[0] ?? item('x', now), reason: 'TimeToLiveExceeded', endedAt: now },
          ])[0] ?? '',
        delaySeconds: 300,
        groupId: targetGroupId(deadLetter),
      },
      'orders/audit',
    ],
    [
      'store',
      'backlog',
      {
        body: packStoreJobs({ target, dueAt: now, heldBy: 'probation' }, items)[0] ?? '',
        delaySeconds: 0,
        groupId: targetGroupId(target),
      },
      'orders/audit',
    ],
    [
      'backlog-tick',
      'retry',
      { body: backlogTickBody(target, 'token-1'), delaySeconds: 30, groupId: targetGroupId(target) },
      'orders/audit',
    ],
    [
      'ordered',
      'ordered',
      {
        body: packOrderedJobs({ target, key: 'orders/1' }, items)[0] ?? '',
        delaySeconds: 0,
        groupId: orderedGroupId(target, 'orders/1'),
        deduplicationId: 'pub-1.audit.orders/1',
      },
      orderedGroupId(target, 'orders/1'),
    ],
    [
      'archive',
      'archive',
      archiveJobsOf([{ topic: namespaceTarget.topic, copy: 'Y29weQ==' }])[0] as OutgoingJob,
      'shop/orders/*',
    ],
    [
      'replay-page',
      'delivery',
      {
        body: replayPageBody(target.topic, target.subscription, 'rp-1'),
        delaySeconds: 0,
        groupId: targetGroupId(target),
      },
      'orders/audit',
    ],
  ];

  it('covers every kind', () => {
    expect(new Set(sent.map(([kind]) => kind))).toEqual(new Set(Object.keys(JOB_SCHEMAS)));
  });

  it.each(sent)(
    'a %s job on the %s queue carries its tenant as MessageGroupId',
    async (kind, queue, job, expected) => {
      const parsed = parseJob(job.body);
      expect(parsed.kind ?? 'deliver').toBe(kind);
      // The group its sender chose is the one the job itself names.
      expect(messageGroupOf(parsed)).toBe(expected);
      const { sqs, entries } = capturingClient();
      await new SqsJobQueue(sqs, { [queue]: `https://sqs.test/${queue}` }).send(queue, [job, job]);
      expect(entries).toEqual([
        expect.objectContaining({ Id: '0', MessageGroupId: expected, MessageBody: job.body }),
        expect.objectContaining({ Id: '1', MessageGroupId: expected, MessageBody: job.body }),
      ]);
    },
  );

  it('sends to a FIFO queue with the de-duplication id, no delay, one request after another', async () => {
    const { sqs, entries } = capturingClient();
    const jobs = Array.from({ length: 12 }, (_, index) => ({
      body: `b${index}`,
      delaySeconds: 0,
      groupId: 'g',
      deduplicationId: `d${index}`,
    }));
    await new SqsJobQueue(sqs, { ordered: 'https://sqs.test/o.fifo' }).send('ordered', jobs);
    expect(entries.map((entry) => entry.MessageDeduplicationId)).toEqual(
      jobs.map((job) => job.deduplicationId),
    );
    expect(entries.every((entry) => !('DelaySeconds' in entry) && entry.MessageGroupId === 'g')).toBe(true);
  });

  it('refuses a FIFO job without a de-duplication id or with a delay', async () => {
    const { sqs } = capturingClient();
    const queue = new SqsJobQueue(sqs, { ordered: 'https://sqs.test/o.fifo' });
    await expect(queue.send('ordered', [{ body: 'b', delaySeconds: 0, groupId: 'g' }])).rejects.toThrow(
      /needs a deduplicationId/,
    );
    await expect(
      queue.send('ordered', [{ body: 'b', delaySeconds: 5, groupId: 'g', deduplicationId: 'd' }]),
    ).rejects.toThrow(/no delay of its own/);
  });

  it('does not send a refused FIFO entry again on its own (it would land behind later ones of its group)', async () => {
    const calls: unknown[] = [];
    const sqs = {
      send: async (command: { input: unknown }) => {
        calls.push(command.input);
        return { Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }] };
      },
    } as unknown as SQSClient;
    await expect(
      new SqsJobQueue(sqs, { ordered: 'q.fifo' }, { backoffMs: 1 }).send('ordered', [
        { body: 'a', delaySeconds: 0, groupId: 'g', deduplicationId: 'da' },
        { body: 'b', delaySeconds: 0, groupId: 'g', deduplicationId: 'db' },
      ]),
    ).rejects.toThrow(/SQS refused 1 of 2 messages/);
    expect(calls).toHaveLength(1);
  });

  it('keeps the group on entries sent again after a transient failure', async () => {
    const calls: Array<Array<{ Id: string; MessageGroupId?: string }>> = [];
    const sqs = {
      send: async (command: { input: { Entries: Array<{ Id: string; MessageGroupId?: string }> } }) => {
        calls.push(command.input.Entries);
        return calls.length === 1 ? { Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] } : {};
      },
    } as unknown as SQSClient;
    await new SqsJobQueue(sqs, { retry: 'q' }, { backoffMs: 1 }).send('retry', [
      { body: 'a', delaySeconds: 0, groupId: 'orders/audit' },
      { body: 'b', delaySeconds: 0, groupId: 'orders/billing' },
    ]);
    expect(calls[1]).toEqual([expect.objectContaining({ Id: '1', MessageGroupId: 'orders/billing' })]);
  });
});
