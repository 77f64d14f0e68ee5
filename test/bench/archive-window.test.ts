/**
 * The archive scenario's case (e), 1 event a publish on a stack whose delivery queue has a 1 s
 * batching window, and what it is judged by: the goal against the AWS model with the forwards
 * as measured with the window, the cost by item and the forward sends' share of it, the
 * requests refused, the publish-to-webhook latency; and the publishes' pacing.
 */
import {
  ARCHIVE_CASES,
  type ArchiveCheck,
  type ArchiveRun,
  archiveCaseResult,
  checkArchived,
  priceArchive,
} from '../../bench/archive';
import { archiveCaseFigures, costByItem, eventsPerForward, goalVerdict } from '../../bench/archive-figures';
import { type ArchiveCounts, emptyArchiveCounts } from '../../bench/archive-meter';
import { dueAfterMs, paced } from '../../bench/archive-publish';
import type { Figure } from '../../bench/harness/types';
import { MAX_DELIVERY_BATCH_SIZE } from '../../shared/config/event-source-mapping';

/** A run of `events` events, one a publish, in 10 s, whose archive took `counts`. */
const runOf = (events: number, counts: Partial<ArchiveCounts>): ArchiveRun => ({
  events,
  requests: events,
  failedRequests: 0,
  publishSeconds: 10,
  delivered: events,
  deliveryLatencies: Array.from({ length: 100 }, (_, i) => 10 + i),
  publishLatencies: Array.from({ length: 100 }, (_, i) => 1 + i / 10),
  counts: { ...emptyArchiveCounts(), ...counts },
  deadLetter: { invocations: 0, gbSeconds: 0 },
  publishGbSeconds: 0,
  deliveryGbSeconds: 0,
});

