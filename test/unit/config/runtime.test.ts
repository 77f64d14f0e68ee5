import { ENV, QUEUES } from '../../../shared/config/resources';
import { CONFIG_DEFAULTS, readConfig, requireSetting } from '../../../shared/config/runtime';
import { buildManagementDeps } from '../../../shared/lambda/wiring/management';
import { createAwsClients } from '../../../shared/platform/aws';
import { quietObservability } from '../../support/sqs-events';

describe('configuration', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('fails fast naming a variable a function needs and does not have', () => {
    delete process.env[ENV.tableName];
    const runtime = { config: readConfig(), clients: createAwsClients() };
    expect(() => buildManagementDeps(runtime, quietObservability('management'))).toThrow(
      `Environment variable ${ENV.tableName} is required`,
    );
  });

  it('reads values and defaults', () => {
    process.env[ENV.tableName] = 't';
    process.env[ENV.retryQueueUrl] = 'http://q';
    process.env[ENV.timeScale] = '60';
    delete process.env[ENV.deliveryQueueUrl];
    const config = readConfig();
    expect(config).toMatchObject({
      tableName: 't',
      queueUrls: { retry: 'http://q' },
      timeScale: 60,
      deliveryConcurrency: 256,
    });
    expect(config.queueUrls.delivery).toBeUndefined();
  });

  it('refuses a time scale below 1', () => {
    process.env[ENV.tableName] = 't';
    process.env[ENV.timeScale] = '0.5';
    expect(() => readConfig()).toThrow(`Environment variable ${ENV.timeScale} must be a number >= 1`);
  });
});

