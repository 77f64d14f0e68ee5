/**
 * AWS resource destinations in the engine: events cut into the service's calls, each message its
 * own outcome (a refused entry retried or ended by its own rule, the others delivered), an event
 * too large for the destination ended at once without a call, and no webhook request at all.
 */
import type { ResourceSender } from '../../../shared/delivery/resource-sender';
import { resourceFailure } from '../../../shared/delivery/resource-sender';
import type { ResourceMessage } from '../../../shared/delivery/rules/resource-messages';
import type { AttemptResult } from '../../../shared/domain/attempts';
import type { ResourceDestination } from '../../../shared/domain/model';
import { engineHarness, item, job, subscription } from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;

/** A sender that notes each call and refuses the messages whose body holds `refuse`. */
function scriptedResources(refuse?: string) {
  const calls: ResourceMessage[][] = [];
  const sender: ResourceSender = {
    send: async (_destination, messages) => {
      calls.push([...messages]);
      return messages.map(
        (message): AttemptResult =>
          refuse !== undefined && message.body.includes(refuse)
            ? resourceFailure('InvalidMessageContents', 'refused', 1)
            : { delivered: true, durationMs: 1 },
      );
    },
  };
  return { sender, calls };
}

function harness(resources: ResourceSender, destination: Partial<ResourceDestination> = {}) {
  const h = engineHarness({ resources });
  h.subscriptions.set(
    'orders/audit',
    subscription({
      deadLetter: { container: 'dead' },
      destination: {
        endpointType: 'AwsSqsQueue',
        resourceArn: 'arn:aws:sqs:us-east-1:123456789012:orders',
        ...destination,
      },
    }),
  );
  return h;
}

describe('resource destinations in the engine', () => {
  it('sends the events in calls of at most 10 messages, one event each, and no webhook request', async () => {
    const { sender, calls } = scriptedResources();
    const h = harness(sender);
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job(Array.from({ length: 23 }, (_, i) => item(`e${i}`, t0))), {
      attemptDeadline: farFuture,
    });

    expect(report.delivered).toBe(23);
    expect(calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(JSON.parse(calls[0]?.[0]?.body as string)).toMatchObject({ id: 'e0' });
    expect(h.sender.requests).toHaveLength(0);
  });

  it('gives each message its own outcome: a refused one ends (not retried), the others are delivered', async () => {
    const { sender } = scriptedResources('"e1"');
    const h = harness(sender);
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('e0', t0), item('e1', t0), item('e2', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(report.delivered).toBe(2);
    expect(report.ended).toBe(1);
    expect(report.retried).toBe(0);
    const [record] = h.history.records;
    expect(record).toMatchObject({
      outcome: 'BadRequest',
      next: { action: 'deadLetter', reason: 'NonRetriableOutcome' },
    });
  });

  it('ends an event too large for its destination without a call', async () => {
    const { sender, calls } = scriptedResources();
    const h = harness(sender, {
      endpointType: 'AwsSnsTopic',
      resourceArn: 'arn:aws:sns:us-east-1:123456789012:alerts',
    });
    const t0 = h.clock.now();
    const large = item('big', t0, { event: { data: { blob: 'x'.repeat(300_000) } } });

    const report = await h.engine.processJob(job([large, item('small', t0)]), { attemptDeadline: farFuture });

    expect(report.delivered).toBe(1);
    expect(report.ended).toBe(1);
    expect(calls.flat().map((message) => JSON.parse(message.body).id)).toEqual(['small']);
    expect(h.history.records[0]).toMatchObject({
      outcome: 'PayloadTooLarge',
      error: expect.stringContaining('AwsSnsTopic takes at most 262144'),
    });
  });
});
