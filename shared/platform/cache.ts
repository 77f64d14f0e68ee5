/**
 * A small in-memory cache with a time to live and a size bound, for lookups a warm function
 * repeats (topics, subscription lists, subscriptions). Concurrent misses for one key share a
 * single load.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly options: {
      maxEntries?: number;
      /** Values for which this returns false are handed out but not kept (e.g. "not found"). */
      keep?: (value: V) => boolean;
    } = {},
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.expiresAt > this.now()) return hit.value;
    const value = load();
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > (this.options.maxEntries ?? 1000)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    try {
      const loaded = await value;
      if (
        this.options.keep !== undefined &&
        !this.options.keep(loaded) &&
        this.entries.get(key)?.value === value
      )
        this.entries.delete(key);
      return loaded;
    } catch (error) {
      // Failures are not cached.
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
      throw error;
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
