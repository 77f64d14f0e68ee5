/**
 * The endpoint-health tracker of one worker: what the gate consults before a job's attempts and
 * before each attempt, and where each attempt's outcome is reported.
 *
 * - Reads go through a short cache (`cacheMs`): a worker sees other workers' verdicts within that
 *   long, and an endpoint that never failed costs one read per cache period, no write.
 * - Each outcome is folded into the worker's own view at once (`rules/health.ts`), so the rest of
 *   a job, and other jobs on this worker, see a probation the moment it begins.
 * - Writes are aggregated: a change other workers must see (a probation begins, the endpoint
 *   turns unhealthy, is disabled or recovers) is written at once, one write in flight per
 *   endpoint; anything else waits for the next write, at most one per `flushIntervalMs`. A
 *   failing endpoint on probation is not attempted, so it is not written either: per worker, at
 *   most one write per probation and one per `flushIntervalMs`.
 * - Writes are conditional on the revision read; a worker that loses the race reads again and
 *   folds its own outcomes into the winner's record, so no worker's outcomes are lost.
 */
import type { EndpointHealth, Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import type { Clock } from '../platform/clock';
import type { HealthStore } from '../storage/health-store';
import {
  applySignal,
  applySignals,
  currentHealth,
  type HealthProfile,
  type HealthSignal,
  writeUrgency,
} from './rules/health';

export interface HealthTrackerOptions {
  store: HealthStore;
  clock: Clock;
  logger: LoggerLike;
  /** How long a read of another worker's verdict is trusted. */
  cacheMs: number;
  /** Least time between two writes of the same endpoint's counters (urgent changes excepted). */
  flushIntervalMs: number;
}

interface Entry {
  /** What the table held when last read or written (`undefined`: nothing on file). */
  stored: EndpointHealth | undefined;
  readAt: number;
  /** Outcomes seen here and not yet written. */
  pending: HealthSignal[];
  /** The endpoint the pending outcomes are about. */
  endpointUrl: string;
  lastWriteAt: number;
  writing: Promise<void> | undefined;
  /** An urgent change arrived while a write was in flight: write again after it. */
  again: boolean;
  profile: HealthProfile;
}

const MAX_ENTRIES = 5000;
const MAX_WRITE_TRIES = 5;

const keyOf = (subscription: Pick<Subscription, 'topic' | 'name'>) =>
  `${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}`;

export class HealthTracker {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: HealthTrackerOptions) {}

  /** This worker's view of the subscription's endpoint, read again when the cached copy is old. */
  async current(subscription: Subscription, profile: HealthProfile): Promise<EndpointHealth> {
    const key = keyOf(subscription);
    const now = this.options.clock.now();
    let entry = this.entries.get(key);
    if (entry === undefined || (entry.readAt + this.options.cacheMs <= now && entry.writing === undefined)) {
      const stored = await this.read(subscription, false);
      entry = this.entries.get(key) ?? this.newEntry(key, subscription, profile);
      entry.stored = stored;
      entry.readAt = now;
    }
    entry.profile = profile;
    this.retarget(entry, subscription);
    return this.view(entry, subscription);
  }

  /** The view without reading: what `current` last saw plus this worker's outcomes since. */
  peek(subscription: Subscription): EndpointHealth | undefined {
    const entry = this.entries.get(keyOf(subscription));
    return entry === undefined ? undefined : this.view(entry, subscription);
  }

  /** Folds one attempt's outcome into this worker's view; writes at once when other workers must know. */
  observe(subscription: Subscription, profile: HealthProfile, signal: HealthSignal): void {
    const key = keyOf(subscription);
    const entry = this.entries.get(key) ?? this.newEntry(key, subscription, profile);
    entry.profile = profile;
    this.retarget(entry, subscription);
    const before = this.view(entry, subscription);
    entry.pending.push(signal);
    const after = applySignal(profile, before, signal);
    if (writeUrgency(before, after, this.options.clock.now()) === 'now') this.startWrite(entry, subscription);
  }

  /**
   * Waits for this endpoint's writes in flight, and writes what is pending if the last write is
   * at least `flushIntervalMs` old. Never throws: health is advisory.
   */
  async settle(subscription: Subscription): Promise<void> {
    const entry = this.entries.get(keyOf(subscription));
    if (entry === undefined) return;
    if (entry.writing !== undefined) await entry.writing;
    if (entry.pending.length === 0) return;
    const before = currentHealth(entry.stored, subscription.topic, subscription.name, entry.endpointUrl);
    const after = applySignals(entry.profile, before, entry.pending);
    const urgency = writeUrgency(before, after, this.options.clock.now());
    if (urgency === 'none') {
      entry.pending = [];
      return;
    }
    if (urgency === 'now' || entry.lastWriteAt + this.options.flushIntervalMs <= this.options.clock.now()) {
      this.startWrite(entry, subscription);
      await entry.writing;
    }
  }

  /** Forgets what this worker knows of a subscription (e.g. after an admin enabled it again). */
  forget(subscription: Pick<Subscription, 'topic' | 'name'>): void {
    this.entries.delete(keyOf(subscription));
  }

  // ---- internals ----------------------------------------------------------------------------

  private newEntry(key: string, subscription: Subscription, profile: HealthProfile): Entry {
    if (this.entries.size >= MAX_ENTRIES) {
      for (const [oldKey, old] of this.entries) {
        if (old.writing === undefined && old.pending.length === 0) {
          this.entries.delete(oldKey);
          break;
        }
      }
    }
    const entry: Entry = {
      stored: undefined,
      readAt: Number.NEGATIVE_INFINITY,
      pending: [],
      endpointUrl: subscription.destination.endpointUrl,
      lastWriteAt: Number.NEGATIVE_INFINITY,
      writing: undefined,
      again: false,
      profile,
    };
    this.entries.set(key, entry);
    return entry;
  }

  /** Outcomes of an endpoint the subscription no longer points at say nothing about the new one. */
  private retarget(entry: Entry, subscription: Subscription): void {
    if (entry.endpointUrl === subscription.destination.endpointUrl) return;
    entry.endpointUrl = subscription.destination.endpointUrl;
    entry.pending = [];
  }

  private view(entry: Entry, subscription: Subscription): EndpointHealth {
    const base = currentHealth(entry.stored, subscription.topic, subscription.name, entry.endpointUrl);
    return entry.pending.length === 0 ? base : applySignals(entry.profile, base, entry.pending);
  }

  private async read(subscription: Subscription, consistent: boolean): Promise<EndpointHealth | undefined> {
    try {
      return await this.options.store.get(subscription.topic, subscription.name, { consistent });
    } catch (error) {
      // Without a verdict on file the endpoint is treated as healthy: deliveries go on.
      this.options.logger.warn('could not read endpoint health; treating it as healthy', {
        topic: subscription.topic,
        subscription: subscription.name,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  private startWrite(entry: Entry, subscription: Subscription): void {
    if (entry.writing !== undefined) {
      entry.again = true;
      return;
    }
    entry.writing = this.write(entry, subscription).finally(() => {
      entry.writing = undefined;
      if (entry.again) {
        entry.again = false;
        this.startWrite(entry, subscription);
      }
    });
  }

  private async write(entry: Entry, subscription: Subscription): Promise<void> {
    const { store, clock, logger } = this.options;
    try {
      for (let attempt = 0; attempt < MAX_WRITE_TRIES; attempt += 1) {
        const written = entry.pending.slice();
        if (written.length === 0) return;
        const base = currentHealth(entry.stored, subscription.topic, subscription.name, entry.endpointUrl);
        const next = applySignals(entry.profile, base, written);
        const expectedRev = entry.stored?.rev;
        const record: EndpointHealth = { ...next, rev: (expectedRev ?? 0) + 1 };
        if (await store.put(record, expectedRev)) {
          entry.stored = record;
          entry.readAt = clock.now();
          entry.lastWriteAt = clock.now();
          entry.pending = entry.pending.slice(written.length);
          return;
        }
        // Another worker wrote first: fold our outcomes into its record.
        entry.stored = await store.get(subscription.topic, subscription.name, { consistent: true });
        entry.readAt = clock.now();
      }
      logger.warn('endpoint health kept changing under this worker; will write again later', {
        topic: subscription.topic,
        subscription: subscription.name,
      });
    } catch (error) {
      logger.warn('could not write endpoint health; will write again later', {
        topic: subscription.topic,
        subscription: subscription.name,
        error: (error as Error).message,
      });
    }
  }
}
