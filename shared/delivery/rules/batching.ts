/**
 * Output batching as pure rules: how a subscription's batch policy reads, and how the events of a
 * job are cut into delivery requests. The engine never waits to fill a batch: a batch is made of
 * what is there when the job comes due, which is every due event the invocation received for the
 * subscription (its jobs are merged first, `merge-jobs.ts`). How many events one invocation
 * receives is the delivery queue's event source's (`deliveryBatchingWindow`): at low rates and
 * without a window, batches are small.
 */

/** A subscription's batching settings, as the original names them. */
export interface BatchPolicy {
  /** At most this many events per request (1..5000); never exceeded. */
  readonly maxEventsPerBatch: number;
  /** A target ceiling for a request's body (1..1024 KiB); one larger event still goes, alone. */
  readonly preferredBatchSizeInKilobytes: number;
}

/** The original's limits and defaults (a setting left out takes its default). */
export const BATCH_LIMITS = {
  maxEventsPerBatch: { min: 1, max: 5000, default: 1 },
  preferredBatchSizeInKilobytes: { min: 1, max: 1024, default: 64 },
} as const;

/**
 * The policy of a subscription's settings. Setting either one turns batching on, the other taking
 * a default: a preferred size alone lets a request hold as many events as fit under it (the most
 * a batch may hold, 5000), a maximum alone keeps the 64 KB preferred size. Neither: unbatched.
 */
export const batchPolicyOf = (settings: {
  maxEventsPerBatch?: number;
  preferredBatchSizeInKilobytes?: number;
}): BatchPolicy => ({
  maxEventsPerBatch:
    settings.maxEventsPerBatch ??
    (settings.preferredBatchSizeInKilobytes === undefined
      ? BATCH_LIMITS.maxEventsPerBatch.default
      : BATCH_LIMITS.maxEventsPerBatch.max),
  preferredBatchSizeInKilobytes:
    settings.preferredBatchSizeInKilobytes ?? BATCH_LIMITS.preferredBatchSizeInKilobytes.default,
});

/** Whether a policy can put more than one event in a request. */
export const isBatching = (policy: BatchPolicy): boolean => policy.maxEventsPerBatch > 1;

/**
 * Cuts `entries` (in order) into batches for one request each. A batch holds at most
 * `maxEventsPerBatch` entries and, as a JSON array of their texts (`[a,b,c]`), at most
 * `preferredBatchSizeInKilobytes` KiB, unless it holds a single entry that is larger by itself:
 * that one goes alone, never dropped. Entries with different `key`s (for example, different
 * custom header values) never share a batch; each key's entries keep their order. `bytes` is an
 * entry's size in the request body (UTF-8).
 */
export function cutBatches<T>(
  entries: readonly T[],
  policy: BatchPolicy,
  bytes: (entry: T) => number,
  key: (entry: T) => string = () => '',
): T[][] {
  const ceiling = policy.preferredBatchSizeInKilobytes * 1024;
  const open = new Map<string, { entries: T[]; bytes: number }>();
  const batches: T[][] = [];
  for (const entry of entries) {
    const size = bytes(entry);
    const group = key(entry);
    const current = open.get(group);
    // `[` + `]` around the first entry, a comma before each further one.
    const fits =
      current !== undefined &&
      current.entries.length < policy.maxEventsPerBatch &&
      current.bytes + 1 + size <= ceiling;
    if (fits) {
      current.entries.push(entry);
      current.bytes += 1 + size;
      continue;
    }
    const started = { entries: [entry], bytes: 2 + size };
    batches.push(started.entries);
    open.set(group, started);
  }
  return batches;
}
