/**
 * The load generator's HTTP client, run in its own process (`publisher-process.ts`): the
 * open-loop publisher, and the closed loop that measures this machine's loopback HTTP reference
 * rate. Both go through one pool setting, so the reference is taken with the client the load
 * runs use.
 */
import { Pool } from 'undici';
import type { LoopbackOutcome, LoopbackPlan, PublishOutcome, PublishPlan } from './publisher-protocol';

/** The load generator's connection pool per origin: 32 keep-alive connections, no pipelining. */
export const LOAD_GENERATOR_POOL = { connections: 32, pipelining: 1 } as const;

/**
 * Publishes at a fixed rate regardless of how fast answers come (open loop), so a slow stack
 * shows up as latency and backlog rather than as a politely reduced load.
 */
export async function publishAtRate(plan: PublishPlan): Promise<PublishOutcome> {
  const origin = new URL(plan.apiUrl).origin;
  const pool = new Pool(origin, LOAD_GENERATOR_POOL);
  const path = `/topics/${plan.topic}/api/events?api-version=2018-01-01`;
  const total = Math.round((plan.durationMs / 1000) * plan.requestsPerSecond);
  const interval = 1000 / plan.requestsPerSecond;
  const started = performance.now();
  const outcome: PublishOutcome = {
    requests: 0,
    accepted: 0,
    failedRequests: 0,
    elapsedMs: 0,
    publishLatencies: [],
    answers: {},
    refusalsWithRetryAfter: 0,
    ...(plan.data === undefined ? {} : { acceptedByData: plan.data.map(() => 0) }),
  };
  const answered = (status: string) => {
    outcome.answers[status] = (outcome.answers[status] ?? 0) + 1;
  };
  let nextEvent = 0;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const t = Date.now();
    const cloudEvents = plan.schema === 'CloudEventSchemaV1_0';
    const time = new Date(t).toISOString();
    const eventObject = (id: string, fields: Record<string, unknown>) => {
      switch (plan.schema ?? 'EventGridSchema') {
        case 'CloudEventSchemaV1_0':
          return {
            specversion: '1.0',
            id,
            source: '/bench',
            subject: `bench/${id}`,
            type: 'Bench.Event',
            time,
            data: { ...fields, t },
          };
        // Delivered as Event Grid events with this object as data, so `data.t` is the send time.
        case 'CustomEventSchema':
          return { ...fields, ref: id, kind: 'Bench.Event', path: `bench/${id}`, at: time, t };
        default:
          return {
            id,
            subject: `bench/${id}`,
            eventType: 'Bench.Event',
            eventTime: time,
            data: { ...fields, t },
          };
      }
    };
    const firstEvent = nextEvent;
    const texts = Array.from({ length: plan.eventsPerRequest }, () => {
      const id = `${plan.prefix}-${nextEvent}`;
      const fields = plan.data === undefined ? undefined : plan.data[nextEvent % plan.data.length];
      nextEvent += 1;
      // The common case written out: the same text JSON.stringify gives for that object (ids are
      // made of letters, digits and hyphens), for a fraction of the load generator's time.
      if (fields === undefined && (plan.schema ?? 'EventGridSchema') === 'EventGridSchema') {
        return `{"id":"${id}","subject":"bench/${id}","eventType":"Bench.Event","eventTime":"${time}","data":{"t":${t}}}`;
      }
      return JSON.stringify(eventObject(id, fields ?? {}));
    });
    const sentAt = performance.now();
    outcome.requests += 1;
    inFlight.push(
      pool
        .request({
          method: 'POST',
          path,
          headers: {
            'content-type': cloudEvents ? 'application/cloudevents-batch+json' : 'application/json',
            'aeg-sas-key': plan.key,
          },
          body: `[${texts.join(',')}]`,
        })
        .then(async (response) => {
          await response.body.dump();
          outcome.publishLatencies.push(performance.now() - sentAt);
          answered(String(response.statusCode));
          if (response.statusCode === 200) {
            outcome.accepted += texts.length;
            const byData = outcome.acceptedByData;
            if (byData !== undefined) {
              for (let n = firstEvent; n < firstEvent + texts.length; n += 1) {
                byData[n % byData.length] = (byData[n % byData.length] ?? 0) + 1;
              }
            }
          } else outcome.failedRequests += 1;
          const refused = response.statusCode === 429 || response.statusCode === 503;
          if (refused && response.headers['retry-after'] !== undefined) outcome.refusalsWithRetryAfter += 1;
        })
        .catch(() => {
          answered('error');
          outcome.failedRequests += 1;
        }),
    );
  }
  await Promise.all(inFlight);
  outcome.elapsedMs = performance.now() - started;
  await pool.close();
  return outcome;
}

/**
 * Keeps one request in flight on each connection of the pool (a closed loop: the next request
 * leaves when the answer to the last one is in), so the rate counted is what client and server
 * manage on this machine, not what a plan asked for. A `POST` of `[]`, as small as a publish gets.
 */
export async function loopbackRequests(plan: LoopbackPlan): Promise<LoopbackOutcome> {
  const target = new URL(plan.url);
  const pool = new Pool(target.origin, LOAD_GENERATOR_POOL);
  const inFlight = LOAD_GENERATOR_POOL.connections;
  const measureFrom = performance.now() + plan.warmUpMs;
  const stopAt = measureFrom + plan.measuredMs;
  let answered = 0;
  let failed = 0;
  const counted = () => {
    const at = performance.now();
    return at >= measureFrom && at < stopAt;
  };
  const loop = async () => {
    while (performance.now() < stopAt) {
      try {
        const response = await pool.request({
          method: 'POST',
          path: target.pathname,
          headers: { 'content-type': 'application/json' },
          body: '[]',
        });
        await response.body.dump();
        if (counted()) {
          if (response.statusCode === 200) answered += 1;
          else failed += 1;
        }
      } catch {
        if (counted()) failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  await pool.close();
  return { answered, failed, measuredMs: plan.measuredMs, inFlight };
}
