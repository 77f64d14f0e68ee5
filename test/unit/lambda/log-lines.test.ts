/**
 * What the functions log at Lambda's default application level (INFO): nothing of their own when
 * everything succeeds (but a line per job of an earlier format, upgraded), every failure, and
 * never the invocation's event (publish requests carry keys in their headers), even when
 * Powertools is told to log events.
 */
import { createJobConsumer, eachJob } from '../../../shared/lambda/job-consumer';
import { createObservability } from '../../../shared/lambda/wiring';
import { packJobs, parseJob } from '../../../shared/queue/job-codec';
import { done, retryLater } from '../../../shared/queue/record-outcome';
import { deliveryTarget, item } from '../../support/fakes';
import { formatOneDeliveryBody } from '../../support/job-format-1';
import { lambdaContext, sqsEvent } from '../../support/sqs-events';

const deliveryBody = packJobs({ target: deliveryTarget() }, [item('e1', 1)])[0] as string;

/** These tests send no job of an earlier format. */
const refuseUpgrades = async (): Promise<never> => {
  throw new Error('no job of an earlier format expected');
};

/** The JSON lines Powertools writes while `run` runs, from a logger made with `POWERTOOLS_LOGGER_LOG_EVENT` on. */
async function linesWritten(
  run: (observability: ReturnType<typeof createObservability>) => Promise<unknown>,
) {
  const saved = { ...process.env };
  process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const observability = createObservability('delivery', { logLevel: 'INFO', publishMetrics: () => {} });
    await run(observability);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.env = saved;
  }
  return lines.flatMap((text) => text.split('\n')).filter((line) => line.trim() !== '');
}

describe('at INFO', () => {
  it('a job worked without trouble writes no line, and the event is not logged', async () => {
    const lines = await linesWritten(async (observability) => {
      const handler = createJobConsumer({
        observability,
        upgrade: refuseUpgrades,
        step: eachJob(['deliver'], async () => done({ delivered: 1 })),
      });
      const answer = await handler(sqsEvent([deliveryBody]), lambdaContext());
      expect(answer).toEqual({ batchItemFailures: [] });
    });

    expect(lines).toEqual([]);
  });

  it('a job that failed writes one error line naming its message, still without the event', async () => {
    const lines = await linesWritten(async (observability) => {
      const handler = createJobConsumer({
        observability,
        upgrade: refuseUpgrades,
        step: eachJob(['deliver'], async () => retryLater('the table is unavailable')),
      });
      await handler(sqsEvent([deliveryBody]), lambdaContext());
    });

    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'job failed; it will be received again',
        messageId: 'm0',
        error: 'the table is unavailable',
        function_request_id: 'request-1',
      }),
    ]);
    expect(lines.join('\n')).not.toContain('Lambda invocation event');
  });

  it('a job of an earlier format writes one info line saying it was upgraded, without the event', async () => {
    const legacyBody = formatOneDeliveryBody({ topic: 'orders', subscription: 'audit' }, [item('e1', 1)]);
    const lines = await linesWritten(async (observability) => {
      const handler = createJobConsumer({
        observability,
        upgrade: async () => parseJob(deliveryBody),
        step: eachJob(['deliver'], async () => done({ delivered: 1 })),
      });
      expect(await handler(sqsEvent([legacyBody]), lambdaContext())).toEqual({ batchItemFailures: [] });
    });

    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'job of an earlier format upgraded',
        messageId: 'm0',
        topic: 'orders',
        subscription: 'audit',
        events: 1,
        upgradedFrom: 1,
      }),
    ]);
    expect(lines.join('\n')).not.toContain('eventJson');
  });
});
