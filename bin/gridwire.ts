#!/usr/bin/env -S npx tsx
/**
 * The gridwire command line (see `cli/program.ts`). In the package this file is compiled to
 * JavaScript and run by `node` (the build writes that first line); here it runs through tsx.
 */
import { CliError, runGridwire } from '../cli/program';
import { silenceNodeVersionNotice } from '../local/quiet-warnings';

silenceNodeVersionNotice();

runGridwire(process.argv.slice(2)).catch((error: Error) => {
  console.error(`gridwire: ${error instanceof CliError ? error.message : (error.stack ?? error.message)}`);
  process.exit(1);
});
