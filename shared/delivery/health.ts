/**
 * The endpoint-health tracker of one worker: what the gate consults before a job's attempts and
 * before each attempt, and where each attempt's outcome is reported.
 *
 * - Reads go through a short cache (`cacheMs`), one read in flight per endpoint: a worker sees
 *   other workers' verdicts within that long, and an endpoint that never failed costs one read
 *   per cache period, no write. A read older than what this worker last wrote is not taken.
 * - Each outcome is folded into the worker's own view at once (`rules/health.ts`), so the rest of
 *   a job, and other jobs on this worker, see a probation the moment it begins. Successes of an
 *   endpoint with nothing against it change nothing and are not kept.
 * - Writes are aggregated: a change other workers must see (a probation begins, the endpoint
 *   turns unhealthy, is disabled or recovers) is written at once, one write in flight per
 *   endpoint; anything else waits for the next write, at most one per `flushIntervalMs`. A
 *   failing endpoint on probation is not attempted, so it is not written either: per worker, at
 *   most one write per probation and one per `flushIntervalMs`.
 * - Writes are conditional on the revision read; a worker that loses the race reads again and
 *   folds its own outcomes into the winner's record, so no worker's outcomes are lost. Outcomes of
 *   attempts started before a reset (an admin's `enable`) are dropped, so they can't undo it.
 * - Health is advisory: a read that fails or takes longer than `ioTimeoutMs` counts as healthy,
 *   and `settle` gives up waiting after `ioTimeoutMs` (the write goes on, or is made later).
 */

import type { EndpointHealth } from '../domain/health';
import { DEFAULT_DISABLE_AFTER_MS, endpointIdOf, type Subscription } from '../domain/model';
import type { LoggerLike } from '../observability/logging';
import { METRIC, type MetricBuffer, subscriptionDimensions } from '../observability/metrics';
import type { Clock } from '../platform/clock';
import { withTimeout } from '../platform/concurrency';
import type { HealthStore } from '../storage/health';
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
  /** Longest wait for a health read, or for `settle` (real time). */
  ioTimeoutMs?: number;
  /** Where a probation that begins on this worker is counted (`ProbationEnteredCount`). */
  metrics?: MetricBuffer;
  /**
   * Told when this worker's write disabled a subscription for failing too long (best effort: what
   * it throws or rejects is logged): the stack publishes `Gridwire.SubscriptionDisabled`.
   */
  onDisabled?: (subscription: Subscription, health: EndpointHealth) => Promise<void>;
}

interface Entry {
  /** What the table held when last read or written (`undefined`: nothing on file). */
  stored: EndpointHealth | undefined;
  readAt: number;
  reading: Promise<void> | undefined;
  /** Outcomes seen here and not yet written, in the order they arrived. */
  pending: HealthSignal[];
  /** The endpoint the pending outcomes are about. */
  endpointUrl: string;
  /** `stored` with `pending` folded in (cached; `undefined` when it must be folded again). */
  view: EndpointHealth | undefined;
  /** The latest start time among the outcomes folded into `view`. */
  viewUpTo: number;
  lastWriteAt: number;
  writing: Promise<void> | undefined;
  /** An urgent change arrived while a write was in flight: write again after it. */
  again: boolean;
  profile: HealthProfile;
}

const MAX_ENTRIES = 5000;
const MAX_WRITE_TRIES = 5;
/** Outcomes kept while writes fail; the oldest go first (health is advisory). */
const MAX_PENDING = 1000;
const DEFAULT_IO_TIMEOUT_MS = 1000;

const keyOf = (subscription: Pick<Subscription, 'topic' | 'name'>) =>
  `${subscription.topic.toLowerCase()}/${subscription.name.toLowerCase()}`;

/** Whether `health` has nothing against the endpoint (a success then changes nothing worth keeping). */
const clean = (health: EndpointHealth) =>
  health.consecutiveFailures === 0 &&
  health.probations === 0 &&
  health.probationUntil === undefined &&
  health.unhealthySince === undefined &&
  health.disabledAt === undefined &&
  health.pausedAt === undefined;

