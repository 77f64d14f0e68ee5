/**
 * Small in-memory caches for lookups a warm function repeats: `TtlCache`, with a time to live and
 * a size bound (topics, subscription lists, subscriptions), and `LoadedOnce`, for values that do
 * not change (opened secrets, a queue's URL). Concurrent misses for one key share a single load.
 */

interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
  /** The last value loaded for the key (kept only with `staleOnError`). */
  last?: { value: V };
}

export interface TtlCacheOptions<V> {
  maxEntries?: number;
  /** Values for which this returns false are handed out but not kept (e.g. "not found"). */
  keep?: (value: V) => boolean;
  /**
   * When a load fails, answer with the last value loaded for the key instead (if there is one)
   * and try loading again a TTL later: a dependency that is down does not take away what was
   * known before it went down. A value `keep` refuses (a confirmed "not found") forgets it.
   */
  staleOnError?: boolean;
  /** Called each time a stale value is handed out because a load failed. */
  onStale?: (key: string, error: unknown) => void;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly options: TtlCacheOptions<V> = {},
  ) {}

  /**
   * The cached value, or a loaded one. `fresh` loads even when the cached value is still within
   * its TTL, and rejects when that load fails (without a stale answer); other callers still get
   * the stale value meanwhile.
   */
  async get(key: string, load: () => Promise<V>, options: { fresh?: boolean } = {}): Promise<V> {
    const hit = this.entries.get(key);
    if (options.fresh !== true && hit !== undefined && hit.expiresAt > this.now()) return hit.value;
    const last = this.options.staleOnError === true ? hit?.last : undefined;
    const loading = load();
    const entry: Entry<V> = {
      value: loading,
      expiresAt: this.now() + this.ttlMs,
      ...(last === undefined ? {} : { last }),
    };
    const current = () => this.entries.get(key) === entry;
    entry.value = loading.then(
      (loaded) => {
        if (current()) {
          if (this.options.keep !== undefined && !this.options.keep(loaded)) this.entries.delete(key);
          else if (this.options.staleOnError === true) entry.last = { value: loaded };
        }
        return loaded;
      },
      (error: unknown) => {
        if (last === undefined) {
          // Failures are not cached.
          if (current()) this.entries.delete(key);
          throw error;
        }
        // The last known value, until the next try a TTL from now.
        this.options.onStale?.(key, error);
        return last.value;
      },
    );
    // Whoever awaits it handles a failure; a `fresh` caller awaits the load itself.
    entry.value.catch(() => {});
    this.entries.set(key, entry);
    if (this.entries.size > (this.options.maxEntries ?? 1000)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    if (options.fresh === true) {
      const loaded = await loading;
      // Settled too, so its bookkeeping (keep, last value) is done when this returns.
      await entry.value;
      return loaded;
    }
    return entry.value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * Values loaded once per key and kept: concurrent asks share one load, and a failed load is
 * forgotten, so the next ask loads again. Past `maxEntries` keys, every kept value is dropped.
 */
export class LoadedOnce<V> {
  private readonly loads = new Map<string, Promise<V>>();

  constructor(private readonly maxEntries = Number.POSITIVE_INFINITY) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const kept = this.loads.get(key);
    if (kept !== undefined) return kept;
    const loading = load();
    if (this.loads.size >= this.maxEntries) this.loads.clear();
    this.loads.set(key, loading);
    loading.catch(() => this.loads.delete(key));
    return loading;
  }
}
