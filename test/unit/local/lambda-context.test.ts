/**
 * The local stack's Lambda contexts: a real countdown to the function's timeout, and the same
 * countdown shrunk by `requestTimeScale` for the delivery function's invocations in tests.
 */
import { lambdaContext, shortenedContext } from '../../../local/lambda-context';
import { FUNCTIONS } from '../../../shared/config/resources';

describe('a local invocation’s context', () => {
  it('counts down from the function’s timeout', () => {
    let now = 1_000_000;
    const context = lambdaContext(FUNCTIONS.delivery, () => now);
    expect(context.getRemainingTimeInMillis()).toBe(FUNCTIONS.delivery.timeoutSeconds * 1000);
    now += 10_000;
    expect(context.getRemainingTimeInMillis()).toBe(FUNCTIONS.delivery.timeoutSeconds * 1000 - 10_000);
  });

  it('shrunk by a request time scale, counts down from the timeout divided by it, in real time', () => {
    let now = 1_000_000;
    const clock = () => now;
    const context = shortenedContext(lambdaContext(FUNCTIONS.delivery, clock), 15, clock);
    expect(context.getRemainingTimeInMillis()).toBe(18_000);
    now += 17_000;
    expect(context.getRemainingTimeInMillis()).toBe(1_000);
    now += 5_000;
    expect(context.getRemainingTimeInMillis()).toBe(0);
    expect(context.functionName).toBe(`gridwire-local-${FUNCTIONS.delivery.id}`);
  });

  it('at scale 1 is the context itself', () => {
    const context = lambdaContext(FUNCTIONS.delivery);
    expect(shortenedContext(context, 1)).toBe(context);
  });
});
