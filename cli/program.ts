/**
 * The gridwire command line as a commander program. Each command lives in its own module here;
 * `bin/gridwire.ts` only runs the program and reports errors. Exported (`gridwire/cli`) so a
 * team can add its own commands or run one from a script.
 */
import { Command } from 'commander';
import { deadLettersCommand } from './deadletters';
import { healthCommand } from './health';
import { parkedCommand } from './parked';
import { startCommand } from './start';
import { statusCommand } from './status';
import { webhookCommand } from './webhook';

export { CliError } from './errors';

export function gridwireProgram(): Command {
  return new Command()
    .name('gridwire')
    .description('Gridwire: event delivery to webhooks with retries, on AWS or on this machine.')
    .addCommand(startCommand())
    .addCommand(webhookCommand())
    .addCommand(parkedCommand())
    .addCommand(deadLettersCommand())
    .addCommand(healthCommand())
    .addCommand(statusCommand());
}