describe('readConfig(env)', () => {
  const table = { [ENV.tableName]: 'gridwire-state' };

  it('uses the record it is given, not the process environment', () => {
    process.env[ENV.timeScale] = '60';
    try {
      expect(readConfig(table).timeScale).toBe(1);
    } finally {
      delete process.env[ENV.timeScale];
    }
  });

  it('applies every default when only the table name is set', () => {
    expect(readConfig(table)).toEqual({
      tableName: 'gridwire-state',
      queueUrls: {},
      timeScale: CONFIG_DEFAULTS.timeScale,
      allowHttpEndpoints: false,
      subscriptionCacheMs: CONFIG_DEFAULTS.subscriptionCacheSeconds * 1000,
      topicCacheMs: CONFIG_DEFAULTS.topicCacheMs,
      deliveryBacklogLimit: 0,
      deliveryConcurrency: CONFIG_DEFAULTS.deliveryConcurrency,
      drainConcurrency: CONFIG_DEFAULTS.drainConcurrency,
      backlog: true,
      backlogAfterMs: CONFIG_DEFAULTS.backlogAfterSeconds * 1000,
      healthCacheMs: CONFIG_DEFAULTS.healthCacheMs,
      historyRetentionDays: CONFIG_DEFAULTS.historyRetentionDays,
      archiveLagMs: CONFIG_DEFAULTS.archiveLagSeconds * 1000,
      validateEndpoints: false,
      blockPrivateEndpoints: false,
      egressAddresses: [],
      sources: [],
      resourceDestinations: [],
      deadLetterBuckets: [],
      subscriptionMetrics: false,
      metricsFlushSeconds: 0,
      metricsNamespace: 'Gridwire',
      portalFrameAncestors: [],
      portalBranding: {},
    });
  });

  it('reads the portal settings, refusing what is not an https origin or not the branding asked', () => {
    const read = readConfig({
      ...table,
      [ENV.portalFrameAncestors]: ' https://app.example.com  https://*.example.org ',
      [ENV.portalBranding]: '{"title": "Acme hooks", "accentColor": "#0a7cff"}',
      [ENV.sessionKeySecretArn]: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:SessionKey-abc',
    });
    expect(read.portalFrameAncestors).toEqual(['https://app.example.com', 'https://*.example.org']);
    expect(read.portalBranding).toEqual({ title: 'Acme hooks', accentColor: '#0a7cff' });
    expect(read.sessionKeySecretArn).toMatch(/:secret:SessionKey-abc$/);
    expect(() => readConfig({ ...table, [ENV.portalFrameAncestors]: 'http://app.example.com' })).toThrow(
      `${ENV.portalFrameAncestors}[0]: 'http://app.example.com' is not an https origin`,
    );
    expect(() => readConfig({ ...table, [ENV.portalBranding]: '{"title": ' })).toThrow(
      `Environment variable ${ENV.portalBranding} must be JSON`,
    );
    expect(() => readConfig({ ...table, [ENV.portalBranding]: '{"accentColor": "blue"}' })).toThrow(
      `${ENV.portalBranding}.accentColor: a colour as #rrggbb`,
    );
  });

  it('reads the delivery backlog limit the publish function refuses from (0, the default, never refuses)', () => {
    expect(readConfig({ ...table, [ENV.deliveryBacklogLimit]: '10000' }).deliveryBacklogLimit).toBe(10_000);
    expect(readConfig({ ...table, [ENV.deliveryBacklogLimit]: '0' }).deliveryBacklogLimit).toBe(0);
  });

  it("reads the metrics namespace, which must follow CloudWatch's rules", () => {
    expect(readConfig({ ...table, [ENV.metricsNamespace]: 'Gridwire/Staging #2' }).metricsNamespace).toBe(
      'Gridwire/Staging #2',
    );
    for (const bad of [
      'AWS/Lambda',
      ':Gridwire',
      'Grid"wire',
      "Gridwire's",
      'x'.repeat(256),
      'Gr\u00efdwire',
    ]) {
      expect(() => readConfig({ ...table, [ENV.metricsNamespace]: bad })).toThrow(
        `Environment variable ${ENV.metricsNamespace} must be a CloudWatch namespace`,
      );
    }
  });

  it('reads the backlog switch and its threshold, which must leave room for a full hop and a release', () => {
    const off = readConfig({ ...table, [ENV.backlog]: 'false', [ENV.backlogAfterSeconds]: '3600' });
    expect(off).toMatchObject({ backlog: false, backlogAfterMs: 3_600_000 });
    expect(() => readConfig({ ...table, [ENV.backlogAfterSeconds]: '900' })).toThrow(
      `Environment variable ${ENV.backlogAfterSeconds} must be`,
    );
    expect(() => readConfig({ ...table, [ENV.backlog]: 'maybe' })).toThrow(ENV.backlog);
  });

  it('defaults the drain concurrency to a quarter of the delivery concurrency, rounded up', () => {
    expect(CONFIG_DEFAULTS.drainConcurrency).toBe(Math.ceil(CONFIG_DEFAULTS.deliveryConcurrency / 4));
    expect(readConfig({ ...table, [ENV.deliveryConcurrency]: '10' }).drainConcurrency).toBe(3);
    expect(
      readConfig({ ...table, [ENV.deliveryConcurrency]: '10', [ENV.drainConcurrency]: '7' }).drainConcurrency,
    ).toBe(7);
  });

  it('reads every variable', () => {
    const config = readConfig({
      ...table,
      [ENV.deliveryQueueUrl]: 'http://sqs/delivery',
      [ENV.retryQueueUrl]: 'http://sqs/retry',
      [ENV.timeScale]: '60',
      [ENV.allowHttpEndpoints]: 'true',
      [ENV.topicCacheMs]: '0',
      [ENV.subscriptionCacheSeconds]: '2.5',
      [ENV.deliveryConcurrency]: '8',
      [ENV.historyRetentionDays]: '3',
      [ENV.publicUrl]: 'https://events.example.com',
      [ENV.validateEndpoints]: 'true',
      [ENV.blockPrivateEndpoints]: '1',
      [ENV.subscriptionMetrics]: 'true',
      [ENV.metricsFlushSeconds]: '60',
      [ENV.metricsNamespace]: 'Gridwire-Staging',
    });
    expect(config).toMatchObject({
      tableName: 'gridwire-state',
      queueUrls: { delivery: 'http://sqs/delivery', retry: 'http://sqs/retry' },
      timeScale: 60,
      allowHttpEndpoints: true,
      topicCacheMs: 0,
      subscriptionCacheMs: 2500,
      deliveryConcurrency: 8,
      historyRetentionDays: 3,
      publicUrl: 'https://events.example.com',
      validateEndpoints: true,
      blockPrivateEndpoints: true,
      subscriptionMetrics: true,
      metricsFlushSeconds: 60,
      metricsNamespace: 'Gridwire-Staging',
    });
  });

  it('reads each queue URL from the variable its queue definition names', () => {
    const env = Object.fromEntries(
      Object.entries(QUEUES).map(([key, queue]) => [queue.urlEnv, `url-${key}`]),
    );
    const config = readConfig({ ...table, ...env });
    expect(config.queueUrls).toEqual(
      Object.fromEntries(Object.keys(QUEUES).map((key) => [key, `url-${key}`])),
    );
  });

  it.each([
    'events.example.com',
    'ftp://events.example.com',
    'https://events.example.com/?token=1',
    'https://events.example.com/#x',
    'https://user:pw@events.example.com',
    'https://events.example.com/a\r\nb',
  ])('refuses the public URL %j, naming the variable', (publicUrl) => {
    expect(() => readConfig({ ...table, [ENV.publicUrl]: publicUrl })).toThrow(
      `Environment variable ${ENV.publicUrl} must be an http or https URL`,
    );
  });

  it('treats empty and blank values as absent', () => {
    const config = readConfig({
      ...table,
      [ENV.publicUrl]: '',
      [ENV.timeScale]: ' ',
      [ENV.retryQueueUrl]: '',
    });
    expect(config.publicUrl).toBeUndefined();
    expect(config.queueUrls.retry).toBeUndefined();
    expect(config.timeScale).toBe(1);
    expect(readConfig({ [ENV.tableName]: '  ' }).tableName).toBeUndefined();
  });

  it.each([
    [ENV.timeScale, 'fast', 'must be a number >= 1 (got fast)'],
    [ENV.timeScale, '0', 'must be a number >= 1 (got 0)'],
    [ENV.subscriptionCacheSeconds, '-1', 'must be a number from 0 to 300 (got -1)'],
    [ENV.subscriptionCacheSeconds, '301', 'must be a number from 0 to 300 (got 301)'],
    [ENV.topicCacheMs, '1s', 'must be a number >= 0 (got 1s)'],
    [ENV.deliveryConcurrency, '0', 'must be an integer from 1 to 1000 (got 0)'],
    [ENV.deliveryConcurrency, '2.5', 'must be an integer from 1 to 1000 (got 2.5)'],
    [ENV.deliveryConcurrency, '1001', 'must be an integer from 1 to 1000 (got 1001)'],
    [ENV.drainConcurrency, '0', 'must be an integer from 1 to 1000 (got 0)'],
    [ENV.drainConcurrency, '1.5', 'must be an integer from 1 to 1000 (got 1.5)'],
    [ENV.historyRetentionDays, 'Infinity', 'must be an integer from 1 to 365 (got Infinity)'],
    [ENV.historyRetentionDays, '1.5', 'must be an integer from 1 to 365 (got 1.5)'],
    [ENV.deliveryBacklogLimit, '-1', 'must be an integer >= 0 (got -1)'],
    [ENV.deliveryBacklogLimit, '10.5', 'must be an integer >= 0 (got 10.5)'],
  ])('refuses %s=%s, naming the variable and the rule', (key, value, rule) => {
    expect(() => readConfig({ ...table, [key]: value })).toThrow(`Environment variable ${key} ${rule}`);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
  ])('reads %s as the boolean %s', (value, expected) => {
    expect(readConfig({ ...table, [ENV.allowHttpEndpoints]: value }).allowHttpEndpoints).toBe(expected);
  });

  it.each(['yes', 'on', '2'])('refuses %s as a boolean', (value) => {
    expect(() => readConfig({ ...table, [ENV.allowHttpEndpoints]: value })).toThrow(
      `Environment variable ${ENV.allowHttpEndpoints} must be true, false, 1 or 0 (got ${value})`,
    );
  });

  it('counts metrics per subscription only when told to, and refuses anything but a switch', () => {
    expect(readConfig(table).subscriptionMetrics).toBe(false);
    expect(readConfig({ ...table, [ENV.subscriptionMetrics]: '1' }).subscriptionMetrics).toBe(true);
    expect(readConfig({ ...table, [ENV.subscriptionMetrics]: 'false' }).subscriptionMetrics).toBe(false);
    expect(() => readConfig({ ...table, [ENV.subscriptionMetrics]: 'per-topic' })).toThrow(
      `Environment variable ${ENV.subscriptionMetrics} must be true, false, 1 or 0 (got per-topic)`,
    );
  });

  it('requireSetting names the variable a function needs', () => {
    expect(requireSetting('x', ENV.retryQueueUrl)).toBe('x');
    expect(() => requireSetting(undefined, ENV.retryQueueUrl)).toThrow(
      `Environment variable ${ENV.retryQueueUrl} is required by this function`,
    );
  });
});
