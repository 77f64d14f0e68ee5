import { admissionSettings, BacklogAdmission } from '../../../local/admission';
import { marksAtRate, nextRefusing } from '../../../shared/publish/admission';

const marks = { highWater: 100, lowWater: 50 };

describe('publish admission (local throttling)', () => {
  it.each([
    [false, 0, false],
    [false, 99, false],
    [false, 100, true],
    [true, 99, true],
    [true, 51, true],
    [true, 50, false],
    [true, 0, false],
    [false, 75, false],
  ])('refusing %s, backlog %i: refuses %s', (refusing, backlog, expected) => {
    expect(nextRefusing(refusing, backlog, marks)).toBe(expected);
  });

  it('refuses with Retry-After while the backlog is high, and lets requests in again once it drains', async () => {
    let backlog = 0;
    const admission = new BacklogAdmission({
      ...marks,
      backlog: async () => backlog,
      intervalMs: 5,
      retryAfterSeconds: 2,
    });
    admission.start();
    try {
      expect(admission.admit()).toBeUndefined();
      backlog = 150;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(admission.admit()).toEqual({ retryAfterSeconds: 2 });
      backlog = 60;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(admission.admit()).toEqual({ retryAfterSeconds: 2 });
      backlog = 10;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(admission.admit()).toBeUndefined();
      expect(admission.refused).toBe(2);
    } finally {
      admission.stop();
    }
  });

  it.each([
    [0, 100, 50],
    [50, 100, 50],
    [160, 160, 80],
    [500, 500, 250],
  ])(
    'at %i jobs finished per second the marks are %i / %i jobs (a second / half a second of work, floors 100 / 50)',
    (rate, high, low) => {
      expect(marksAtRate(rate, { ...marks, highWaterSeconds: 1, lowWaterSeconds: 0.5 })).toEqual({
        highWater: high,
        lowWater: low,
      });
    },
  );

  it('lets a backlog in that the workers drain within a second, and refuses the same backlog when they drain it slowly', async () => {
    const look = async (jobsPerSecond: number) => {
      let now = 0;
      let drained = 0;
      const admission = new BacklogAdmission({
        ...marks,
        highWaterSeconds: 1,
        lowWaterSeconds: 0.5,
        // Empty at the first look (no rate measured yet), then 300 jobs.
        backlog: async () => (drained > jobsPerSecond ? 300 : 0),
        // Each look sees one more second and that second's finished jobs.
        now: () => {
          now += 1000;
          drained += jobsPerSecond;
          return now;
        },
        drained: () => drained,
        intervalMs: 5,
        retryAfterSeconds: 1,
      });
      admission.start();
      try {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return { verdict: admission.admit(), marks: admission.currentMarks };
      } finally {
        admission.stop();
      }
    };

    const fast = await look(500);
    expect(fast.marks).toEqual({ highWater: 500, lowWater: 250 });
    expect(fast.verdict).toBeUndefined();
    const slow = await look(120);
    expect(slow.marks).toEqual({ highWater: 120, lowWater: 60 });
    expect(slow.verdict).toEqual({ retryAfterSeconds: 1 });
  });

  it('keeps its verdict when the backlog cannot be read', async () => {
    let fail = false;
    const errors: string[] = [];
    const admission = new BacklogAdmission({
      ...marks,
      backlog: async () => {
        if (fail) throw new Error('emulators gone');
        return 150;
      },
      intervalMs: 5,
      retryAfterSeconds: 1,
      onError: (error) => errors.push(error.message),
    });
    admission.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      fail = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(admission.admit()).toEqual({ retryAfterSeconds: 1 });
      expect(errors[0]).toBe('emulators gone');
    } finally {
      admission.stop();
    }
  });

  it("counts a delivery batching window's messages in flight as no backlog: its marks in seconds grow by the window", () => {
    const plain = admissionSettings(undefined, 0);
    const windowed = admissionSettings(undefined, 1);
    expect(windowed.highWaterSeconds).toBe((plain.highWaterSeconds ?? 0) + 1);
    expect(windowed.lowWaterSeconds).toBe((plain.lowWaterSeconds ?? 0) + 1);
    // At 100 jobs a second, a 1 s window holds about 100 messages in flight and some more are
    // being worked: refused without the window's allowance, let in with it.
    const backlog = 150;
    expect(nextRefusing(false, backlog, marksAtRate(100, plain))).toBe(true);
    expect(nextRefusing(false, backlog, marksAtRate(100, windowed))).toBe(false);
    // What the stack's options give still wins.
    expect(admissionSettings({ highWaterSeconds: 5 }, 1).highWaterSeconds).toBe(5);
  });
});
