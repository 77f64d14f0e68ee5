/**
 * Three layers, run separately by `npm run test:unit|test:infra|test:integration`.
 * Sources are transformed by SWC (type-checking is `tsc --noEmit` in `npm run lint`);
 * middy ships ESM only, so it is transformed too.
 */
const transform = {
  '^.+\\.(t|j)sx?$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};
const common = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  testEnvironment: 'node',
};

module.exports = {
  // Integration tests wait on real retries (at a compressed time scale).
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      slowTestThreshold: 30,
    },
  ],
};
