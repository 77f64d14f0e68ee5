/**
 * Four layers, run separately by `npm run test:unit|test:bench|test:infra|test:integration`
 * (`test:bench` checks the benchmark's own models; the benchmark itself is `npm run bench`).
 * ts-jest transpiles each file on its own (type-checking is `tsc --noEmit` in `npm run lint`);
 * middy ships ESM only, so it is transpiled to CommonJS too.
 */
const transform = {
  '^.+\\.(t|j)sx?$': [
    'ts-jest',
    {
      diagnostics: false,
      tsconfig: {
        module: 'commonjs',
        target: 'es2022',
        allowJs: true,
        esModuleInterop: true,
        isolatedModules: true,
      },
    },
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
    { ...common, displayName: 'bench', testMatch: ['<rootDir>/test/bench/**/*.test.ts'] },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      slowTestThreshold: 30,
    },
  ],
};
