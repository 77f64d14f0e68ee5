/**
 * A validation job through the engine: the handshake's outcome is counted when the endpoint
 * refused, so a subscription declared with `validation: 'async'` (whose deployment does not wait)
 * still reports a refusal through a metric and its alarm; consent and stale jobs count nothing.
 */
import { deliveryTargetOf } from '../../../shared/delivery/target';
import { JOB_FORMAT_VERSION, type ValidationJob } from '../../../shared/domain/delivery';
import { METRIC } from '../../../shared/observability/metrics';
import { engineHarness, subscription } from '../../support/fakes';

const job = (): ValidationJob => ({
  v: JOB_FORMAT_VERSION,
  kind: 'validate',
  target: deliveryTargetOf(subscription()),
  code: 'code-1',
  validationUrl: 'https://api.example/eventSubscriptions/validate?code=code-1',
});

it.each([
  ['refused', [{ name: METRIC.EndpointValidationFailCount, values: [1] }]],
  ['validated', []],
  ['stale', []],
] as const)('counts EndpointValidationFailCount when the handshake is %s: %j', async (report, expected) => {
  const h = engineHarness({ handshake: { run: async () => report } });
  await h.engine.processJob(job(), { attemptDeadline: h.clock.now() + 60_000 });
  const counted = h.metrics
    .drain()
    .filter((point) => point.name === METRIC.EndpointValidationFailCount)
    .map(({ name, values, dimensions }) => ({ name, values, dimensions }));
  expect(counted.map(({ name, values }) => ({ name, values }))).toEqual(
    expected.length === 0 ? [] : expect.arrayContaining(expected),
  );
  // The stack-wide series the alarm reads is among them.
  if (report === 'refused')
    expect(counted.some(({ dimensions }) => Object.keys(dimensions).length === 0)).toBe(true);
});
