import {
  BATCH_LIMITS,
  batchPolicyOf,
  cutBatches,
  isBatching,
} from '../../../../shared/delivery/rules/batching';

/** Entries as texts of a given size; the batches as the sizes they hold. */
const cut = (sizes: number[], maxEventsPerBatch: number, preferredBatchSizeInKilobytes: number) =>
  cutBatches(
    sizes.map((size, index) => ({ index, size })),
    { maxEventsPerBatch, preferredBatchSizeInKilobytes },
    (entry) => entry.size,
  ).map((batch) => batch.map((entry) => entry.index));

describe('batch policy', () => {
  it.each([
    [{}, { maxEventsPerBatch: 1, preferredBatchSizeInKilobytes: 64 }, false],
    [{ maxEventsPerBatch: 100 }, { maxEventsPerBatch: 100, preferredBatchSizeInKilobytes: 64 }, true],
    // Seed 003 (delivery and retry), "Batching behavior": "By default, Event Grid only adds one
    // event to each delivery request. The way to turn on batching is to set either one of the
    // settings mentioned earlier in the article in the event subscription JSON."
    [
      { preferredBatchSizeInKilobytes: 512 },
      { maxEventsPerBatch: 5000, preferredBatchSizeInKilobytes: 512 },
      true,
    ],
    [
      { maxEventsPerBatch: 5000, preferredBatchSizeInKilobytes: 1024 },
      { maxEventsPerBatch: 5000, preferredBatchSizeInKilobytes: 1024 },
      true,
    ],
  ])('reads %j as %j (batching: %s), the original defaults filling in', (settings, policy, batching) => {
    expect(batchPolicyOf(settings)).toEqual(policy);
    expect(isBatching(batchPolicyOf(settings))).toBe(batching);
  });

  it('is unbatched by default, with the limits of the original', () => {
    expect(batchPolicyOf({})).toEqual({ maxEventsPerBatch: 1, preferredBatchSizeInKilobytes: 64 });
    expect(BATCH_LIMITS.maxEventsPerBatch).toMatchObject({ min: 1, max: 5000 });
    expect(BATCH_LIMITS.preferredBatchSizeInKilobytes).toMatchObject({ min: 1, max: 1024 });
  });
});

describe('cutting a job into batches', () => {
  // [what, sizes (bytes), max events, preferred KiB, expected batches by index]
  it.each([
    ['one event per request without batching', [10, 10, 10], 1, 64, [[0], [1], [2]]],
    ['never more events than the max', [10, 10, 10, 10, 10], 2, 64, [[0, 1], [2, 3], [4]]],
    ['everything in one batch when it fits', [10, 10, 10], 100, 64, [[0, 1, 2]]],
    // 1 KiB: [ + 500 + , + 500 + ] = 1003 fits; a third would be 1504.
    ['no more bytes than preferred (brackets and commas counted)', [500, 500, 500], 100, 1, [[0, 1], [2]]],
    ['exactly the preferred size (3 + 510 + 511 = 1024 bytes)', [510, 511], 100, 1, [[0, 1]]],
    ['one byte over the preferred size', [511, 511], 100, 1, [[0], [1]]],
    [
      'an event larger than preferred goes alone, never dropped',
      [100, 10 * 1024, 100],
      100,
      4,
      [[0], [1], [2]],
    ],
    ['a large first event still goes alone', [5000, 10], 100, 4, [[0], [1]]],
    ['an empty job makes no requests', [], 100, 64, []],
  ])('%s', (_what, sizes, max, preferred, expected) => {
    expect(cut(sizes, max, preferred)).toEqual(expected);
  });

  it('never puts entries with different keys together, keeping each key in order', () => {
    const entries = ['a1', 'b1', 'a2', 'b2', 'a3'];
    const batches = cutBatches(
      entries,
      { maxEventsPerBatch: 2, preferredBatchSizeInKilobytes: 64 },
      () => 1,
      (entry) => entry[0] ?? '',
    );
    expect(batches).toEqual([['a1', 'a2'], ['b1', 'b2'], ['a3']]);
  });

  it('keeps every event exactly once, whatever the sizes (property)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let round = 0; round < 200; round += 1) {
      const sizes = Array.from({ length: Math.floor(random() * 60) }, () => Math.floor(random() * 3000));
      const max = 1 + Math.floor(random() * 10);
      const preferred = 1 + Math.floor(random() * 8);
      const batches = cut(sizes, max, preferred);
      expect(batches.flat()).toEqual(sizes.map((_, index) => index));
      for (const batch of batches) {
        expect(batch.length).toBeLessThanOrEqual(max);
        const bytes = 1 + batch.reduce((sum, index) => sum + (sizes[index] ?? 0) + 1, 0);
        if (batch.length > 1) expect(bytes).toBeLessThanOrEqual(preferred * 1024);
      }
    }
  });
});