export class HealthTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly ioTimeoutMs: number;

  constructor(private readonly options: HealthTrackerOptions) {
    this.ioTimeoutMs = options.ioTimeoutMs ?? DEFAULT_IO_TIMEOUT_MS;
  }

  /** This worker's view of the subscription's endpoint, read again when the cached copy is old. */
  async current(subscription: Subscription, profile: HealthProfile): Promise<EndpointHealth> {
    const entry = this.entryOf(subscription, profile);
    const stale = entry.readAt + this.options.cacheMs <= this.options.clock.now();
    if (stale && entry.writing === undefined) {
      entry.reading ??= this.refresh(entry, subscription).finally(() => {
        entry.reading = undefined;
      });
      await entry.reading;
    }
    return this.view(entry, subscription);
  }

  /** The view without reading: what `current` last saw plus this worker's outcomes since. */
  peek(subscription: Subscription): EndpointHealth | undefined {
    const entry = this.entries.get(keyOf(subscription));
    if (entry === undefined) return undefined;
    this.retarget(entry, subscription);
    return this.view(entry, subscription);
  }

  /** Folds one attempt's outcome into this worker's view; writes at once when other workers must know. */
  observe(
    subscription: Subscription,
    profile: HealthProfile & { timeScale?: number },
    signal: HealthSignal,
  ): void {
    const entry = this.entryOf(subscription, this.withDisableAfter(subscription, profile));
    const before = this.view(entry, subscription);
    if (signal.outcome === 'Delivered' && clean(before)) return;
    entry.pending.push(signal);
    if (entry.pending.length > MAX_PENDING) entry.pending.splice(0, entry.pending.length - MAX_PENDING);
    let after: EndpointHealth;
    if (signal.at >= entry.viewUpTo) {
      after = applySignal(profile, before, signal);
      entry.view = after;
      entry.viewUpTo = signal.at;
    } else {
      entry.view = undefined;
      after = this.view(entry, subscription);
    }
    if (after.probations > before.probations) {
      this.options.metrics?.count(
        METRIC.ProbationEnteredCount,
        1,
        subscriptionDimensions(subscription.topic, subscription.name),
      );
    }
    if (writeUrgency(before, after, this.options.clock.now()) === 'now') this.startWrite(entry, subscription);
  }

  /**
   * Waits (at most `ioTimeoutMs`) for this endpoint's writes in flight, and writes what is pending
   * if the last write is at least `flushIntervalMs` old. Never throws: health is advisory.
   */
  async settle(subscription: Subscription): Promise<void> {
    const entry = this.entries.get(keyOf(subscription));
    if (entry === undefined) return;
    await withTimeout(this.flush(entry, subscription), this.ioTimeoutMs);
  }

  // ---- internals ----------------------------------------------------------------------------

  private async flush(entry: Entry, subscription: Subscription): Promise<void> {
    if (entry.writing !== undefined) await entry.writing;
    if (entry.pending.length === 0) return;
    const before = this.base(entry, subscription);
    const after = applySignals(entry.profile, before, entry.pending);
    const urgency = writeUrgency(before, after, this.options.clock.now());
    if (urgency === 'none') {
      entry.pending = [];
      entry.view = undefined;
      return;
    }
    if (urgency === 'now' || entry.lastWriteAt + this.options.flushIntervalMs <= this.options.clock.now()) {
      this.startWrite(entry, subscription);
      await entry.writing;
    }
  }

  /** Profiles with a subscription's `disableAfterFailingFor` (in the profile's time), made once each. */
  private readonly disableProfiles = new WeakMap<HealthProfile, Map<number, HealthProfile>>();

  /** `profile` with the subscription's `disableAfterFailingFor` in its time (scaled like its other lengths). */
  private withDisableAfter(
    subscription: Subscription,
    profile: HealthProfile & { timeScale?: number },
  ): HealthProfile {
    const disableAfterMs =
      (subscription.disableAfterFailingForMs ?? DEFAULT_DISABLE_AFTER_MS) / (profile.timeScale ?? 1);
    let byLength = this.disableProfiles.get(profile);
    if (byLength === undefined) {
      byLength = new Map();
      this.disableProfiles.set(profile, byLength);
    }
    let made = byLength.get(disableAfterMs);
    if (made === undefined) {
      made = { ...profile, disableAfterMs };
      byLength.set(disableAfterMs, made);
    }
    return made;
  }

  private entryOf(subscription: Subscription, profile: HealthProfile): Entry {
    const key = keyOf(subscription);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= MAX_ENTRIES) this.evictOne();
      entry = {
        stored: undefined,
        readAt: Number.NEGATIVE_INFINITY,
        reading: undefined,
        pending: [],
        endpointUrl: endpointIdOf(subscription.destination),
        view: undefined,
        viewUpTo: Number.NEGATIVE_INFINITY,
        lastWriteAt: Number.NEGATIVE_INFINITY,
        writing: undefined,
        again: false,
        profile,
      };
      this.entries.set(key, entry);
    }
    if (entry.profile !== profile) {
      entry.profile = profile;
      entry.view = undefined;
    }
    this.retarget(entry, subscription);
    return entry;
  }

  private evictOne(): void {
    for (const [key, old] of this.entries) {
      if (old.writing === undefined && old.reading === undefined && old.pending.length === 0) {
        this.entries.delete(key);
        return;
      }
    }
  }

  /** Outcomes of an endpoint the subscription no longer points at say nothing about the new one. */
  private retarget(entry: Entry, subscription: Subscription): void {
    if (entry.endpointUrl === endpointIdOf(subscription.destination)) return;
    entry.endpointUrl = endpointIdOf(subscription.destination);
    entry.pending = [];
    entry.view = undefined;
  }

  private base(entry: Entry, subscription: Subscription): EndpointHealth {
    return currentHealth(entry.stored, subscription.topic, subscription.name, entry.endpointUrl);
  }

  private view(entry: Entry, subscription: Subscription): EndpointHealth {
    if (entry.view === undefined) {
      entry.view = applySignals(entry.profile, this.base(entry, subscription), entry.pending);
      entry.viewUpTo = entry.pending.reduce((latest, signal) => Math.max(latest, signal.at), -Infinity);
    }
    return entry.view;
  }

  /** Takes what the table holds, unless this worker has since written something newer. */
  private accept(entry: Entry, read: EndpointHealth | undefined): void {
    const known = entry.stored;
    if (known !== undefined && (read === undefined || read.rev < known.rev)) return;
    entry.stored = read;
    // Outcomes from before a reset the read brought in no longer count.
    if (read?.resetAt !== undefined) {
      const resetAt = read.resetAt;
      entry.pending = entry.pending.filter((signal) => signal.at >= resetAt);
    }
    entry.view = undefined;
  }

  private async refresh(entry: Entry, subscription: Subscription): Promise<void> {
    const startedAt = this.options.clock.now();
    const read = await withTimeout(this.read(subscription, false), this.ioTimeoutMs);
    if (read === 'timed out') {
      this.options.logger.warn('endpoint health read is slow; using what this worker knows', {
        topic: subscription.topic,
        subscription: subscription.name,
      });
    } else if (entry.lastWriteAt <= startedAt) {
      // (A read that began before this worker's last write may predate it.)
      this.accept(entry, read);
    }
    entry.readAt = this.options.clock.now();
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

  /**
   * Tells `onDisabled`, never throwing: a notice that can't be sent is logged. Awaited inside the
   * write, so `settle` (which the invocation awaits) waits for it too.
   */
  private async notifyDisabled(subscription: Subscription, health: EndpointHealth): Promise<void> {
    const { onDisabled, logger } = this.options;
    if (onDisabled === undefined) return;
    try {
      await onDisabled(subscription, health);
    } catch (error) {
      logger.warn('could not publish the subscription-disabled notice', {
        topic: subscription.topic,
        subscription: subscription.name,
        error: (error as Error).message,
      });
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
        const base = this.base(entry, subscription);
        const next = applySignals(entry.profile, base, written);
        const expectedRev = entry.stored?.rev;
        const record: EndpointHealth = { ...next, rev: (expectedRev ?? 0) + 1 };
        if (await store.put(record, expectedRev)) {
          // This write disabled it: the one worker whose write did so raises the notice.
          if (base.disabledAt === undefined && record.disabledReason === 'FailingTooLong') {
            await this.notifyDisabled(subscription, record);
          }
          entry.stored = record;
          entry.readAt = clock.now();
          entry.lastWriteAt = clock.now();
          entry.pending = entry.pending.filter((signal) => !written.includes(signal));
          entry.view = undefined;
          return;
        }
        // Another worker (or an admin's reset) wrote first: fold our outcomes into its record.
        const latest = await store.get(subscription.topic, subscription.name, { consistent: true });
        entry.stored = undefined;
        this.accept(entry, latest);
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
