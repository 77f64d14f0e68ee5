import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { CliError } from '../../../cli/errors';
import { formatRedrive, listParked, redriveParked, summarizeJob } from '../../../cli/parked';
import { parseQueueKey, queueUrlsFromOutputs, stackTargets } from '../../../cli/targets';
import { QUEUES, type QueueKey, queueOutputNames } from '../../../shared/config/resources';
import { deadLetterTargetSchema } from '../../../shared/domain/delivery';
import { packEndedJobs, packJobs } from '../../../shared/queue/job-codec';
import { deliveryTarget, item } from '../../support/fakes';

const keys = Object.keys(QUEUES) as QueueKey[];

describe('summarizeJob', () => {
  it('reads a delivery job’s target and its first event ids', () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => item(id, 1));
    const [body] = packJobs({ target: deliveryTarget({ topic: 't', name: 's' }) }, items);
    expect(summarizeJob(body ?? '')).toEqual({
      kind: 'deliver',
      topic: 't',
      subscription: 's',
      events: 4,
      eventIds: ['a', 'b', 'c'],
    });
  });

  it('names a namespace topic by its <namespace>/<topic> id', () => {
    const [body] = packJobs({ target: deliveryTarget({ topic: 'shop/orders', name: 's' }) }, [item('a', 1)]);
    expect(summarizeJob(body ?? '')).toEqual({
      kind: 'deliver',
      topic: 'shop/orders',
      subscription: 's',
      events: 1,
      eventIds: ['a'],
    });
  });

  it('reads ended deliveries on their way to the dead-letter step', () => {
    const target = deadLetterTargetSchema.parse(
      deliveryTarget({ topic: 't', name: 's', deadLetter: { container: 'dead' } }),
    );
    const [body] = packEndedJobs(target, [{ item: item('x', 1), reason: 'TimeToLiveExceeded', endedAt: 2 }]);
    expect(summarizeJob(body ?? '')).toEqual({
      kind: 'ended',
      topic: 't',
      subscription: 's',
      events: 1,
      eventIds: ['x'],
    });
  });

  // Messages parked before an upgrade to the delivery target are in the first format.
  it('reads a delivery job of the first format and its first event ids', () => {
    const items = ['a', 'b', 'c', 'd'].map((id) => ({ deliveryId: `d-${id}`, eventId: id }));
    expect(summarizeJob(JSON.stringify({ v: 1, topic: 't', subscription: 's', items }))).toEqual({
      kind: 'deliver',
      topic: 't',
      subscription: 's',
      events: 4,
      eventIds: ['a', 'b', 'c'],
    });
    expect(
      summarizeJob(
        JSON.stringify({ v: 1, topic: 'shop/orders', subscription: 's', items: items.slice(0, 1) }),
      ),
    ).toEqual({ kind: 'deliver', topic: 'shop/orders', subscription: 's', events: 1, eventIds: ['a'] });
  });

  it('reads ended deliveries of the first format', () => {
    const ended = [{ item: { eventId: 'x' }, reason: 'TimeToLiveExceeded' }];
    expect(
      summarizeJob(JSON.stringify({ v: 1, kind: 'ended', topic: 't', subscription: 's', ended })),
    ).toEqual({ kind: 'ended', topic: 't', subscription: 's', events: 1, eventIds: ['x'] });
  });

  it.each([
    'not json',
    '42',
    'null',
    '{"v":2,"topic":"t","subscription":"s","items":[]}',
    '{"v":1,"target":{"topic":{"name":"t"},"subscription":"s"},"items":[]}',
    '{"v":2,"target":{"topic":"t","subscription":"s"},"items":[]}',
    '{"v":2,"target":{"topic":{"name":"t"}},"items":[]}',
    '{"v":3,"target":{"topic":{"name":"t"},"subscription":"s"},"items":[]}',
    '{"v":2,"kind":"validate","target":{"topic":{"name":"t"},"subscription":"s"},"code":"c"}',
    '{"hello":1}',
  ])('leaves %s unsummarized', (body) => {
    expect(summarizeJob(body)).toBeUndefined();
  });
});

