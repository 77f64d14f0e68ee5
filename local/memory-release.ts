/**
 * Gives back the memory a burst of work left behind once the process is quiet again: for the
 * processes of `gridwire start` (the stack's and the emulators'), which run for hours beside a
 * developer's other work.
 *
 * V8 grows its heap under load (the young generation up to its maximum, the old generation to a
 * few times what is live) and shrinks it only after a garbage collection made to reduce memory,
 * which it starts when the process looks idle to it. The local stack never does: its queue
 * pollers keep a trickle of work going, so after a load the heap stayed at its peak for as long
 * as the stack ran (measured: the stack's process still at 280 MB minutes after a minute of
 * 1,000 events/s, 120 MB before it). So each process reads every few seconds how busy its event
 * loop was. Once it has been quiet for a while after a busy spell, it runs one full collection
 * that also gives the free pages back to the system (if the resident size grew by
 * `minGrowthAfterBusyBytes` since the last one); while it stays quiet, it does so again only
 * when the resident size has grown by `minGrowthBytes` (the trickle's garbage), and never twice
 * within `minIntervalMs`. A collection costs the one thread some 50 to 700 ms, never under load.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryReleaseOptions {
  /** How often the loop's busyness and the resident size are read (default 5 s). */
  checkEveryMs?: number;
  /** Consecutive quiet checks before a release (default 2: quiet for 10 s). */
  quietChecks?: number;
  /**
   * The share of a check's interval the event loop may be busy while still quiet (default 0.15).
   * Measured on 2 cores: an idle stack's loop busy 4 to 9% of the time (its pollers' receives),
   * the stack's at 1,000 events/s 50 to 60%, the emulators' 20 to 30%.
   */
  quietUtilization?: number;
  /** Growth of the resident size since the last release worth one after a busy spell (default 4 MB). */
  minGrowthAfterBusyBytes?: number;
  /** Growth of the resident size since the last release worth one while quiet throughout (default 16 MB). */
  minGrowthBytes?: number;
  /** The least time between two releases (default 30 s). */
  minIntervalMs?: number;
  /** Told of each release: resident bytes before and after, and how long it took. */
  onRelease?: (release: { beforeBytes: number; afterBytes: number; ms: number }) => void;
  /** Overrides for tests: the loop's utilization since the last read, the resident size, the release. */
  utilization?: () => number;
  residentBytes?: () => number;
  release?: () => void;
}

export interface MemoryReleaser {
  /** Stops checking. */
  stop(): void;
}

const MB = 1024 * 1024;

type GcFunction = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * A full collection that returns free memory to the system. V8 from 12 (Node 22) takes the
 * `last-resort` flavour, which also shrinks the young generation and unmaps pooled pages (a plain
 * full collection there frees the objects but keeps the pages); V8 11 (Node 20) does that on a
 * plain full collection and ignores an options object. `gc` is exposed for the call if the
 * process was not started with `--expose-gc` (the flag makes it a global of contexts made after).
 */
export function collectAndReturnMemory(): () => void {
  let gc = (globalThis as { gc?: GcFunction }).gc;
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as GcFunction;
  }
  const collect = gc;
  const v8Major = Number(process.versions.v8.split('.')[0]);
  return v8Major >= 12
    ? () => collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
    : () => collect();
}

/** Starts checking (see the module's comment); the timer does not keep the process alive. */
export function releaseMemoryWhenQuiet(options: MemoryReleaseOptions = {}): MemoryReleaser {
  const checkEveryMs = options.checkEveryMs ?? 5_000;
  const quietChecks = options.quietChecks ?? 2;
  const quietUtilization = options.quietUtilization ?? 0.15;
  const minGrowthAfterBusyBytes = options.minGrowthAfterBusyBytes ?? 4 * MB;
  const minGrowthBytes = options.minGrowthBytes ?? 16 * MB;
  const minIntervalMs = options.minIntervalMs ?? 30_000;
  let last = performance.eventLoopUtilization();
  const utilization =
    options.utilization ??
    (() => {
      const now = performance.eventLoopUtilization();
      const { utilization: busy } = performance.eventLoopUtilization(now, last);
      last = now;
      return busy;
    });
  const residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  let release = options.release;
  // Resident size after the last release; none yet, so the first quiet spell after start releases
  // what starting left behind. Read at the check after a release: pages can be given back after
  // the collection returns.
  let baseline = 0;
  let settling = false;
  let releasedAt = Number.NEGATIVE_INFINITY;
  let quiet = 0;
  // Busy since the last release (starting counts as busy).
  let busy = true;
  const check = () => {
    if (settling) {
      baseline = residentBytes();
      settling = false;
    }
    if (utilization() >= quietUtilization) {
      quiet = 0;
      busy = true;
      return;
    }
    quiet += 1;
    if (quiet < quietChecks || Date.now() - releasedAt < minIntervalMs) return;
    const beforeBytes = residentBytes();
    const worth = busy ? minGrowthAfterBusyBytes : minGrowthBytes;
    // A busy spell that left nothing to give back is over all the same.
    busy = false;
    if (beforeBytes < baseline + worth) return;
    release ??= collectAndReturnMemory();
    const started = performance.now();
    release();
    const ms = performance.now() - started;
    releasedAt = Date.now();
    settling = true;
    options.onRelease?.({ beforeBytes, afterBytes: residentBytes(), ms });
  };
  const timer = setInterval(check, checkEveryMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
