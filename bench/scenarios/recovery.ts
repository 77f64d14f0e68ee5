/**
 * Recovery of a sick endpoint, on a stack of its own at time scale 60: an endpoint made unhealthy,
 * 100,000 events parked in its subscription's backlog, then the endpoint answering again. How
 * long parking takes, and how the backlog drains: time from the first successful probe to the
 * last event delivered, requests in flight at once against the drain concurrency in effect, the
 * busiest second, duplicates and missing events. Unbatched, then (the variant) with batches.
 */
import { TOPIC_PROFILE } from '../../shared/delivery/rules/profiles';
import { round } from '../harness/figures';
import { type LiveStack, liveStack, topicWithSubscription } from '../harness/live-stack';
import { endProgress, log, progress } from '../harness/log';
import type { Figure, Scenario, ScenarioResult } from '../harness/types';
import { RecoverySink } from '../harness/webhooks';
import { checkDeliveries, meanOverActiveSeconds, type PhaseTally, peakOf } from '../recovery';

/**
 * The unhealthy endpoint's first hold (1 min) is 1 s, the longest (3 h) 180 s; the events' time to
 * live (24 h) is 24 min, far longer than parking and draining take here.
 */
const TIME_SCALE = 60;
/** Events per publish request, and publish requests in flight at once. */
const EVENTS_PER_REQUEST = 100;
const PUBLISH_CONCURRENCY = 4;
/** How long the webhook takes to answer once it is up: requests overlap at it, as at a real one. */
const ANSWER_DELAY_MS = 5;
/** The drain's goal on the local stack. */
const DRAIN_GOAL_SECONDS = 60;
/** Give up parking, or draining, after this long without progress (reported as such). */
const STALL_LIMIT_MS = 180_000;

interface HealthDocument {
  state: string;
  held: { events: number; state: string; until?: string } | null;
}

interface Variant {
  /** Name of the result. */
  name: string;
  /** The subscription's batching, in its destination properties; none: one event per request. */
  maxEventsPerBatch?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An Event Grid event of the run, `id` its id. */
const eventText = (id: string, time: string): string =>
  `{"id":"${id}","subject":"bench/${id}","eventType":"Bench.Event","eventTime":"${time}","data":{"id":"${id}"}}`;

/**
 * Publishes every id once, `EVENTS_PER_REQUEST` a request, `PUBLISH_CONCURRENCY` requests at a
 * time (closed loop), with the topic's key. A request refused (429/503, publish throttled while
 * deliveries back up) is sent again after its `Retry-After`; anything else fails the run.
 */
async function publishAll(
  live: LiveStack,
  topic: string,
  key: string,
  ids: readonly string[],
): Promise<{ requests: number; refusals: number }> {
  const url = `${live.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`;
  let next = 0;
  let requests = 0;
  let refusals = 0;
  const worker = async () => {
    while (next < ids.length) {
      const batch = ids.slice(next, next + EVENTS_PER_REQUEST);
      next += batch.length;
      const body = `[${batch.map((id) => eventText(id, new Date().toISOString())).join(',')}]`;
      for (;;) {
        requests += 1;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
          body,
        });
        await response.arrayBuffer();
        if (response.status === 200) break;
        if (response.status !== 429 && response.status !== 503) {
          throw new Error(`publish answered ${response.status}`);
        }
        refusals += 1;
        await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
      }
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_CONCURRENCY }, worker));
  return { requests, refusals };
}

/**
 * Polls `read` every `everyMs` until `done` says so; gives up once `progressOf` has not grown for
 * {@link STALL_LIMIT_MS}. Returns the last value read and whether `done` was reached.
 */
async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  progressOf: (value: T) => number,
  describe: (value: T) => string,
  everyMs = 500,
): Promise<{ value: T; reached: boolean }> {
  let best = Number.NEGATIVE_INFINITY;
  let movedAt = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) {
      endProgress();
      return { value, reached: true };
    }
    const progressed = progressOf(value);
    if (progressed > best) {
      best = progressed;
      movedAt = Date.now();
    }
    progress(describe(value));
    if (Date.now() - movedAt > STALL_LIMIT_MS) {
      endProgress();
      return { value, reached: false };
    }
    await sleep(everyMs);
  }
}

