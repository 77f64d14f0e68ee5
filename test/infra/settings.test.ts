/**
 * The construct's props that are function settings take exactly the values the functions accept
 * from their environment variables: both check `SETTING_RANGES`, and this holds them to it at the
 * edges of each range.
 */
import { App, Stack } from 'aws-cdk-lib';
import { DeliveryPipeline } from '../../infra/delivery-pipeline';
import { ENV } from '../../shared/config/resources';
import { readConfig, SETTING_RANGES, type SettingRange } from '../../shared/config/runtime';

// Skip asset bundling: only the props' checks matter here.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

const SETTING_PROPS = [
  'deliveryConcurrency',
  'historyRetentionDays',
  'subscriptionCacheSeconds',
  'metricsFlushSeconds',
] as const;

const accepts = (build: () => unknown): boolean => {
  try {
    build();
    return true;
  } catch {
    return false;
  }
};

describe.each(SETTING_PROPS)('the %s prop and its environment variable', (name) => {
  const range: SettingRange = SETTING_RANGES[name];
  const max = range.max ?? range.min + 1000;
  const values = [range.min - 1, range.min, range.min + 0.5, max, max + 1, Number.NaN];

  it.each(values)('agree on %p', (value) => {
    const byConstruct = accepts(
      () => new DeliveryPipeline(new Stack(newApp(), 'Settings'), 'Pipeline', { [name]: value }),
    );
    const byFunctions = accepts(() => readConfig({ [ENV[name]]: String(value) }));
    expect(byConstruct).toBe(byFunctions);
  });

  it('accept the range and refuse what is outside it', () => {
    expect(accepts(() => readConfig({ [ENV[name]]: String(range.min) }))).toBe(true);
    expect(accepts(() => readConfig({ [ENV[name]]: String(max) }))).toBe(true);
    expect(accepts(() => readConfig({ [ENV[name]]: String(range.min - 1) }))).toBe(false);
    if (range.max !== undefined)
      expect(accepts(() => readConfig({ [ENV[name]]: String(max + 1) }))).toBe(false);
  });
});
