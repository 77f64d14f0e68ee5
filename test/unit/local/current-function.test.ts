import { asFunction, currentFunction, runAsFunction } from '../../../local/current-function';

describe('the function the running code belongs to', () => {
  it('is none outside any invocation', () => {
    expect(currentFunction()).toBeUndefined();
  });

  it('follows an invocation across awaits and into work it leaves running', async () => {
    let later: string | undefined = 'not run';
    const handler = asFunction('publish', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const during = currentFunction();
      setTimeout(() => {
        later = currentFunction();
      }, 5);
      return during;
    });
    expect(await handler()).toBe('publish');
    expect(currentFunction()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(later).toBe('publish');
  });

  it('keeps invocations of different functions running at once apart', async () => {
    const seen = (fn: 'delivery' | 'deadLetter') =>
      runAsFunction(fn, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return currentFunction();
      });
    expect(await Promise.all([seen('delivery'), seen('deadLetter')])).toEqual(['delivery', 'deadLetter']);
  });
});
