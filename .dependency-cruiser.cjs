/**
 * The layering of the code, as dependency-cruiser rules: what docs/ARCHITECTURE.md ("Code map")
 * claims about who imports whom, one rule per claim. `test/unit/layering.test.ts` cruises
 * the folders below with these rules on every `npm test` and fails naming each violation; by hand:
 *
 *   npx depcruise --config .dependency-cruiser.cjs shared functions infra local cli bench bin test/support
 *
 * Type-only imports count everywhere (`tsPreCompilationDeps: true`): a type is still an arrow
 * between modules, and a loop made of types is still a loop.
 *
 * The rows of `shared/`, bottom up, as the code map draws them:
 *   base:   domain/ config/ http/ platform/ observability/
 *   state:  queue/ storage/                 how jobs and state are kept
 *   halves: publish/ delivery/ (its rules/ and backlog/ too) archive/   the two halves of the pipeline, and the archive of what was published
 *   management/                             the admin API
 *   client/                                 what publishers and webhooks import from the package
 *   lambda/                                 wiring and Lambda glue
 * A folder imports the rows below it, never a row above ("nothing imports upwards"). The code map
 * says "only folders drawn below it", but the folders of a row import each other where one uses
 * what the other keeps (config/ reads the metric namespace's rule in observability/, publish/ builds
 * jobs' targets with delivery/target.ts, storage/ writes SQS-safe JSON with queue/job-codec.ts):
 * that is allowed as long as it makes no loop (`shared-no-folder-loops`). A folder and its own
 * subfolders (delivery/ and delivery/backlog/) are one concern, not two folders of a row.
 */

