import type { SQSClient } from '@aws-sdk/client-sqs';
import { batchJobs, QueueRejectedError, SqsJobQueue } from '../../../shared/queue/sqs-job-queue';

describe('job queue', () => {
  it('batches at ten entries or the byte limit', () => {
    const small = Array.from({ length: 23 }, () => ({ body: 'x', delaySeconds: 0 }));
    expect(batchJobs(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const big = Array.from({ length: 5 }, () => ({ body: 'y'.repeat(400), delaySeconds: 0 }));
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
      { body: 'a', delaySeconds: 0 },
      { body: 'b', delaySeconds: 0 },
    ]);
    expect(calls).toEqual([['0', '1'], ['1']]);
  });

  it('gives up at once on a sender fault and names it', async () => {
    const sqs = {
      send: async () => ({
        Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'too big' }],
      }),
    } as unknown as SQSClient;
    const sent = new SqsJobQueue(sqs, { retry: 'q' }).send('retry', [{ body: 'a', delaySeconds: 5 }]);
    await expect(sent).rejects.toThrow('SQS refused 1 of 1 messages: InvalidParameterValue too big');
    // A permanent refusal is typed, so callers can tell it from a transient one.
    await expect(sent).rejects.toBeInstanceOf(QueueRejectedError);
    await expect(sent).rejects.toMatchObject({ code: 'InvalidParameterValue' });
  });

  it('refuses to send to a queue it has no URL for', async () => {
    await expect(
      new SqsJobQueue({} as SQSClient, {}).send('retry', [{ body: 'a', delaySeconds: 0 }]),
    ).rejects.toThrow('no URL configured for the retry queue');
  });
});
