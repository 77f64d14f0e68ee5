import { collectAndReturnMemory, releaseMemoryWhenQuiet } from '../../../local/memory-release';

const MB = 1024 * 1024;

/** A releaser on scripted readings of the loop's busyness, and a resident size the test sets, checked by hand (fake timers). */
function scripted(busy: number[], minIntervalMs = 0) {
  const released: Array<{ beforeBytes: number; afterBytes: number }> = [];
  const memory = { resident: 0, afterRelease: 0 };
  const releaser = releaseMemoryWhenQuiet({
    checkEveryMs: 1_000,
    quietChecks: 2,
    quietUtilization: 0.05,
    minGrowthAfterBusyBytes: 4 * MB,
    minGrowthBytes: 16 * MB,
    minIntervalMs,
    utilization: () => busy.shift() ?? 0,
    residentBytes: () => memory.resident,
    release: () => {
      memory.resident = memory.afterRelease;
    },
    onRelease: ({ beforeBytes, afterBytes }) => released.push({ beforeBytes, afterBytes }),
  });
  return { released, releaser, memory };
}

describe('releasing memory once the process is quiet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('releases once after start-up when quiet, then only after the resident size grew again and the loop went quiet', () => {
    const busy = [0.5, 0.01, 0.01, 0.01, 0.01, 0.6, 0.7, 0.02, 0.02, 0.3, 0.01, 0.01];
    const { released, releaser, memory } = scripted(busy);
    Object.assign(memory, { resident: 150 * MB, afterRelease: 110 * MB });
    // Checks 1-3: busy, then quiet twice: the first release (nothing released before).
    jest.advanceTimersByTime(3_000);
    expect(released).toEqual([{ beforeBytes: 150 * MB, afterBytes: 110 * MB }]);
    // Checks 4-5: still quiet, grown a little since (less than 16 MB): not worth a release.
    memory.resident = 120 * MB;
    jest.advanceTimersByTime(2_000);
    expect(released).toHaveLength(1);
    // Busy again (6-7) and grown to 300 MB, then quiet twice (8-9): released.
    Object.assign(memory, { resident: 300 * MB, afterRelease: 160 * MB });
    jest.advanceTimersByTime(4_000);
    expect(released).toEqual([
      { beforeBytes: 150 * MB, afterBytes: 110 * MB },
      { beforeBytes: 300 * MB, afterBytes: 160 * MB },
    ]);
    // One busy check (10) restarts the count; two quiet ones (11-12) without growth: no release.
    jest.advanceTimersByTime(3_000);
    expect(released).toHaveLength(2);
    releaser.stop();
  });

  it('gives back a little after a busy spell, and only more while quiet throughout', () => {
    const busy = [0, 0, 0, 0, 0, 0, 0.4, 0, 0];
    const { released, releaser, memory } = scripted(busy);
    Object.assign(memory, { resident: 120 * MB, afterRelease: 100 * MB });
    // Start-up counts as busy: released once quiet (check 2); the next check reads the size after.
    jest.advanceTimersByTime(3_000);
    expect(released).toHaveLength(1);
    // Quiet throughout (4-6), 6 MB more: not worth it.
    memory.resident = 106 * MB;
    jest.advanceTimersByTime(3_000);
    expect(released).toHaveLength(1);
    // A busy check (7), then quiet (8-9): the same 6 MB is given back.
    memory.afterRelease = 101 * MB;
    jest.advanceTimersByTime(3_000);
    expect(released).toEqual([
      { beforeBytes: 120 * MB, afterBytes: 100 * MB },
      { beforeBytes: 106 * MB, afterBytes: 101 * MB },
    ]);
    releaser.stop();
  });

  it('never releases while the loop stays busy, whatever the growth', () => {
    const { released, releaser, memory } = scripted(Array(20).fill(0.2));
    memory.resident = 500 * MB;
    jest.advanceTimersByTime(20_000);
    expect(released).toEqual([]);
    releaser.stop();
  });

  it('leaves the least interval between two releases, however the memory grows', () => {
    const { released, releaser, memory } = scripted(Array(40).fill(0), 10_000);
    Object.assign(memory, { resident: 300 * MB, afterRelease: 100 * MB });
    // Quiet throughout: released at the second check (2 s); the third reads the size after.
    jest.advanceTimersByTime(3_000);
    expect(released).toHaveLength(1);
    memory.resident = 300 * MB;
    jest.advanceTimersByTime(8_000);
    expect(released).toHaveLength(1);
    // 10 s after the first.
    jest.advanceTimersByTime(1_000);
    expect(released).toHaveLength(2);
    releaser.stop();
  });

  it('stops checking when stopped', () => {
    const { released, releaser, memory } = scripted([0, 0, 0, 0]);
    memory.resident = 300 * MB;
    releaser.stop();
    jest.advanceTimersByTime(10_000);
    expect(released).toEqual([]);
  });
});

describe('the collection that returns memory', () => {
  it('frees what is no longer referenced', async () => {
    const collect = collectAndReturnMemory();
    const garbage = new WeakRef({ payload: 'x'.repeat(1024) });
    // A weak reference holds its target until the job that made it is over.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    expect(garbage.deref()).toBeUndefined();
  });
});