describe('queue targets', () => {
  it('name the allowed queues when given an unknown one', () => {
    expect(() => parseQueueKey('nope')).toThrow(`unknown queue "nope"; the queues are ${keys.join(', ')}`);
    expect(parseQueueKey(keys[0] as string)).toBe(keys[0]);
  });

  it('read every queue from the stack outputs named in shared/config/resources.ts', async () => {
    const outputs = keys.flatMap((key) => [
      { OutputKey: queueOutputNames(key).url, OutputValue: `https://sqs/${key}` },
      { OutputKey: queueOutputNames(key).redriveUrl, OutputValue: `https://sqs/${key}-redrive` },
    ]);
    const expected = Object.fromEntries(
      keys.map((key) => [key, { url: `https://sqs/${key}`, redriveUrl: `https://sqs/${key}-redrive` }]),
    );
    expect(queueUrlsFromOutputs(outputs)).toEqual(expected);
    const cloudFormation = { send: async () => ({ Stacks: [{ Outputs: outputs }] }) };
    const targets = await stackTargets(
      'Gridwire',
      'eu-west-1',
      cloudFormation as unknown as CloudFormationClient,
    );
    expect(targets.queues).toEqual(expected);
    expect(targets.where).toBe('stack Gridwire');
  });

  it("read another pipeline's queues from the outputs under its prefix (--pipeline)", async () => {
    const outputs = keys.flatMap((key) => [
      { OutputKey: queueOutputNames(key).url, OutputValue: `https://sqs/${key}` },
      { OutputKey: queueOutputNames(key).redriveUrl, OutputValue: `https://sqs/${key}-redrive` },
      { OutputKey: queueOutputNames(key, 'Orders').url, OutputValue: `https://sqs/orders-${key}` },
      {
        OutputKey: queueOutputNames(key, 'Orders').redriveUrl,
        OutputValue: `https://sqs/orders-${key}-redrive`,
      },
    ]);
    const cloudFormation = { send: async () => ({ Stacks: [{ Outputs: outputs }] }) };
    const first = await stackTargets(
      'Gridwire',
      'eu-west-1',
      cloudFormation as unknown as CloudFormationClient,
    );
    expect(first.queues[keys[0] as QueueKey]?.url).toBe(`https://sqs/${keys[0]}`);
    const orders = await stackTargets(
      'Gridwire',
      'eu-west-1',
      cloudFormation as unknown as CloudFormationClient,
      'Orders',
    );
    expect(orders.queues).toEqual(
      Object.fromEntries(
        keys.map((key) => [
          key,
          { url: `https://sqs/orders-${key}`, redriveUrl: `https://sqs/orders-${key}-redrive` },
        ]),
      ),
    );
    expect(orders.where).toBe('pipeline Orders of stack Gridwire');
    await expect(
      stackTargets('Gridwire', 'eu-west-1', cloudFormation as unknown as CloudFormationClient, 'Nope'),
    ).rejects.toThrow(
      `pipeline Nope of stack Gridwire has none of the queue outputs (Nope${QUEUES[keys[0] as QueueKey].id}Url`,
    );
  });

  it('say so when the stack does not exist', async () => {
    const cloudFormation = {
      send: async () => {
        throw Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' });
      },
    };
    await expect(
      stackTargets('Nope', 'eu-west-1', cloudFormation as unknown as CloudFormationClient),
    ).rejects.toThrow(new CliError('stack Nope does not exist in eu-west-1'));
  });
});

/** An SQS queue pair in memory; sends of bodies containing "refuse" fail. */
function fakeSqs(parked: string[]) {
  const redrive = parked.map((body, index) => ({ id: `m${index}`, body, hidden: false, deleted: false }));
  const target: string[] = [];
  const calls: string[] = [];
  const sqs = {
    send: async (command: unknown) => {
      calls.push((command as object).constructor.name);
      if (command instanceof ReceiveMessageCommand) {
        const max = command.input.MaxNumberOfMessages ?? 1;
        const messages = redrive.filter((m) => !m.hidden && !m.deleted).slice(0, max);
        for (const m of messages) m.hidden = true;
        return { Messages: messages.map((m) => ({ MessageId: m.id, ReceiptHandle: m.id, Body: m.body })) };
      }
      if (command instanceof SendMessageBatchCommand) {
        const entries = command.input.Entries ?? [];
        const refused = entries.filter((entry) => entry.MessageBody?.includes('refuse'));
        const sent = entries.filter((entry) => !refused.includes(entry));
        for (const entry of sent) {
          expect(entry.DelaySeconds).toBe(0);
          target.push(entry.MessageBody ?? '');
        }
        return {
          Successful: sent.map((entry) => ({ Id: entry.Id })),
          Failed: refused.map((entry) => ({ Id: entry.Id, Code: 'InternalError', SenderFault: false })),
        };
      }
      if (command instanceof DeleteMessageBatchCommand) {
        for (const entry of command.input.Entries ?? []) {
          const message = redrive.find((m) => m.id === entry.ReceiptHandle);
          if (message !== undefined) message.deleted = true;
        }
        return { Successful: command.input.Entries?.map((entry) => ({ Id: entry.Id })) };
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        for (const entry of command.input.Entries ?? []) {
          const message = redrive.find((m) => m.id === entry.ReceiptHandle);
          if (message !== undefined) message.hidden = entry.VisibilityTimeout !== 0;
        }
        return { Successful: command.input.Entries?.map((entry) => ({ Id: entry.Id })) };
      }
      throw new Error(`unexpected ${calls.at(-1)}`);
    },
  };
  return {
    sqs: sqs as unknown as SQSClient,
    target,
    calls,
    stillParked: () => redrive.filter((m) => !m.deleted),
  };
}

