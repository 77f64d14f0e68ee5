/**
 * The archive scenario's publishes (`scenarios/archive.ts`): one request at a time per client, as
 * fast as answered or at a set rate, and the traffic a case on a stack with a delivery batching
 * window keeps on sending after its measured publishes (see {@link startTrailing}).
 */
import type { LiveStack } from './harness/live-stack';

const EVENT_TYPE = 'Bench.Event';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One publish of `ids`; its status and latency. `stamped`: each event carries its publish time
 * in `data.t`, so the sink counts it and measures its publish-to-webhook latency (default).
 */
export async function publish(
  live: LiveStack,
  topic: string,
  key: string,
  ids: readonly string[],
  stamped = true,
) {
  const time = new Date().toISOString();
  const t = Date.now();
  const body = ids.map(
    (id) =>
      `{"id":"${id}","subject":"bench/${id}","eventType":"${EVENT_TYPE}","eventTime":"${time}","data":{${stamped ? `"t":${t},` : ''}"order":"${id}","amount":12.5}}`,
  );
  const started = performance.now();
  const response = await fetch(`${live.stack.apiUrl}/topics/${topic}/api/events?api-version=2018-01-01`, {
    method: 'POST',
    headers: { 'aeg-sas-key': key, 'content-type': 'application/json' },
    body: `[${body.join(',')}]`,
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** One publish request: its topic, the topic's key and the ids it carries. */
export interface PublishRequest {
  topic: string;
  key: string;
  ids: string[];
}

/** How requests are sent: clients, each sending its next once its last is answered, and a rate. */
export interface Pace {
  inFlight: number;
  /** Requests a second at most: request `index` is not sent before `index / rate` s; absent: no pacing. */
  requestsPerSecond?: number | undefined;
  /** The events carry their publish time (`publish`'s `stamped`; default yes). */
  stamped?: boolean;
}

/** Milliseconds after the first request that request `index` is due at `requestsPerSecond` (0 unpaced). */
export const dueAfterMs = (index: number, requestsPerSecond: number | undefined): number =>
  requestsPerSecond === undefined || requestsPerSecond <= 0 ? 0 : (index * 1000) / requestsPerSecond;

/** The clock `paced` reads and waits on: milliseconds from any origin, and a wait of `ms`. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const realClock: PaceClock = { now: () => performance.now(), sleep };

/**
 * Calls `send(index)` for index 0, 1, ... with `pace.inFlight` clients, each calling for the next
 * index once its last call is done and the index is due ({@link dueAfterMs}), while
 * `more(index)` holds (asked again once the index is due). Answers the seconds from the start to
 * the last call's end.
 */
export async function paced(
  pace: Pace,
  more: (index: number) => boolean,
  send: (index: number) => Promise<void>,
  clock: PaceClock = realClock,
): Promise<number> {
  let next = 0;
  const began = clock.now();
  const client = async () => {
    for (let index = next++; more(index); index = next++) {
      const due = began + dueAfterMs(index, pace.requestsPerSecond);
      // A timer may wake a little before its time: wait again until the clock says it is due.
      while (clock.now() < due) {
        await clock.sleep(due - clock.now());
        if (!more(index)) return;
      }
      await send(index);
    }
  };
  await Promise.all(Array.from({ length: pace.inFlight }, client));
  return (clock.now() - began) / 1000;
}

/**
 * Sends `requests` at `pace`; the latencies and the ids accepted, by topic, the requests refused
 * (not answered 200; not sent again) and how long it took (the first sent to the last answered).
 */
export async function publishAll(live: LiveStack, requests: readonly PublishRequest[], pace: Pace) {
  const latencies = new Map<string, number[]>();
  const accepted = new Map<string, string[]>();
  let failed = 0;
  const seconds = await paced(
    pace,
    (index) => index < requests.length,
    async (index) => {
      const request = requests[index] as PublishRequest;
      const answer = await publish(live, request.topic, request.key, request.ids, pace.stamped ?? true);
      latencies.set(request.topic, [...(latencies.get(request.topic) ?? []), answer.ms]);
      if (answer.status === 200)
        accepted.set(request.topic, [...(accepted.get(request.topic) ?? []), ...request.ids]);
      else failed += 1;
    },
  );
  return { latencies, accepted, failed, seconds };
}

/** The ids of request `request` to `topic` (`prefix` keeps apart the phases on one topic). */
export const requestIds = (topic: string, prefix: string, request: number, events: number): string[] =>
  Array.from({ length: events }, (_, n) => `${topic}-${prefix}${request}-${n}`);

/** Where traffic goes after a windowed case's publishes: a topic without an archive, its subscription on the sink. */
export interface TrailingTopic {
  topic: string;
  key: string;
}

let trailingRuns = 0;

/**
 * Starts one-event publishes to `trailing` at `requestsPerSecond` from `inFlight` clients, until
 * the answered function is called (it resolves once the last is answered). Lambda's pollers
 * long-poll inside a batching window (20 s), so on a quiet queue a phase's last batches would
 * wait up to 20 s past the window; this traffic, kept on until the phase's events have arrived,
 * lets them close at the window as the phase's others did. Its events carry no `data.t`: the
 * sink acknowledges them but neither counts them among the phase's events nor takes their
 * latency; the topic keeps no archive, so the archive's counts have none of them (the publish
 * function's sends aside, which the caller takes before). Refused requests are not sent again.
 */
export function startTrailing(
  live: LiveStack,
  trailing: TrailingTopic,
  pace: { inFlight: number; requestsPerSecond: number },
): () => Promise<void> {
  trailingRuns += 1;
  const run = trailingRuns;
  let stopped = false;
  const done = paced(
    pace,
    () => !stopped,
    async (index) => {
      await publish(live, trailing.topic, trailing.key, [`${trailing.topic}-${run}-${index}`], false);
    },
  );
  return async () => {
    stopped = true;
    await done;
  };
}
