/**
 * Peak memory of the benchmark's process while a load runs. The local stack runs all four
 * functions (and their queue pollers) in this process, beside the harness, so its peak resident
 * size is an upper bound of what any one function needs under that load: the figure the
 * functions' memory sizes are checked against.
 */
import { memoryUsage } from 'node:process';

export interface MemoryPeak {
  /** Peak resident set size seen, in bytes. */
  rssBytes: number;
  /** Peak V8 heap in use seen, in bytes. */
  heapUsedBytes: number;
  samples: number;
}

/** Samples the process's memory every `intervalMs` until `stop` is called; `stop` gives the peaks. */
export function sampleMemory(intervalMs = 100): { stop(): MemoryPeak } {
  const peak: MemoryPeak = { rssBytes: 0, heapUsedBytes: 0, samples: 0 };
  const sample = () => {
    const { rss, heapUsed } = memoryUsage();
    peak.rssBytes = Math.max(peak.rssBytes, rss);
    peak.heapUsedBytes = Math.max(peak.heapUsedBytes, heapUsed);
    peak.samples += 1;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}