const queue = { key: 'delivery' as QueueKey, url: 'https://sqs/delivery', redriveUrl: 'https://sqs/redrive' };

describe('listParked', () => {
  /** A redrive queue whose approximate count says `counted` while it holds `held`; the receives' waits. */
  function countedQueue(counted: number, held: readonly string[]) {
    const visible = held.map((body, index) => ({
      MessageId: `m${index}`,
      ReceiptHandle: `m${index}`,
      Body: body,
    }));
    const waits: (number | undefined)[] = [];
    const sqs = {
      send: async (command: unknown) => {
        if (command instanceof GetQueueAttributesCommand) {
          return {
            Attributes: {
              ApproximateNumberOfMessages: String(counted),
              ApproximateNumberOfMessagesNotVisible: '0',
            },
          };
        }
        if (command instanceof ReceiveMessageCommand) {
          waits.push(command.input.WaitTimeSeconds);
          return { Messages: visible.splice(0, command.input.MaxNumberOfMessages ?? 1) };
        }
        if (command instanceof ChangeMessageVisibilityBatchCommand) return { Successful: [] };
        throw new Error(`unexpected ${(command as object).constructor.name}`);
      },
    };
    return { sqs: sqs as unknown as SQSClient, waits };
  }

  it('waits for messages (long polling) only on a queue whose count says some are parked', async () => {
    const empty = countedQueue(0, []);
    expect(await listParked(empty.sqs, queue)).toMatchObject({ parked: 0, messages: [] });
    expect(empty.waits).toEqual([0]);
    const some = countedQueue(2, ['job 1', 'job 2']);
    expect((await listParked(some.sqs, queue)).messages).toHaveLength(2);
    expect(some.waits).toEqual([1]);
  });

  it('still shows messages the approximate count has not caught up with', async () => {
    const lagging = countedQueue(0, ['job 1']);
    const report = await listParked(lagging.sqs, queue);
    expect(report.messages.map((message) => message.messageId)).toEqual(['m0']);
    expect(lagging.waits).toEqual([0, 0]);
  });
});

describe('redriveParked', () => {
  it('deletes only what was sent, and makes the rest visible again', async () => {
    const bodies = Array.from({ length: 13 }, (_, i) => (i === 4 ? 'refuse me' : `job ${i}`));
    const fake = fakeSqs(bodies);
    const result = await redriveParked(fake.sqs, queue, { waitTimeSeconds: 0 });
    expect(result).toEqual({
      queue: 'delivery',
      moved: 12,
      notDeleted: 0,
      failed: [{ messageId: 'm4', reason: 'InternalError' }],
    });
    expect(fake.target).toEqual(bodies.filter((body) => body !== 'refuse me'));
    expect(fake.stillParked()).toEqual([{ id: 'm4', body: 'refuse me', hidden: false, deleted: false }]);
    expect(formatRedrive([result])).toBe(
      'delivery: moved 12 messages back to the delivery queue\n  m4 stays parked: InternalError',
    );
  });

  it('stops at the limit', async () => {
    const fake = fakeSqs(['a', 'b', 'c']);
    expect((await redriveParked(fake.sqs, queue, { limit: 2, waitTimeSeconds: 0 })).moved).toBe(2);
    expect(fake.target).toEqual(['a', 'b']);
    expect(fake.stillParked().map((m) => m.body)).toEqual(['c']);
  });
});

/**
 * A FIFO redrive queue in memory, answering as AWS may: several messages of one group in one
 * receive, in order. Records every SendMessageBatch entry; sends of bodies containing "refuse" fail.
 */
