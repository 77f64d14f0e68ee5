import { deliveryTraceparent, parseTraceparent } from '../../../../shared/delivery/rules/trace-context';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context', () => {
  it('reads a valid traceparent: its trace id and flags', () => {
    expect(parseTraceparent(PARENT)).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', flags: '01' });
    // A later version may carry more after the flags.
    expect(parseTraceparent(`01-${PARENT.slice(3)}-more`)).toMatchObject({ flags: '01' });
  });

  it.each([
    ['absent', undefined],
    ['version ff', `ff-${PARENT.slice(3)}`],
    ['version 00 with more after the flags', `${PARENT}-x`],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['upper-case hex', PARENT.toUpperCase()],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['garbage', 'hello'],
  ])('ignores %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("continues the publisher's trace with a new parent id for the delivery request", () => {
    expect(deliveryTraceparent(PARENT, (bytes) => 'ab'.repeat(bytes))).toBe(
      '00-4bf92f3577b34da6a3ce929d0e0e4736-abababababababab-01',
    );
  });

  it('starts a trace of its own, not sampled, without a valid one, never with all-zero ids', () => {
    const draws = ['00'.repeat(8), 'cd'.repeat(8), '00'.repeat(16), 'ef'.repeat(16)];
    expect(deliveryTraceparent('nonsense', () => draws.shift() as string)).toBe(
      `00-${'ef'.repeat(16)}-${'cd'.repeat(8)}-00`,
    );
  });
});
