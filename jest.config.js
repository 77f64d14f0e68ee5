/**
 * Four layers (`npm run test:unit|test:bench|test:infra|test:integration`; `test:bench` checks
 * the benchmark's own models, the benchmark itself is `npm run bench`), and a fifth: the one
 * integration file that loads the machine hardest (`isolation.test.ts`, backlogs of 2,000 beside
 * hanging and failing endpoints, checking the healthy subscription is never held), and a sixth, `iam` (`npm run test:iam`), which checks every AWS call the
 * integration run recorded against the synthesized IAM policy of the function that made it, and
 * `browser` (`npm run test:browser`): the console in headless Chromium, after
 * `scripts/ensure-browser.sh` has made sure Chromium is installed.
 * `npm test` (`scripts/test.ts`) runs the unit, bench and integration layers with the browser and
 * package tests in one jest run over three workers (integration tests mostly wait on real retries
 * and webhooks, so they overlap well on two cores), longest files first
 * (`test/support/sequencer.js`); then the isolation file, the only local stack running, so what
 * it checks is the pipeline under its own load, not other test files' stacks, with the infra
 * layer and the IAM check beside it at a low CPU priority (synthesis only, no stacks); lint and
 * type-check run from the start at that low priority.
 * Each file is compiled on its own by esbuild (`test/support/esbuild-transform.js`; type-checking
 * is `tsc --noEmit` in `npm run lint`); middy ships ESM only, so it is compiled to CommonJS too.
 */
const transform = { '^.+\\.(t|j)sx?$': '<rootDir>/test/support/esbuild-transform.js' };
/** Integration files that load the machine on their own: run alone (`npm run test:isolation`). */
const RUN_ALONE = ['/test/integration/isolation.test.ts'];

const common = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  testEnvironment: 'node',
  // The built package (`npm run package`) repeats this package's name and files.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  // Integration tests wait on real retries (at a compressed time scale).
  testTimeout: 30_000,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'bench', testMatch: ['<rootDir>/test/bench/**/*.test.ts'] },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...RUN_ALONE],
      slowTestThreshold: 30,
      // Each run records the AWS calls its stacks make afresh, for the `iam` project.
      globalSetup: '<rootDir>/test/support/clear-aws-calls.ts',
    },
    // The console in headless Chromium against the real local stack (`npm run test:browser`).
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
      slowTestThreshold: 60,
    },
    // Every AWS call the integration run recorded, checked against its function's IAM policy.
    { ...common, displayName: 'iam', testMatch: ['<rootDir>/test/iam/**/*.test.ts'] },
    // The packed package installed into a fresh CDK app (`npm run test:package`).
    { ...common, displayName: 'package', testMatch: ['<rootDir>/test/package/**/*.test.ts'] },
    {
      ...common,
      displayName: 'isolation',
      testMatch: RUN_ALONE.map((file) => `<rootDir>${file}`),
      slowTestThreshold: 60,
    },
  ],
};