const seconds = (ms: number) => round(ms / 1000, 1);
const count = (n: number) => n.toLocaleString('en-US');

async function measureRecovery(variant: Variant, events: number): Promise<ScenarioResult> {
  const breakers = TOPIC_PROFILE.health.unhealthyAfterFailures;
  const topic = 'recovery';
  const sink = await RecoverySink.start();
  let opened: LiveStack | undefined;
  try {
    const live = await liveStack({ timeScale: TIME_SCALE });
    opened = live;
    const { drainConcurrency, deliveryConcurrency } = live.stack.config;
    const batch = variant.maxEventsPerBatch;
    const key = await topicWithSubscription(
      live,
      topic,
      sink.url,
      'EventGridSchema',
      batch === undefined ? {} : { maxEventsPerBatch: batch },
    );
    const healthPath = `/admin/topics/${topic}/eventSubscriptions/sink/health`;
    const health = async () => (await live.call('GET', healthPath)) as HealthDocument;
    log(
      `${variant.name}: time scale ${TIME_SCALE}, drain concurrency ${drainConcurrency} (delivery concurrency ${deliveryConcurrency}), ${count(events)} events${batch === undefined ? '' : `, maxEventsPerBatch ${batch}`}`,
    );

    // ---- the endpoint made unhealthy: as many failures in a row as that takes, one event per
    // request (a batching subscription would send one request for a publish of several)
    const breakerIds = Array.from({ length: breakers }, (_, n) => `breaker-${n}`);
    for (const id of breakerIds) {
      const broke = await fetch(`${live.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'aeg-sas-key': key },
        body: `[${eventText(id, new Date().toISOString())}]`,
      });
      await broke.arrayBuffer();
      if (broke.status !== 200) throw new Error(`publish answered ${broke.status}`);
    }
    const unhealthy = await until(
      health,
      (doc) => doc.state === 'Unhealthy' && doc.held?.events === breakers,
      (doc) => doc.held?.events ?? 0,
      (doc) => `  making the endpoint unhealthy: ${doc.state}, held ${doc.held?.events ?? 0}`,
    );
    if (!unhealthy.reached)
      throw new Error(`the endpoint did not turn unhealthy: ${JSON.stringify(unhealthy.value)}`);

    // ---- parking
    const ids = Array.from({ length: events }, (_, n) => `rec-${n}`);
    const expectedHeld = breakers + events;
    const parkStarted = Date.now();
    const published = await publishAll(live, topic, key, ids);
    const publishMs = Date.now() - parkStarted;
    log(`  published ${count(events)} events in ${seconds(publishMs)} s (${published.refusals} refusals)`);
    const parked = await until(
      health,
      (doc) => doc.held?.events === expectedHeld,
      (doc) => doc.held?.events ?? 0,
      (doc) => `  parking: held ${count(doc.held?.events ?? 0)} / ${count(expectedHeld)} (${doc.state})`,
      1000,
    );
    const parkMs = Date.now() - parkStarted;
    const heldEvents = parked.value.held?.events ?? 0;
    log(`  held ${count(heldEvents)} / ${count(expectedHeld)} after ${seconds(parkMs)} s`);
    const whileDown = await sink.take();

    // ---- recovery
    sink.switchTo('up', ANSWER_DELAY_MS);
    const switchedAt = Date.now();
    const holdUntil = parked.value.held?.until;
    const drained = await until(
      () => sink.take(),
      (tally) => tally.distinctEvents >= expectedHeld,
      (tally) => tally.distinctEvents,
      (tally) =>
        `  draining: ${count(tally.distinctEvents)} / ${count(expectedHeld)} delivered, ${tally.requests} requests`,
    );
    const up = drained.value;
    const emptied = await until(
      health,
      (doc) => doc.held === null,
      () => 0,
      (doc) => `  waiting for the backlog to empty: held ${doc.held?.events ?? 0}`,
    );
    const check = checkDeliveries([...breakerIds, ...ids], await sink.acknowledged());
    return resultOf({
      variant,
      events,
      breakers,
      drainConcurrency,
      deliveryConcurrency,
      publishMs,
      publishRequests: published.requests,
      publishRefusals: published.refusals,
      parkMs,
      parked: parked.reached,
      heldEvents,
      expectedHeld,
      holdUntil,
      whileDown,
      switchedAt,
      up,
      drainedAll: drained.reached,
      emptied: emptied.reached,
      finalHealth: emptied.value,
      check,
    });
  } finally {
    await opened?.close();
    await sink.close();
  }
}

interface Measured {
  variant: Variant;
  events: number;
  breakers: number;
  drainConcurrency: number;
  deliveryConcurrency: number;
  publishMs: number;
  publishRequests: number;
  publishRefusals: number;
  parkMs: number;
  parked: boolean;
  heldEvents: number;
  expectedHeld: number;
  holdUntil: string | undefined;
  whileDown: PhaseTally;
  switchedAt: number;
  up: PhaseTally;
  drainedAll: boolean;
  emptied: boolean;
  finalHealth: HealthDocument;
  check: ReturnType<typeof checkDeliveries>;
}

function resultOf(m: Measured): ScenarioResult {
  const { up, check } = m;
  const batch = m.variant.maxEventsPerBatch;
  const firstOk = up.firstOkAt;
  const lastNew = up.lastNewEventAt;
  const drainMs = firstOk !== undefined && lastNew !== undefined ? lastNew - firstOk : Number.NaN;
  // Per-second series counted from the first successful probe, not from the switch.
  const fromProbe = (perSecond: readonly number[]) =>
    firstOk === undefined ? [] : perSecond.slice(Math.floor((firstOk - up.since) / 1000));
  const requestRates = fromProbe(up.requestsPerSecond);
  const eventRates = fromProbe(up.eventsPerSecond);
  const figures: Figure[] = [
    {
      metric: `events held in the backlog (${count(m.events)} published + ${m.breakers} that made the endpoint unhealthy)`,
      value: `${count(m.heldEvents)} / ${count(m.expectedHeld)}`,
      unit: 'events',
      goal: 'all',
      met: m.parked,
    },
    {
      metric: 'parking: first publish -> health shows every event held',
      value: seconds(m.parkMs),
      unit: 's',
    },
    { metric: 'of which publishing (closed loop)', value: seconds(m.publishMs), unit: 's' },
    {
      metric: 'requests to the endpoint while it was down (probes)',
      value: m.whileDown.requests,
      unit: 'requests',
    },
    {
      metric: 'webhook up -> first successful probe (the hold then running)',
      value: firstOk === undefined ? 'none' : seconds(firstOk - m.switchedAt),
      unit: 's',
    },
    {
      metric: 'drain: first successful probe -> last event delivered',
      value: seconds(drainMs),
      unit: 's',
      goal: `<= ${DRAIN_GOAL_SECONDS}`,
      met: m.drainedAll && drainMs <= DRAIN_GOAL_SECONDS * 1000,
    },
    {
      metric: 'drained per second (mean over the drain)',
      value: Number.isFinite(drainMs) ? round(up.distinctEvents / (drainMs / 1000), 0) : 'n/a',
      unit: 'events/s',
    },
    {
      metric: 'webhook requests in flight at once, at most (at the webhook) / drain concurrency in effect',
      value: `${up.peakInFlight} / ${m.drainConcurrency}`,
      unit: 'requests',
      goal: `<= ${m.drainConcurrency}`,
      met: up.peakInFlight <= m.drainConcurrency,
    },
    {
      metric: 'connections open at once to the webhook, at most',
      value: up.peakConnections,
      unit: 'connections',
    },
    {
      metric: 'webhook requests per second: busiest second / mean',
      value: `${peakOf(requestRates)} / ${round(meanOverActiveSeconds(requestRates), 0)}`,
      unit: 'requests/s',
    },
    ...(batch === undefined
      ? []
      : [
          {
            metric: 'events per second: busiest second / mean',
            value: `${peakOf(eventRates)} / ${round(meanOverActiveSeconds(eventRates), 0)}`,
            unit: 'events/s',
          },
          {
            metric: 'events per request (mean, while up)',
            value: round(up.requests === 0 ? 0 : eventRates.reduce((a, b) => a + b, 0) / up.requests, 1),
            unit: 'events',
          },
        ]),
    {
      metric: 'events delivered more than once',
      value: `${check.duplicated} (${check.extraDeliveries} extra deliveries)`,
      unit: 'events',
      goal: '0 (no tick was interrupted)',
      met: check.duplicated === 0,
    },
    {
      metric: 'events never delivered',
      value: check.missing,
      unit: 'events',
      goal: '0',
      met: check.missing === 0,
    },
  ];
  const drainEnd = m.drainedAll
    ? 'until the webhook had acknowledged every event'
    : `until it gave up after ${STALL_LIMIT_MS / 1000} s without a new event acknowledged`;
  return {
    name: m.variant.name,
    description: `One topic, one subscription on a webhook in a process of its own${batch === undefined ? ' (one event per request)' : ` with maxEventsPerBatch ${batch}`}, on a local stack of its own at time scale ${TIME_SCALE} (the unhealthy endpoint's holds: 1 min -> 1 s, at most 3 h -> 180 s), delivery concurrency ${m.deliveryConcurrency}, drain concurrency ${m.drainConcurrency} (the default: a quarter of it). The webhook answers 503 while down; ${m.breakers} events published one per request fail and make the endpoint unhealthy (they are held in the backlog too); then ${count(m.events)} events are published, ${EVENTS_PER_REQUEST} per request with the topic key, ${PUBLISH_CONCURRENCY} requests at a time from the benchmark's own process (which also runs the stack's handlers), a refused request sent again after its Retry-After. Parking: from the first of these publishes until the health document's held.events counted all ${count(m.expectedHeld)} (read every second). Then the webhook answers 200, each answer after ${ANSWER_DELAY_MS} ms (so concurrent requests overlap at it and its in-flight count means something); drain time: from its first 200 (the backlog's successful probe) to the last answer that acknowledged an event not seen before, measured at the webhook, ${drainEnd}. In flight: requests received and not yet answered, at the webhook, at most at once; connections: open sockets at most at once (the sender does not pipeline, so each in-flight request has its own). Rates per second from the first successful probe. Duplicates and missing events: every event id acknowledged, over both phases, against the ${count(m.expectedHeld)} published.`,
    figures,
    details: {
      timeScale: TIME_SCALE,
      events: m.events,
      breakers: m.breakers,
      drainConcurrency: m.drainConcurrency,
      deliveryConcurrency: m.deliveryConcurrency,
      answerDelayMs: ANSWER_DELAY_MS,
      publish: { requests: m.publishRequests, refusals: m.publishRefusals, ms: m.publishMs },
      parkMs: m.parkMs,
      holdUntilWhenParked: m.holdUntil ?? null,
      whileDown: {
        requests: m.whileDown.requests,
        peakInFlight: m.whileDown.peakInFlight,
        requestsPerSecond: m.whileDown.requestsPerSecond,
      },
      up: {
        firstOkAfterSwitchMs: firstOk === undefined ? null : firstOk - m.switchedAt,
        drainMs: Number.isFinite(drainMs) ? drainMs : null,
        requests: up.requests,
        peakInFlight: up.peakInFlight,
        peakConnections: up.peakConnections,
        requestsPerSecondFromProbe: requestRates,
        eventsPerSecondFromProbe: eventRates,
      },
      drainedAll: m.drainedAll,
      backlogEmptied: m.emptied,
      finalHealth: m.finalHealth,
      check,
    },
  };
}

export const recovery: Scenario = {
  name: 'recovery',
  description:
    "100,000 events parked in an unhealthy endpoint's backlog, then drained once it answers (unbatched and batched)",
  uses: [],
  async run(ctx) {
    const events = ctx.quick ? 10_000 : 100_000;
    const results = [await measureRecovery({ name: 'recovery' }, events)];
    results.push(
      await measureRecovery(
        { name: 'recovery (batched, maxEventsPerBatch 100)', maxEventsPerBatch: 100 },
        events,
      ),
    );
    return { results };
  },
};
