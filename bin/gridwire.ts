#!/usr/bin/env -S npx tsx
/**
 * The gridwire command line. Each command lives in its own module under `cli/`; this file only
 * puts them together and reports errors.
 */
import { Command } from 'commander';
import { deadLettersCommand } from '../cli/deadletters';
import { CliError } from '../cli/errors';
import { healthCommand } from '../cli/health';
import { parkedCommand } from '../cli/parked';
import { startCommand } from '../cli/start';
import { statusCommand } from '../cli/status';
import { webhookCommand } from '../cli/webhook';
import { silenceNodeVersionNotice } from '../local/quiet-warnings';

silenceNodeVersionNotice();

const program = new Command()
  .name('gridwire')
  .description('Gridwire: event delivery to webhooks with retries, on AWS or on this machine.')
  .addCommand(startCommand())
  .addCommand(webhookCommand())
  .addCommand(parkedCommand())
  .addCommand(deadLettersCommand())
  .addCommand(healthCommand())
  .addCommand(statusCommand());

program.parseAsync(process.argv).catch((error: Error) => {
  console.error(`gridwire: ${error instanceof CliError ? error.message : (error.stack ?? error.message)}`);
  process.exit(1);
});
