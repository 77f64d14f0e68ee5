/**
 * First-attempt jobs of a publish that took several messages carry the publish's commit id: the
 * engine delivers them once the commit exists, sends them round again while it may still come,
 * and drops them once the grace period after their publish is over.
 */
import { COMMIT_GRACE_MS, COMMIT_REQUEUE_DELAY_SECONDS } from '../../../shared/delivery/engine';
import type { DeliveryItem } from '../../../shared/domain/delivery';
import { METRIC } from '../../../shared/observability/metrics';
import { engineHarness, item, job } from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;

/** A commit store whose reads are counted; `failing` makes every read reject. */
function commitStore() {
  const written = new Set<string>();
  const state = { reads: 0, failing: false };
  return {
    written,
    state,
    exists: async (id: string) => {
      state.reads += 1;
      if (state.failing) throw new Error('table unavailable');
      return written.has(id);
    },
  };
}

const committedJob = (items: DeliveryItem[], commit = 'pub-1') => ({ ...job(items), commit });

describe('delivery engine: publish commits', () => {
  it('delivers a job whose commit exists, reading each commit once per worker', async () => {
    const commits = commitStore();
    commits.written.add('pub-1');
    const h = engineHarness({ commits });
    const t0 = h.clock.now();

    const first = await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });
    const second = await h.engine.processJob(committedJob([item('e2', t0)]), { attemptDeadline: farFuture });

    expect(first.delivered + second.delivered).toBe(2);
    expect(h.sender.requests).toHaveLength(2);
    expect(commits.state.reads).toBe(1);
  });

  it('looks again briefly for a commit written moments later, then delivers', async () => {
    const commits = commitStore();
    const h = engineHarness({ commits });
    const t0 = h.clock.now();
    const exists = commits.exists;
    commits.exists = async (id) => {
      const found = await exists(id);
      commits.written.add(id);
      return found;
    };

    const report = await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });

    expect(report.delivered).toBe(1);
    expect(commits.state.reads).toBe(2);
  });

  it('sends a job round again, commit id kept, while its commit is missing within the grace period', async () => {
    const commits = commitStore();
    const h = engineHarness({ commits });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });

    expect(report).toMatchObject({ hopped: true, delivered: 0 });
    expect(h.sender.requests).toHaveLength(0);
    const [sent] = h.queue.take();
    expect(sent).toMatchObject({ queue: 'retry', delaySeconds: COMMIT_REQUEUE_DELAY_SECONDS });
    expect(sent?.job.commit).toBe('pub-1');
    expect(sent?.job.items).toEqual([item('e1', t0)]);
  });

  it('drops a job whose commit is still missing after the grace period: its publish was refused', async () => {
    const commits = commitStore();
    const h = engineHarness({ commits });
    const t0 = h.clock.now();
    h.clock.advance(COMMIT_GRACE_MS + 1);

    const report = await h.engine.processJob(committedJob([item('e1', t0), item('e2', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(report).toMatchObject({ hopped: false, delivered: 0, ended: 0 });
    expect(h.sender.requests).toHaveLength(0);
    expect(h.queue.sent).toHaveLength(0);
    const dropped = h.metrics
      .drain()
      .find((p) => p.name === METRIC.DroppedEventCount && p.dimensions.DropReason !== undefined);
    expect(dropped).toMatchObject({ values: [2], dimensions: { DropReason: 'PublishNotCommitted' } });
  });

  it('takes the grace period from the settings', async () => {
    const commits = commitStore();
    const h = engineHarness({ commits, commitGraceMs: 3000 });
    const t0 = h.clock.now();
    h.clock.advance(3001);
    await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });
    expect(h.queue.sent).toHaveLength(0);
    expect(h.sender.requests).toHaveLength(0);
  });

  it('never drops a job whose commit cannot be read: it goes round again, however old', async () => {
    const commits = commitStore();
    commits.state.failing = true;
    const h = engineHarness({ commits });
    const t0 = h.clock.now();
    h.clock.advance(COMMIT_GRACE_MS * 10);

    const report = await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });

    expect(report.hopped).toBe(true);
    expect(h.queue.take()[0]?.job.commit).toBe('pub-1');
  });

  it('does not pass the commit id on to the retries it makes', async () => {
    const commits = commitStore();
    commits.written.add('pub-1');
    const h = engineHarness({ commits });
    h.sender.answerWith({ delivered: false, httpStatus: 500, outcome: 'GenericError' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(committedJob([item('e1', t0)]), { attemptDeadline: farFuture });

    expect(report.retried).toBe(1);
    const [retry] = h.queue.take();
    expect(retry?.queue).toBe('retry');
    expect(retry?.job.commit).toBeUndefined();
    expect(JSON.parse(h.queue.sent[0]?.job.body ?? '{}')).not.toHaveProperty('commit');
  });

  it('fails a job with a commit id on a worker that cannot read commits (it comes back)', async () => {
    const h = engineHarness();
    await expect(
      h.engine.processJob(committedJob([item('e1', h.clock.now())]), { attemptDeadline: farFuture }),
    ).rejects.toThrow(/commits/);
  });
});