describe('one event a publish with a delivery batching window', () => {
  const byMetric = (figures: Figure[], part: string) =>
    figures.find((figure) => figure.metric.includes(part));
  const off = runOf(1000, { publishFunctionSends: 1000 });
  const check: ArchiveCheck = checkArchived(['e1'], ['e1'], { count: 1, bytes: 100 });
  const paired = { on: [1, 2, 3], off: [1, 2, 3] };
  const caseOf = (key: string) => {
    const found = ARCHIVE_CASES.find((c) => c.key === key);
    if (found === undefined) throw new Error(`no case ${key}`);
    return found;
  };
  /** 1,000 events in 10 s, one a publish, each delivery batch without a window holding one: a forward and a receive each. */
  const unbatched = runOf(1000, {
    forwards: { requests: 1000, messages: 1000, bytes: 400_000, chunks: 1000, seconds: 1 },
    receives: { requests: 1000, empty: 0, messages: 1000, bytes: 400_000, chunks: 1000 },
  });
  /** The same with a window: batches of 20 messages, so a forward (of one archive message) per 20 events. */
  const windowed = runOf(1000, {
    forwards: { requests: 50, messages: 50, bytes: 400_000, chunks: 50, seconds: 1 },
    receives: { requests: 50, empty: 0, messages: 50, bytes: 400_000, chunks: 50 },
  });

  it("is case (e): 1 event a publish at a set rate, on a stack whose delivery queue gathers for 1 s, with (b)'s goal", () => {
    const e = caseOf('e');
    expect(e).toMatchObject({
      eventsPerRequest: 1,
      matching: true,
      goalUsd: caseOf('b').goalUsd,
      requestsPerSecond: 100,
      deliveryWindow: { seconds: 1, batchSize: MAX_DELIVERY_BATCH_SIZE },
    });
    // The other cases run on the shared stack, without a window, as fast as answered.
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(caseOf(key).deliveryWindow).toBeUndefined();
      expect(caseOf(key).requestsPerSecond).toBeUndefined();
    }
  });

  it('paces request i at i / rate seconds, and not at all without a rate', () => {
    expect(dueAfterMs(0, 100)).toBe(0);
    expect(dueAfterMs(250, 100)).toBe(2500);
    expect(dueAfterMs(250, undefined)).toBe(0);
  });

  it('sends each index once, none before it is due, from as many clients as asked, until told to stop', async () => {
    // A virtual clock whose waits wake up to a millisecond early, as a real timer may.
    let time = 0;
    const clock = {
      now: () => time,
      sleep: async (ms: number) => {
        time += ms > 1 ? ms - 1 : ms;
      },
    };
    const sent: Array<{ index: number; at: number }> = [];
    let inFlight = 0;
    let most = 0;
    await paced(
      { inFlight: 3, requestsPerSecond: 500 },
      (index) => index < 20,
      async (index) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        sent.push({ index, at: clock.now() });
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
      },
      clock,
    );
    expect(sent.map((s) => s.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Due every 2 ms: none sent before, however early its wait woke.
    for (const { index, at } of sent) expect(at).toBeGreaterThanOrEqual(index * 2);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
    // Open-ended: stops once told, sending no index after.
    let stop = false;
    let calls = 0;
    const done = paced(
      { inFlight: 2, requestsPerSecond: 1000 },
      () => !stop,
      async () => {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop = true;
    await done;
    const after = calls;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(after).toBeGreaterThan(0);
    expect(calls).toBe(after);
  });

  it('judges the goal for (e) against the AWS model, with the forwards as measured with the window', () => {
    const result = archiveCaseResult({ case: caseOf('e'), on: windowed, off, check, records: [], paired });
    expect(eventsPerForward(windowed)).toBe(20);
    // 50,000 forwards and 50,000 receives per million: $0.04, then the modelled rest.
    expect(result.modelled.perMillion.forwardSends).toBe(50_000);
    expect(result.modelled.total).toBeGreaterThan(0.04);
    expect(goalVerdict(result)).toEqual({ goal: '<= 0.1 USD', met: true });
    const figures = archiveCaseFigures(result);
    const aws = byMetric(
      figures,
      'AWS model (requests per event as measured, the delivery queue gathering for 1 s',
    );
    expect(aws).toMatchObject({ goal: '<= 0.1 USD', met: true });
    expect(byMetric(figures, 'archived events per forward send')?.value).toBe(20);
    expect(byMetric(figures, 'archived events per forward send')?.metric).toContain(
      '1 s batching window, up to 100 messages a batch',
    );
    // The requests refused are given for a case sent at a set rate, with the accepted rate.
    expect(byMetric(figures, 'publish requests refused')?.value).toBe('0 (0); 100');
    expect(byMetric(figures, 'publish requests refused')?.metric).toContain(
      'of 1,000 (1,000) sent at 100 a second',
    );
    // Its forwards per event fall as the rate rises: no lowest rate holding them fixed.
    expect(result.goalRate).toBeUndefined();
    expect(byMetric(figures, 'lowest rate')).toBeUndefined();
  });

  it('keeps (b) judged as measured: not met with a forward and a receive per event', () => {
    const result = archiveCaseResult({ case: caseOf('b'), on: unbatched, off, check, records: [], paired });
    expect(goalVerdict(result)).toEqual({ goal: '<= 0.1 USD', met: false });
    const figures = archiveCaseFigures(result);
    expect(byMetric(figures, 'archived events per forward send')?.value).toBe(1);
    // As fast as answered and none refused: no refusals figure.
    expect(byMetric(figures, 'publish requests refused')).toBeUndefined();
    expect(byMetric(figures, 'lowest rate')?.value).toBe('none: the requests per event alone cost more');
    // No goal, no verdict.
    const c = archiveCaseResult({ case: caseOf('c'), on: unbatched, off, check, records: [], paired });
    expect(goalVerdict(c)).toBeUndefined();
  });

  it("gives the forward sends' share of the AWS model, item by item", () => {
    const { modelled } = archiveCaseResult({
      case: caseOf('b'),
      on: unbatched,
      off,
      check,
      records: [],
      paired,
    });
    const items = costByItem(modelled);
    // A forward and a receive per event: $0.40 each per million.
    expect(items.forwardSends).toBeCloseTo(0.4, 9);
    expect(items.receives).toBeCloseTo(0.4, 9);
    // 1,000 events/s... here 100 events/s: batches of 1,000 messages, 100 deletes each.
    expect(items.deletes).toBeCloseTo(100_000 * 0.4e-6, 9);
    expect(items.publishSendsAndChunks).toBe(0);
    const sum =
      items.forwardSends +
      items.receives +
      items.deletes +
      items.publishSendsAndChunks +
      items.puts +
      items.lambdaRequests +
      items.lambdaDuration;
    expect(sum).toBeCloseTo(items.total, 12);
    expect(items.forwardShare).toBeCloseTo(0.4 / modelled.total, 12);
    expect(items.forwardShare).toBeGreaterThan(0.45);
    const figures = archiveCaseFigures(
      archiveCaseResult({ case: caseOf('b'), on: unbatched, off, check, records: [], paired }),
    );
    const byItem = byMetric(figures, 'AWS model per million events by item');
    expect(byItem?.value).toMatch(/^0\.4 \/ 0\.4 \/ 0\.04 \/ 0 \/ .* \(47%\)$/);
    expect(
      costByItem(
        priceArchive({
          ...modelled.perMillion,
          forwardSends: 0,
          receives: 0,
          deletes: 0,
          puts: 0,
          invocations: 0,
          gbSeconds: 0,
        }),
      ).forwardShare,
    ).toBe(0);
  });

  it('reports the publish-to-webhook latency of the cases whose events reach the sink', () => {
    const e = archiveCaseFigures(
      archiveCaseResult({ case: caseOf('e'), on: windowed, off, check, records: [], paired }),
    );
    const latency = byMetric(e, 'publish-to-webhook latency p50 / p99');
    // 10 to 109 ms: p50 the 50th, p99 the 99th.
    expect(latency?.value).toBe('59 / 108 (59 / 108)');
    expect(latency?.metric).toContain('the 1 s batching window adds up to 1 s');
    const c = archiveCaseFigures(
      archiveCaseResult({ case: caseOf('c'), on: unbatched, off, check, records: [], paired }),
    );
    expect(byMetric(c, 'publish-to-webhook')).toBeUndefined();
  });
});
