/**
 * The benchmark's simulation doubles as a test of the engine: a day of scripted failures in
 * virtual time, every wait checked against the schedule, with backlogs kept as on AWS (and
 * without, as before them).
 */
import { runSimulation } from '../../bench/simulation';

describe('retry engine simulation', () => {
  it.each([
    ['with backlogs', true],
    ['without backlogs', false],
  ])(
    '%s keeps every wait within [step, step + jitter) and ends each pattern as the rules say',
    async (_name, backlog) => {
      const result = await runSimulation({ events: 350, seed: 11, hours: 48, backlog, parkedEvents: 0 });
      const pattern = (name: string) => result.byPattern.find((p) => p.pattern === name);

      expect(result.events).toBe(350);
      expect(result.waitsChecked).toBeGreaterThan(500);
      expect(result.violations).toBe(0);
      expect(result.early).toBe(0);
      expect(result.heldWaits).toBe(0);
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
      if (backlog) {
        // Waits longer than 20 minutes (30 min, 1, 3, 6 and 12 hours) are stored, not hopped.
        expect(result.hops).toBe(0);
        expect(result.stored).toBeGreaterThan(0);
        expect(result.storeInvocations).toBeGreaterThan(0);
        expect(result.ticks).toBeGreaterThan(0);
      } else {
        // Waits of 1, 3, 6 and 12 hours are made of 900-second hops.
        expect(result.hops).toBeGreaterThan(0);
        expect(result.stored).toBe(0);
      }
    },
  );

  it("parks one endpoint's events in its backlog: a probe per probation, then every event delivered", async () => {
    const result = await runSimulation({ events: 0, seed: 5, hours: 48, parkedEvents: 200 });
    const { parked } = result;

    expect(result.early).toBe(0);
    expect(result.violations).toBe(0);
    // Held events are not checked against the schedule: a probation kept them.
    expect(result.heldWaits).toBeGreaterThan(0);
    // Once unhealthy, one request per probation that ends, not one per event.
    expect(parked.probationEnds).toBeGreaterThan(5);
    expect(Math.abs(parked.requestsWhileUnhealthy - parked.probationEnds)).toBeLessThanOrEqual(1);
    expect(parked.requestsWhileDown).toBeLessThan(parked.events / 4);
    // Every event is delivered once the endpoint answers (the default limits outlast 6 hours).
    expect(
      parked.delivered +
        (parked.ended.TimeToLiveExceeded ?? 0) +
        (parked.ended.MaxDeliveryAttemptsExceeded ?? 0),
    ).toBe(parked.events);
    expect(parked.delivered).toBe(parked.events);
    expect(parked.throughBacklog).toBe(parked.events);
    // The backlog wakes when the last probation ends: at most its longest hold (3 h) after recovery.
    expect(parked.lastDeliveredAfterRecoveryHours).toBeLessThanOrEqual(3);
  });

  it('is deterministic for a seed', async () => {
    const [a, b] = await Promise.all([
      runSimulation({ events: 100, seed: 3 }),
      runSimulation({ events: 100, seed: 3 }),
    ]);
    expect({ ...a, wallMs: 0 }).toEqual({ ...b, wallMs: 0 });
  });
});