const PURE = '^shared/(domain|delivery/rules)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import loops ("there are no import loops"): a module in a loop cannot be read, tested or ' +
        'moved without the others, and its load order decides what is undefined at import time. ' +
        'Type-only imports count.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-no-folder-loops',
      severity: 'error',
      comment:
        'No loops between the folders of shared/ either, even when no two modules loop: a folder ' +
        'that imports a folder that imports it back is not below it, so the rows cannot be read ' +
        'bottom up (config -> observability -> http -> config was one).',
      scope: 'folder',
      from: { path: '^shared/' },
      to: { path: '^shared/', circular: true },
    },
    {
      name: 'engine-reaches-backlog-by-its-port',
      severity: 'error',
      comment:
        'The delivery engine knows of backlogs only what their port says (route a follow-up, hold ' +
        'a job, store a long wait): shared/delivery/backlog/port.ts. The backlog module is free to ' +
        'change behind it.',
      from: { path: '^shared/delivery/engine\\.ts$' },
      to: { path: '^shared/delivery/backlog/', pathNot: '^shared/delivery/backlog/port\\.ts$' },
    },
    {
      name: 'engine-is-held-by-the-worker',
      severity: 'error',
      comment:
        'No part of delivery is handed the engine: the worker (shared/delivery/worker.ts) builds ' +
        'the request path, the backlogs and the engine side by side, and jobs reach the engine ' +
        "through the job registry's steps on the worker.",
      from: { pathNot: '^shared/delivery/worker\\.ts$' },
      to: { path: '^shared/delivery/engine\\.ts$' },
    },
    {
      name: 'shared-base-imports-no-upper-row',
      severity: 'error',
      comment:
        'The base row (domain, config, http, platform, observability) is what every other folder ' +
        'stands on: it imports nothing of the rows above it.',
      from: { path: '^shared/(domain|config|http|platform|observability)/' },
      to: { path: '^shared/(queue|storage|publish|delivery|archive|management|client|lambda)/' },
    },
    {
      name: 'shared-state-imports-no-upper-row',
      severity: 'error',
      comment:
        'Queues and storage keep jobs and state for both halves of the pipeline: they know nothing ' +
        'of how either half works (no delivery rules in storage: what both need lives in domain/).',
      from: { path: '^shared/(queue|storage)/' },
      to: { path: '^shared/(publish|delivery|archive|management|client|lambda)/' },
    },
    {
      name: 'shared-halves-import-no-upper-row',
      severity: 'error',
      comment:
        'Publishing and delivery are driven by the admin API and the Lambda wiring, never the other ' +
        'way round.',
      from: { path: '^shared/(publish|delivery|archive)/' },
      to: { path: '^shared/(management|client|lambda)/' },
    },
    {
      name: 'shared-management-imports-no-upper-row',
      severity: 'error',
      comment: 'The admin API is built by the wiring and is no part of the client package.',
      from: { path: '^shared/management/' },
      to: { path: '^shared/(client|lambda)/' },
    },
    {
      name: 'shared-client-imports-no-wiring',
      severity: 'error',
      comment:
        "gridwire/client is what publishers and webhooks import: it must not pull in the functions' " +
        'wiring (AWS clients, Powertools).',
      from: { path: '^shared/client/' },
      to: { path: '^shared/lambda/' },
    },
    {
      name: 'shared-imports-nothing-outside-shared',
      severity: 'error',
      comment:
        'shared/ is the code the handlers, the CDK app, the local stack and the CLI are all built ' +
        'from: it imports none of them, nor the benchmark, the tests or the scripts.',
      from: { path: '^shared/' },
      to: { path: '^(functions|infra|local|cli|bin|bench|test|scripts)/' },
    },
    {
      name: 'pure-core-does-no-io',
      severity: 'error',
      comment:
        'domain/ and delivery/rules/ are pure ("the pure core"): they import the pure core (the ' +
        'rules the domain, not the other way round: the domain is in the base row), zod, ' +
        'node:crypto and the string helpers of platform/json-text.ts, nothing that does I/O ' +
        '(AWS SDK, undici, node:fs, Powertools, platform, storage, queue...). Same rule as ' +
        'test/unit/architecture.test.ts, which reads the import statements themselves.',
      from: { path: PURE },
      to: {
        pathNot: [PURE, '^shared/platform/json-text\\.ts$', '^node_modules/zod/', '^(node:)?crypto$'],
      },
    },
    {
      name: 'infra-imports-no-runtime-wiring',
      severity: 'error',
      comment:
        'The CDK app takes names, settings and metric names from shared/config/ and ' +
        "shared/observability/metrics.ts, never the functions' runtime wiring (shared/lambda/): " +
        "that would pull the functions' AWS clients and Powertools into synthesis.",
      from: { path: '^infra/' },
      to: { path: '^shared/lambda/' },
    },
    {
      name: 'infra-runs-no-handler-code',
      severity: 'error',
      comment:
        "The CDK app names the handlers' files (infra/function-bundle.ts bundles them), it never " +
        "loads them: synthesis must not run the functions' code.",
      from: { path: '^infra/' },
      to: { path: '^functions/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'handlers-import-no-host',
      severity: 'error',
      comment:
        'The same handlers run on AWS and in the local stack: a handler imports shared/ and ' +
        'packages, never the CDK app, the local stack or the CLI that host or call it.',
      from: { path: '^functions/' },
      to: { path: '^(infra|local|cli|bin)/' },
    },
    {
      name: 'local-stack-builds-from-config-not-infra',
      severity: 'error',
      comment:
        'The CDK construct and the local stack both build from shared/config/resources.ts; the ' +
        'local stack never reads the construct.',
      from: { path: '^local/' },
      to: { path: '^infra/' },
    },
    {
      name: 'package-imports-no-dev-code',
      severity: 'error',
      comment:
        'What the package ships (infra, functions, local, cli, bin) imports nothing of what it does ' +
        'not ship: the benchmark, the tests, the scripts.',
      from: { path: '^(functions|infra|local|cli|bin)/' },
      to: { path: '^(bench|test|scripts)/' },
    },
    {
      name: 'entry-is-imported-by-nothing',
      severity: 'error',
      comment: 'bin/gridwire.ts only runs the CLI: nothing imports it.',
      from: {},
      to: { path: '^bin/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '(^|/)dist/', '(^|/)cdk\\.out/', '\\.d\\.ts$'] },
    // `import type` and type-only re-exports are dependencies too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' `exports` maps (subpath imports such as '@aws-lambda-powertools/logger/middleware').
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
    },
    skipAnalysisNotInRules: true,
  },
};
