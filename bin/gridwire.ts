#!/usr/bin/env -S npx tsx
/**
 * The gridwire command line (see `cli/program.ts`). In the package this file is compiled to
 * JavaScript and run by `node` (the build writes that first line); in this repository `npm run
 * gridwire` and `npm start` run it from a bundle (`scripts/gridwire.js`).
 */
import * as nodeModule from 'node:module';

// Node keeps the compiled code of the modules the command loads on disk (in the temporary
// directory), so the next run skips compiling them. Turned on before the program loads; a Node
// without it (older than 22.1) runs as before.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { CliError, runGridwire } = require('../cli/program') as typeof import('../cli/program');
const { silenceNodeVersionNotice } =
  require('../local/quiet-warnings') as typeof import('../local/quiet-warnings');

silenceNodeVersionNotice();

runGridwire(process.argv.slice(2)).catch((error: Error) => {
  console.error(`gridwire: ${error instanceof CliError ? error.message : (error.stack ?? error.message)}`);
  process.exit(1);
});
