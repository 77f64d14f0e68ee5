import { DeliveryBacklogGate, nextRefusing } from '../../../shared/publish/admission';

describe('the admission rule (hysteresis)', () => {
  const marks = { highWater: 10, lowWater: 5 };
  it.each([
    [false, 9, false],
    [false, 10, true],
    [false, 7, false],
    [true, 7, true],
    [true, 6, true],
    [true, 5, false],
  ])('refusing %s, backlog %i: refuses %s', (refusing, backlog, expected) => {
    expect(nextRefusing(refusing, backlog, marks)).toBe(expected);
  });
});

/** A gate over a depth the test sets, with a clock it moves, counting reads. */
function gateOver(limit: number, readEveryMs = 2000) {
  const state = {
    now: 0,
    waiting: 0,
    reads: 0,
    failWith: undefined as Error | undefined,
    errors: [] as string[],
  };
  const gate = new DeliveryBacklogGate({
    waitingJobs: async () => {
      state.reads += 1;
      if (state.failWith !== undefined) throw state.failWith;
      return state.waiting;
    },
    limit,
    now: () => state.now,
    readEveryMs,
    onReadError: (error) => state.errors.push(error.message),
  });
  return { gate, state };
}

describe('the publish function gate on the delivery backlog', () => {
  it.each([
    [999, undefined],
    [1000, { retryAfterSeconds: 5 }],
    [50_000, { retryAfterSeconds: 5 }],
  ])('with a limit of 1000, %i jobs waiting: %j', async (waiting, expected) => {
    const { gate, state } = gateOver(1000);
    state.waiting = waiting;
    expect(await gate.refusal()).toEqual(expected);
  });

  it('keeps refusing until the jobs waiting are down to half the limit', async () => {
    const { gate, state } = gateOver(1000);
    const nextLookAt = async (waiting: number) => {
      state.waiting = waiting;
      state.now += 2000;
      return gate.refusal();
    };
    expect(await nextLookAt(1000)).toBeDefined();
    expect(await nextLookAt(999)).toBeDefined();
    expect(await nextLookAt(501)).toBeDefined();
    expect(await nextLookAt(500)).toBeUndefined();
    expect(await nextLookAt(999)).toBeUndefined();
  });

  it('reads the depth once per interval: a fresh reading is used, an expired one read again', async () => {
    const { gate, state } = gateOver(1000, 2000);
    state.waiting = 1200;
    expect(await gate.refusal()).toBeDefined();
    state.waiting = 0;
    state.now = 1999;
    expect(await gate.refusal()).toBeDefined();
    expect(state.reads).toBe(1);
    state.now = 2000;
    expect(await gate.refusal()).toBeUndefined();
    expect(state.reads).toBe(2);
  });

  it('requests that arrive while a read is under way share it', async () => {
    const { gate, state } = gateOver(1000);
    state.waiting = 2000;
    const answers = await Promise.all([gate.refusal(), gate.refusal(), gate.refusal()]);
    expect(answers).toEqual([{ retryAfterSeconds: 5 }, { retryAfterSeconds: 5 }, { retryAfterSeconds: 5 }]);
    expect(state.reads).toBe(1);
  });

  it('fails open: a failed read lets publishes in, says why, and is not tried again before the interval', async () => {
    const { gate, state } = gateOver(1000);
    state.waiting = 5000;
    expect(await gate.refusal()).toBeDefined();
    state.failWith = new Error('AccessDenied');
    state.now = 2000;
    expect(await gate.refusal()).toBeUndefined();
    expect(state.errors).toEqual(['AccessDenied']);
    state.now = 3000;
    expect(await gate.refusal()).toBeUndefined();
    expect(state.reads).toBe(2);
    state.failWith = undefined;
    state.now = 4000;
    expect(await gate.refusal()).toBeDefined();
  });
});
