/**
 * The benchmark's simulation doubles as a test of the engine: a day of scripted failures in
 * virtual time, every wait checked against the schedule.
 */
import { runSimulation } from '../../bench/simulation';

describe('retry engine simulation', () => {
  it('keeps every wait within [step, step + jitter) and ends each pattern as the rules say', async () => {
    const result = await runSimulation({ events: 350, seed: 11, hours: 48 });
    const pattern = (name: string) => result.byPattern.find((p) => p.pattern === name);

    expect(result.events).toBe(350);
    expect(result.waitsChecked).toBeGreaterThan(500);
    expect(result.violations).toBe(0);
    expect(result.maxJitterMs).toBeLessThan(result.maxJitterBoundMs);

    expect(pattern('healthy')).toMatchObject({ delivered: pattern('healthy')?.events, ended: {} });
    expect(pattern('healthy')?.attempts).toBe(pattern('healthy')?.events);
    expect(pattern('flaky-30')?.delivered).toBe(pattern('flaky-30')?.events);
    expect(pattern('down-2h')?.delivered).toBe(pattern('down-2h')?.events);
    expect(pattern('timeout-408')?.delivered).toBe(pattern('timeout-408')?.events);
    expect(pattern('rejects-400')).toMatchObject({
      delivered: 0,
      ended: { NonRetriableOutcome: pattern('rejects-400')?.events },
    });
    expect(pattern('rejects-400')?.attempts).toBe(pattern('rejects-400')?.events);
    expect(pattern('five-attempts')?.attempts).toBe(5 * (pattern('five-attempts')?.events ?? 0));
    expect(pattern('five-attempts')?.ended).toEqual({
      MaxDeliveryAttemptsExceeded: pattern('five-attempts')?.events,
    });
    // A default subscription failing forever: 11 attempts in 24 h, then the TTL ends it.
    expect(pattern('always-500')?.attempts).toBe(11 * (pattern('always-500')?.events ?? 0));
    expect(pattern('always-500')?.ended).toEqual({ TimeToLiveExceeded: pattern('always-500')?.events });
    // Waits of 1, 3, 6 and 12 hours are made of 900-second hops.
    expect(result.hops).toBeGreaterThan(0);
  });

  it('is deterministic for a seed', async () => {
    const [a, b] = await Promise.all([
      runSimulation({ events: 100, seed: 3 }),
      runSimulation({ events: 100, seed: 3 }),
    ]);
    expect({ ...a, wallMs: 0 }).toEqual({ ...b, wallMs: 0 });
  });
});
