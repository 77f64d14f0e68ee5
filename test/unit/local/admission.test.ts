import { BacklogAdmission } from '../../../local/admission';

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
    expect(BacklogAdmission.next(refusing, backlog, marks)).toBe(expected);
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
});