function fakeFifoSqs(parked: Array<{ body: string; group: string }>) {
  const redrive = parked.map((message, index) => ({
    id: `m${index}`,
    ...message,
    hidden: false,
    deleted: false,
  }));
  const requests: Array<Array<Record<string, unknown>>> = [];
  const sqs = {
    send: async (command: unknown) => {
      if (command instanceof ReceiveMessageCommand) {
        expect(command.input.MessageSystemAttributeNames).toEqual(
          expect.arrayContaining(['MessageGroupId', 'MessageDeduplicationId', 'SequenceNumber']),
        );
        const max = command.input.MaxNumberOfMessages ?? 1;
        const messages = redrive.filter((m) => !m.hidden && !m.deleted).slice(0, max);
        for (const m of messages) m.hidden = true;
        return {
          Messages: messages.map((m, index) => ({
            MessageId: m.id,
            ReceiptHandle: m.id,
            Body: m.body,
            Attributes: {
              MessageGroupId: m.group,
              MessageDeduplicationId: `event-${m.id}`,
              SequenceNumber: String(index).padStart(20, '0'),
            },
          })),
        };
      }
      if (command instanceof SendMessageBatchCommand) {
        const entries = command.input.Entries ?? [];
        requests.push(entries.map((entry) => ({ ...entry })));
        const refused = entries.filter((entry) => entry.MessageBody?.includes('refuse'));
        return {
          Successful: entries.filter((entry) => !refused.includes(entry)).map((entry) => ({ Id: entry.Id })),
          Failed: refused.map((entry) => ({ Id: entry.Id, Code: 'InternalError', SenderFault: false })),
        };
      }
      if (command instanceof DeleteMessageBatchCommand) {
        for (const entry of command.input.Entries ?? []) {
          const message = redrive.find((m) => m.id === entry.ReceiptHandle);
          if (message !== undefined) message.deleted = true;
        }
        return { Successful: command.input.Entries?.map((entry) => ({ Id: entry.Id })) };
      }
      if (command instanceof ChangeMessageVisibilityBatchCommand) {
        for (const entry of command.input.Entries ?? []) {
          const message = redrive.find((m) => m.id === entry.ReceiptHandle);
          if (message !== undefined) message.hidden = entry.VisibilityTimeout !== 0;
        }
        return { Successful: command.input.Entries?.map((entry) => ({ Id: entry.Id })) };
      }
      throw new Error('unexpected command');
    },
  };
  return {
    sqs: sqs as unknown as SQSClient,
    requests,
    sent: () => requests.flat().filter((entry) => !String(entry.MessageBody).includes('refuse')),
    stillParked: () => redrive.filter((m) => !m.deleted).map((m) => m.id),
  };
}

describe('redriveParked from the ordered (FIFO) queue', () => {
  const ordered = {
    key: 'ordered' as QueueKey,
    url: 'https://sqs/ordered.fifo',
    redriveUrl: 'https://sqs/ordered-redrive.fifo',
  };

  it('sends each message back in its group, its message id as the de-duplication id, without a delay, a group in order and never twice in a request', async () => {
    expect(QUEUES.ordered.fifo).toBe(true);
    const fake = fakeFifoSqs([
      { body: 'a1', group: 'A' },
      { body: 'a2', group: 'A' },
      { body: 'b1', group: 'B' },
      { body: 'a3', group: 'A' },
      { body: 'b2', group: 'B' },
    ]);
    const result = await redriveParked(fake.sqs, ordered, { waitTimeSeconds: 0 });
    expect(result).toEqual({ queue: 'ordered', moved: 5, notDeleted: 0, failed: [] });
    expect(fake.sent()).toEqual([
      { Id: '0', MessageBody: 'a1', MessageGroupId: 'A', MessageDeduplicationId: 'm0' },
      { Id: '1', MessageBody: 'b1', MessageGroupId: 'B', MessageDeduplicationId: 'm2' },
      { Id: '0', MessageBody: 'a2', MessageGroupId: 'A', MessageDeduplicationId: 'm1' },
      { Id: '1', MessageBody: 'b2', MessageGroupId: 'B', MessageDeduplicationId: 'm4' },
      { Id: '0', MessageBody: 'a3', MessageGroupId: 'A', MessageDeduplicationId: 'm3' },
    ]);
    for (const request of fake.requests) {
      const groups = request.map((entry) => entry.MessageGroupId);
      expect(new Set(groups).size).toBe(groups.length);
    }
    expect(fake.stillParked()).toEqual([]);
  });

  it("keeps a key's later messages parked behind one that could not be moved; other keys go on", async () => {
    const fake = fakeFifoSqs([
      { body: 'a1', group: 'A' },
      { body: 'refuse a2', group: 'A' },
      { body: 'b1', group: 'B' },
      { body: 'a3', group: 'A' },
      { body: 'b2', group: 'B' },
    ]);
    const result = await redriveParked(fake.sqs, ordered, { waitTimeSeconds: 0 });
    expect(result).toEqual({
      queue: 'ordered',
      moved: 3,
      notDeleted: 0,
      failed: [
        { messageId: 'm1', reason: 'InternalError' },
        { messageId: 'm3', reason: 'stays behind m1, an earlier message of its key that stays parked' },
      ],
    });
    expect(fake.sent().map((entry) => entry.MessageBody)).toEqual(['a1', 'b1', 'b2']);
    expect(fake.stillParked()).toEqual(['m1', 'm3']);
  });
});
