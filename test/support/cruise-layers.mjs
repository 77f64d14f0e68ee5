/**
 * Cruises folders with the layering rules of `.dependency-cruiser.cjs` through dependency-cruiser's
 * JS API (`cruise`) and prints what `test/unit/layering.test.ts` checks, as JSON: the modules
 * cruised, the imports that could not be resolved, and every violation.
 *
 *   node test/support/cruise-layers.mjs <root> <folder>...
 *
 * dependency-cruiser is ES modules only (with top-level await), which jest's CommonJS runtime
 * cannot load, so the test runs this in a child process. `<root>` is where the folders, the
 * configuration and `tsconfig.json` are; the configuration is this repository's.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const CONFIG = join(dirname(fileURLToPath(import.meta.url)), '../../.dependency-cruiser.cjs');

const [root, ...folders] = process.argv.slice(2);
if (root === undefined || folders.length === 0) {
  process.stderr.write('usage: node test/support/cruise-layers.mjs <root> <folder>...\n');
  process.exit(2);
}
// Paths in the result, and the configuration's `tsConfig.fileName`, are relative to the root.
process.chdir(root);

const options = await extractDepcruiseOptions(CONFIG);
const tsConfig = extractTSConfig(options.tsConfig.fileName);
const { output } = await cruise(folders, options, {}, { tsConfig });

const local = output.modules.filter(
  (module) => !module.coreModule && !module.source.startsWith('node_modules/'),
);
process.stdout.write(
  JSON.stringify({
    modules: local.map((module) => module.source),
    unresolved: local.flatMap((module) =>
      module.dependencies
        .filter((dependency) => dependency.couldNotResolve)
        .map((dependency) => ({ from: module.source, module: dependency.module })),
    ),
    violations: output.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
      ...(violation.cycle === undefined ? {} : { cycle: violation.cycle.map((step) => step.name) }),
    })),
  }),
);
