/**
 * The engine's attempt phase with output batching and custom headers: a job's events are cut into
 * requests by the subscription's policy, a batch succeeds or fails as a whole, and custom headers
 * (static, secret, dynamic) go on every request.
 */
import type { DeliveryAttributeMapping } from '../../../shared/domain/model';
import { METRIC } from '../../../shared/observability/metrics';
import { engineWithDestination, item, job } from '../../support/fakes';

const farFuture = Number.MAX_SAFE_INTEGER;

const harness = engineWithDestination;

const idsOf = (body: string) => (JSON.parse(body) as Array<{ id: string }>).map((event) => event.id);

describe('output batching in the engine', () => {
  it('sends one request per batch, never more events than the max, all of the job', async () => {
    const h = harness({ maxEventsPerBatch: 4 });
    const t0 = h.clock.now();
    const items = Array.from({ length: 10 }, (_, i) => item(`e${i}`, t0));

    const report = await h.engine.processJob(job(items), { attemptDeadline: farFuture });

    expect(report.delivered).toBe(10);
    expect(h.sender.requests.map(({ request }) => idsOf(request.body))).toEqual([
      ['e0', 'e1', 'e2', 'e3'],
      ['e4', 'e5', 'e6', 'e7'],
      ['e8', 'e9'],
    ]);
    const [first] = h.sender.requests;
    expect(first?.request.headers['aeg-output-event-id']).toBeUndefined();
    expect(first?.request.headers['aeg-delivery-count']).toBe('0');
  });

  it('records one DestinationProcessingDurationInMs value per request, and counts every event delivered', async () => {
    const h = harness({ maxEventsPerBatch: 4 });
    h.sender.answerWith({ delivered: true, httpStatus: 200, durationMs: 25 });
    const t0 = h.clock.now();

    await h.engine.processJob(job(Array.from({ length: 10 }, (_, i) => item(`e${i}`, t0))), {
      attemptDeadline: farFuture,
    });

    const points = h.metrics.drain();
    const stackWide = (name: string) =>
      points.find((point) => point.name === name && Object.keys(point.dimensions).length === 0)?.values;
    expect(stackWide(METRIC.DestinationProcessingDurationInMs)).toEqual([25, 25, 25]);
    expect(stackWide(METRIC.DeliverySuccessCount)).toEqual([10]);
  });

  it('keeps requests under the preferred size, sending a larger event alone', async () => {
    const h = harness({ maxEventsPerBatch: 100, preferredBatchSizeInKilobytes: 1 });
    const t0 = h.clock.now();
    const big = item('big', t0);
    const bigItem = {
      ...big,
      eventJson: big.eventJson.replace('"data":{', `"data":{"pad":"${'x'.repeat(2000)}",`),
    };
    await h.engine.processJob(job([item('a', t0), bigItem, item('b', t0)]), { attemptDeadline: farFuture });

    const bodies = h.sender.requests.map(({ request }) => request.body);
    expect(bodies.map(idsOf)).toEqual([['a'], ['big'], ['b']]);
    expect(Buffer.byteLength(bodies[1] ?? '')).toBeGreaterThan(1024);
  });

  it('retries every event of a failed batch, each counting an attempt, and keeps them together', async () => {
    const h = harness({ maxEventsPerBatch: 10 }, { randoms: [0.5, 0.9] });
    h.sender.answerWith({ delivered: false, httpStatus: 503, outcome: 'GenericError' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('a', t0), item('b', t0), item('c', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(h.sender.requests).toHaveLength(1);
    expect(report.retried).toBe(3);
    const sent = h.queue.take();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.job.items.map((i) => [i.eventId, i.attempts, i.lastOutcome])).toEqual([
      ['a', 1, 'GenericError'],
      ['b', 1, 'GenericError'],
      ['c', 1, 'GenericError'],
    ]);
    expect(h.history.records.map((r) => r.eventId)).toEqual(['a', 'b', 'c']);
  });

  it('ends the events of a batch individually when it fails for good', async () => {
    const h = harness({ maxEventsPerBatch: 10 });
    h.sender.answerWith({ delivered: false, httpStatus: 400, outcome: 'BadRequest' });
    const t0 = h.clock.now();

    const report = await h.engine.processJob(job([item('a', t0), item('b', t0)]), {
      attemptDeadline: farFuture,
    });

    expect(h.sender.requests).toHaveLength(1);
    expect(report.ended).toBe(2);
  });

  it('never batches events with different attempt counts (aeg-delivery-count is true of each)', async () => {
    const h = harness({ maxEventsPerBatch: 10 });
    const t0 = h.clock.now();
    const again = { ...item('b', t0), attempts: 2 };
    await h.engine.processJob(job([item('a', t0), again, item('c', t0)]), { attemptDeadline: farFuture });

    expect(
      h.sender.requests.map(({ request }) => [idsOf(request.body), request.headers['aeg-delivery-count']]),
    ).toEqual([
      [['a', 'c'], '0'],
      [['b'], '2'],
    ]);
  });
});

describe('custom delivery headers in the engine', () => {
  const mappings: DeliveryAttributeMapping[] = [
    { name: 'X-Static', type: 'Static', isSecret: false, value: 'fixed' },
    { name: 'Authorization', type: 'Static', isSecret: true, sealedValue: 'sealed:Bearer s3cret' },
    { name: 'X-Event', type: 'Dynamic', sourceField: 'id' },
  ];
  const sealer = { open: async (sealed: string) => sealed.replace(/^sealed:/, '') };

  it('sends static, secret and dynamic headers on every request', async () => {
    const h = harness({ deliveryAttributeMappings: mappings }, { sealer });
    const t0 = h.clock.now();
    await h.engine.processJob(job([item('a', t0), item('b', t0)]), { attemptDeadline: farFuture });

    expect(h.sender.requests.map(({ request }) => request.headers)).toEqual([
      expect.objectContaining({ 'X-Static': 'fixed', Authorization: 'Bearer s3cret', 'X-Event': 'a' }),
      expect.objectContaining({ 'X-Static': 'fixed', Authorization: 'Bearer s3cret', 'X-Event': 'b' }),
    ]);
  });

  it('batches only events whose dynamic values agree', async () => {
    const h = harness({
      maxEventsPerBatch: 10,
      deliveryAttributeMappings: [{ name: 'X-Subject', type: 'Dynamic', sourceField: 'subject' }],
    });
    const t0 = h.clock.now();
    const about = (id: string, subject: string) => {
      const base = item(id, t0);
      return { ...base, eventJson: base.eventJson.replace(/"subject":"[^"]*"/, `"subject":"${subject}"`) };
    };
    await h.engine.processJob(job([about('a', 'x'), about('b', 'y'), about('c', 'x')]), {
      attemptDeadline: farFuture,
    });

    expect(
      h.sender.requests.map(({ request }) => [idsOf(request.body), request.headers['X-Subject']]),
    ).toEqual([
      [['a', 'c'], 'x'],
      [['b'], 'y'],
    ]);
  });

  it('opens a secret once per subscription version', async () => {
    let opens = 0;
    const h = harness(
      { deliveryAttributeMappings: mappings },
      {
        sealer: {
          open: async (sealed) => {
            opens += 1;
            return sealed;
          },
        },
      },
    );
    const t0 = h.clock.now();
    await h.engine.processJob(job([item('a', t0)]), { attemptDeadline: farFuture });
    await h.engine.processJob(job([item('b', t0)]), { attemptDeadline: farFuture });
    expect(opens).toBe(1);
  });

  it('fails the job (its message comes back) when a secret cannot be opened, sending nothing', async () => {
    const h = harness({ deliveryAttributeMappings: mappings });
    const t0 = h.clock.now();
    await expect(h.engine.processJob(job([item('a', t0)]), { attemptDeadline: farFuture })).rejects.toThrow(
      /no sealing key/,
    );
    expect(h.sender.requests).toHaveLength(0);
    expect(h.queue.sent).toHaveLength(0);
  });
});

describe('a sealed endpoint query string in the engine', () => {
  const sealer = { open: async (sealed: string) => sealed.replace(/^sealed:/, '') };

  it('sends to the whole URL, its query string opened, and never stores it opened', async () => {
    const h = harness(
      { endpointUrl: 'https://hooks.example.test/in', sealedQuery: 'sealed:?token=s3cret' },
      { sealer },
    );
    const t0 = h.clock.now();
    await h.engine.processJob(job([item('a', t0)]), { attemptDeadline: farFuture });
    expect(h.sender.requests.map(({ request }) => request.url)).toEqual([
      'https://hooks.example.test/in?token=s3cret',
    ]);
  });

  it('sends a URL stored whole (before sealing) as it is', async () => {
    const h = harness({ endpointUrl: 'https://hooks.example.test/in?token=plain' });
    await h.engine.processJob(job([item('a', h.clock.now())]), { attemptDeadline: farFuture });
    expect(h.sender.requests.map(({ request }) => request.url)).toEqual([
      'https://hooks.example.test/in?token=plain',
    ]);
  });

  it('fails the job (its message comes back) when the query string cannot be opened, sending nothing', async () => {
    const h = harness({ endpointUrl: 'https://hooks.example.test/in', sealedQuery: 'sealed:?token=s3cret' });
    await expect(
      h.engine.processJob(job([item('a', h.clock.now())]), { attemptDeadline: farFuture }),
    ).rejects.toThrow(/no sealing key/);
    expect(h.sender.requests).toHaveLength(0);
  });
});
