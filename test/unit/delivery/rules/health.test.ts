import {
  applySignal,
  applySignals,
  currentHealth,
  freshHealth,
  gateOf,
  healthState,
  holdsInBacklog,
  PAUSED_HOLD_MS,
  probationMs,
  unhealthyHoldMs,
  writeUrgency,
} from '../../../../shared/delivery/rules/health';
import { NAMESPACE_PROFILE, scaleProfile, TOPIC_PROFILE } from '../../../../shared/delivery/rules/profiles';
import type { EndpointHealth } from '../../../../shared/domain/health';
import type { DeliveryOutcome } from '../../../../shared/domain/model';
import { H, M, S } from '../../../support/time';

const t0 = Date.UTC(2026, 0, 1);
const url = 'https://hooks.example.test/in';
const fresh = () => freshHealth('orders', 'audit', url);
const fail = (outcome: DeliveryOutcome, at: number, retryAfterMs?: number) => ({
  outcome,
  at,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

/** The probation table of DELIVERY.md, "Delayed delivery and probation". */
const PROBATION_TABLE = [
  ['Busy', 10 * S],
  ['NotFound', 5 * M],
  ['SocketError', 30 * S],
  ['ResolutionError', 5 * M],
  ['Disabled', 5 * M],
  ['Full', 5 * M],
  ['TimedOut', 10 * S],
  ['Unauthorized', 5 * M],
  ['Forbidden', 5 * M],
  ['InvalidAzureFunctionDestination', 10 * M],
] as const;

describe('endpoint health rules', () => {
  it.each(PROBATION_TABLE)('%s puts the endpoint on probation for %d ms', (outcome, ms) => {
    expect(probationMs(TOPIC_PROFILE, fail(outcome, t0))).toBe(ms);
    const after = applySignal(TOPIC_PROFILE, fresh(), fail(outcome, t0));
    expect(after.probationUntil).toBe(t0 + ms);
    expect(after.probationOutcome).toBe(outcome);
    expect(after.probations).toBe(1);
    // 410 Gone (Disabled) keeps the endpoint disabled beyond its probation: see below.
    if (outcome === 'Disabled') return;
    expect(gateOf(after, t0 + ms - 1)).toEqual({ kind: 'hold', until: t0 + ms, outcome });
    expect(gateOf(after, t0 + ms).kind).toBe('probe');
  });

  // 002 (namespace page) documents the same outcomes and probations as the classic page.
  it.each(PROBATION_TABLE)(
    'namespace topics: %s puts the endpoint on probation for %d ms too',
    (outcome, ms) => {
      expect(probationMs(NAMESPACE_PROFILE, fail(outcome, t0))).toBe(ms);
      expect(applySignal(NAMESPACE_PROFILE, fresh(), fail(outcome, t0)).probationUntil).toBe(t0 + ms);
    },
  );

  it.each(['GenericError', 'Canceled', 'Aborted'] as const)(
    '%s alone begins no probation (it only counts as a failure)',
    (outcome) => {
      const after = applySignal(TOPIC_PROFILE, fresh(), fail(outcome, t0));
      expect(after.probationUntil).toBeUndefined();
      expect(after.consecutiveFailures).toBe(1);
      expect(gateOf(after, t0).kind).toBe('open');
      expect(healthState(after, t0)).toBe('Healthy');
    },
  );

  it.each(['BadRequest', 'PayloadTooLarge'] as const)(
    '%s is about the event, not the endpoint: health does not change',
    (outcome) => {
      const before = applySignal(TOPIC_PROFILE, fresh(), fail('GenericError', t0));
      expect(applySignal(TOPIC_PROFILE, before, fail(outcome, t0 + 1))).toBe(before);
    },
  );

  it('runs a probation from when the outcome was known: a 30 s timeout still holds for 10 s after it', () => {
    const after = applySignal(TOPIC_PROFILE, fresh(), { outcome: 'TimedOut', at: t0, endedAt: t0 + 30 * S });
    expect(after.probationUntil).toBe(t0 + 40 * S);
    expect(gateOf(after, t0 + 39 * S).kind).toBe('hold');
  });

  it('honours a longer Retry-After (429/503), capped by the profile, never a shorter one', () => {
    expect(probationMs(TOPIC_PROFILE, fail('Busy', t0, 2 * M))).toBe(2 * M);
    expect(probationMs(TOPIC_PROFILE, fail('Busy', t0, 1 * S))).toBe(10 * S);
    expect(probationMs(TOPIC_PROFILE, fail('Busy', t0, 5 * H))).toBe(TOPIC_PROFILE.maxRetryAfterMs);
  });

  it('turns unhealthy at the tenth failure in a row; every failure then holds it, longer as the outage lasts', () => {
    let health = fresh();
    for (let i = 0; i < 9; i += 1)
      health = applySignal(TOPIC_PROFILE, health, fail('GenericError', t0 + i * S));
    expect(health.unhealthySince).toBeUndefined();
    expect(gateOf(health, t0 + 9 * S).kind).toBe('open');

    health = applySignal(TOPIC_PROFILE, health, fail('GenericError', t0 + 9 * S));
    expect(health.unhealthySince).toBe(t0 + 9 * S);
    expect(healthState(health, t0 + 9 * S)).toBe('Unhealthy');
    // The first hold is the minimum, 1 minute.
    expect(health.probationUntil).toBe(t0 + 9 * S + 1 * M);

    // Holds grow with the outage: half the time it has been unhealthy, up to 3 hours. 003 (classic
    // page), "Delayed Delivery": Event Grid "will delay all subsequent retries *and new* deliveries
    // for some time - in some cases up to several hours."
    expect(unhealthyHoldMs(TOPIC_PROFILE, 0, 10 * M)).toBe(5 * M);
    expect(unhealthyHoldMs(TOPIC_PROFILE, 0, 30 * M)).toBe(15 * M);
    expect(unhealthyHoldMs(TOPIC_PROFILE, 0, 2 * H)).toBe(1 * H);
    expect(unhealthyHoldMs(TOPIC_PROFILE, 0, 5 * H)).toBe(2.5 * H);
    expect(unhealthyHoldMs(TOPIC_PROFILE, 0, 10 * H)).toBe(3 * H);
    expect(unhealthyHoldMs(NAMESPACE_PROFILE, 0, 10 * H)).toBe(3 * H);
    const later = applySignal(TOPIC_PROFILE, health, fail('Busy', t0 + 9 * S + 40 * M));
    expect(later.probationUntil).toBe(t0 + 9 * S + 40 * M + 20 * M);
    expect(later.probations).toBe(2);
    expect(healthState(later, t0 + 9 * S + 40 * M + 20 * M)).toBe('Unhealthy');
  });

  it('recovers at once on a success: counters, probation and the unhealthy mark are cleared', () => {
    let health = fresh();
    for (let i = 0; i < 12; i += 1) health = applySignal(TOPIC_PROFILE, health, fail('Busy', t0 + i));
    const recovered = applySignal(TOPIC_PROFILE, health, { outcome: 'Delivered', at: t0 + 2 * M });
    expect(recovered).toEqual({
      ...fresh(),
      lastOutcome: 'Delivered',
      lastSuccessAt: t0 + 2 * M,
      lastFailureAt: t0 + 11,
    });
    expect(gateOf(recovered, t0 + 2 * M).kind).toBe('open');
    expect(healthState(recovered, t0 + 2 * M)).toBe('Healthy');
  });

  it('folds concurrent outcomes in the order the attempts started', () => {
    // A success that started before the failures does not clear them.
    const health = applySignals(TOPIC_PROFILE, fresh(), [
      fail('Busy', t0 + 2),
      { outcome: 'Delivered', at: t0 + 1 },
      fail('Busy', t0 + 3),
    ]);
    expect(health.consecutiveFailures).toBe(2);
    // A failure inside the probation extends it without beginning another.
    expect(health.probations).toBe(1);
    expect(health.probationUntil).toBe(t0 + 3 + 10 * S);
  });

  it('410 Gone disables the endpoint until an admin enables it; probation ending does not', () => {
    const health = applySignal(TOPIC_PROFILE, fresh(), fail('Disabled', t0));
    expect(health.disabledAt).toBe(t0);
    expect(gateOf(health, t0 + 10 * H)).toEqual({ kind: 'disabled' });
    expect(healthState(health, t0 + 10 * H)).toBe('Disabled');
  });

  it('a paused endpoint is held, whatever its failures, until resumed; its events wait in the backlog', () => {
    const paused: EndpointHealth = { ...fresh(), pausedAt: t0 };
    // Looked at again every PAUSED_HOLD_MS; the events are due at once (when it is resumed).
    expect(gateOf(paused, t0 + 10 * H)).toEqual({
      kind: 'hold',
      until: t0 + 10 * H + PAUSED_HOLD_MS,
      outcome: undefined,
      dueAt: t0 + 10 * H,
    });
    expect(healthState(paused, t0)).toBe('Paused');
    expect(holdsInBacklog(paused)).toBe(true);
    expect(holdsInBacklog(fresh())).toBe(false);
    // Failures and successes folded in keep the pause; a 410 disables it (disabled comes first).
    const failed = applySignal(TOPIC_PROFILE, paused, fail('Busy', t0 + 1));
    expect(failed.pausedAt).toBe(t0);
    expect(applySignal(TOPIC_PROFILE, failed, { outcome: 'Delivered', at: t0 + 2 }).pausedAt).toBe(t0);
    expect(gateOf(applySignal(TOPIC_PROFILE, paused, fail('Disabled', t0 + 3)), t0 + 4)).toEqual({
      kind: 'disabled',
    });
    // Pausing and resuming change what every worker's gate lets through: written at once.
    expect(writeUrgency(fresh(), paused, t0)).toBe('now');
    expect(writeUrgency(paused, fresh(), t0)).toBe('now');
    // The pause is the subscription's: a new endpoint URL keeps it.
    expect(
      currentHealth({ ...paused, rev: 3 }, 'orders', 'audit', 'https://elsewhere.example.test/'),
    ).toMatchObject({
      endpointUrl: 'https://elsewhere.example.test/',
      pausedAt: t0,
      rev: 3,
    });
  });

  it('a record about another endpoint URL counts for nothing (keeping its revision for the next write)', () => {
    const stored: EndpointHealth = { ...applySignal(TOPIC_PROFILE, fresh(), fail('Busy', t0)), rev: 7 };
    expect(currentHealth(stored, 'orders', 'audit', url)).toBe(stored);
    expect(currentHealth(stored, 'orders', 'audit', 'https://elsewhere.example.test/')).toEqual({
      ...freshHealth('orders', 'audit', 'https://elsewhere.example.test/'),
      rev: 7,
    });
    expect(currentHealth(undefined, 'orders', 'audit', url)).toEqual(fresh());
  });

  it('writes at once only what changes other workers’ gates; counters wait; a healthy success is never written', () => {
    const probation = applySignal(TOPIC_PROFILE, fresh(), fail('Busy', t0));
    expect(writeUrgency(fresh(), probation, t0)).toBe('now');
    const extended = applySignal(TOPIC_PROFILE, probation, fail('Busy', t0 + 5));
    expect(writeUrgency(probation, extended, t0 + 5)).toBe('later');
    const counted = applySignal(TOPIC_PROFILE, fresh(), fail('GenericError', t0));
    expect(writeUrgency(fresh(), counted, t0)).toBe('later');
    const success = applySignal(TOPIC_PROFILE, fresh(), { outcome: 'Delivered', at: t0 });
    expect(writeUrgency(fresh(), success, t0)).toBe('none');
    // A 500 then a success: the counter goes back to 0; nothing any gate depends on changed.
    const reset = applySignal(TOPIC_PROFILE, counted, { outcome: 'Delivered', at: t0 + 1 });
    expect(writeUrgency(counted, reset, t0 + 1)).toBe('later');
    // Recovering from a probation is written at once: other workers stop holding.
    const recovered = applySignal(TOPIC_PROFILE, probation, { outcome: 'Delivered', at: t0 + 20_000 });
    expect(writeUrgency(probation, recovered, t0 + 20_000)).toBe('now');
    const disabled = applySignal(TOPIC_PROFILE, fresh(), fail('Disabled', t0));
    expect(writeUrgency(fresh(), disabled, t0)).toBe('now');
  });

  it('--time-scale divides probation lengths and unhealthy holds, not the failure count', () => {
    const scaled = scaleProfile(TOPIC_PROFILE, 60);
    expect(probationMs(scaled, fail('Busy', t0))).toBeCloseTo((10 * S) / 60);
    expect(probationMs(scaled, fail('NotFound', t0))).toBe(5 * S);
    expect(scaled.health.unhealthyHold).toEqual({ minMs: 1 * S, maxMs: 3 * M, ratio: 0.5 });
    expect(scaled.health.unhealthyAfterFailures).toBe(10);
  });
});

describe('disabled for failing too long (disableAfterFailingFor)', () => {
  const profile = { ...TOPIC_PROFILE, disableAfterMs: 5 * 24 * H };
  const failingFor = (ms: number, outcome: DeliveryOutcome = 'GenericError') =>
    applySignals(profile, fresh(), [fail(outcome, t0), fail(outcome, t0 + ms / 2), fail(outcome, t0 + ms)]);

  it('disables an endpoint that failed every attempt for the whole time, from its first failure', () => {
    const health = failingFor(5 * 24 * H);
    expect(health).toMatchObject({
      failingSince: t0,
      disabledAt: t0 + 5 * 24 * H,
      disabledReason: 'FailingTooLong',
    });
    expect(gateOf(health, t0 + 5 * 24 * H + 1)).toEqual({ kind: 'disabled' });
    expect(healthState(health, t0 + 5 * 24 * H + 1)).toBe('Disabled');
  });

  it('does not, one moment short of it, or when a success came in between', () => {
    expect(failingFor(5 * 24 * H - 1).disabledAt).toBeUndefined();
    const recovered = applySignals(profile, fresh(), [
      fail('GenericError', t0),
      { at: t0 + 3 * 24 * H, outcome: 'Delivered' },
      fail('GenericError', t0 + 5 * 24 * H),
    ]);
    expect(recovered).toMatchObject({ failingSince: t0 + 5 * 24 * H });
    expect(recovered.disabledAt).toBeUndefined();
  });

  it('never disables without the setting (0), and answers about the event (400) do not count', () => {
    const never = { ...TOPIC_PROFILE, disableAfterMs: 0 };
    expect(
      applySignals(never, fresh(), [fail('GenericError', t0), fail('GenericError', t0 + 30 * 24 * H)])
        .disabledAt,
    ).toBeUndefined();
    const neutral = applySignals(profile, fresh(), [
      fail('BadRequest', t0),
      fail('GenericError', t0 + 5 * 24 * H),
    ]);
    expect(neutral).toMatchObject({ failingSince: t0 + 5 * 24 * H });
    expect(neutral.disabledAt).toBeUndefined();
  });

  it('keeps 410 Gone its own reason', () => {
    expect(applySignals(profile, fresh(), [fail('Disabled', t0)])).toMatchObject({
      disabledAt: t0,
      disabledReason: 'Gone',
    });
  });
});
