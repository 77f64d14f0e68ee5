/**
 * The gridwire command line as a commander program. Each command lives in its own module here;
 * `bin/gridwire.ts` only runs the program and reports errors. Exported (`gridwire/cli`) so a
 * team can add its own commands or run one from a script.
 *
 * Building the program loads commander and the command definitions, not what the commands use to
 * do their work: the AWS SDK's clients, the signer and credential chain, the local stack and the
 * management API's code are `require`d where a command first needs them (a `require`, not
 * `import()`: the package is CommonJS, where `import()` of a relative path needs its extension).
 * So `--help`, and each command, starts without the others' weight
 * (`test/unit/cli/start-up.test.ts` checks what `--help` loads).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Help, type Option } from 'commander';
import { deadLettersCommand } from './deadletters';
import { eventTypeCommand } from './event-type';
import { eventsCommand } from './events';
import { healthCommand } from './health';
import { parkedCommand } from './parked';
import { publishCommand } from './publish';
import { consoleCommand, portalLinkCommand, sessionsCommand } from './sessions';
import { startCommand } from './start';
import { statusCommand } from './status';
import { subscriptionCommand } from './subscription/command';
import { topicCommand } from './topic/command';
import { webhookCommand } from './webhook';
import { groupOptionWords } from './words';

export { CliError } from './errors';

/** This package's version (its package.json, beside `cli/` in the repository and in the package). */
export function gridwireVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Every option a command requires says so in its help, as `(required)` after its description. */
function markRequiredOptions(command: Command): Command {
  command.configureHelp({
    optionDescription: (option: Option) => {
      const described = new Help().optionDescription(option);
      return option.mandatory ? `${described} (required)` : described;
    },
  });
  for (const sub of command.commands) markRequiredOptions(sub);
  return command;
}

export function gridwireProgram(): Command {
  return markRequiredOptions(gridwireCommands());
}

function gridwireCommands(): Command {
  return new Command()
    .name('gridwire')
    .description('Gridwire: event delivery to webhooks with retries, on AWS or on this machine.')
    .version(gridwireVersion())
    .addCommand(startCommand())
    .addCommand(topicCommand())
    .addCommand(eventTypeCommand())
    .addCommand(subscriptionCommand())
    .addCommand(publishCommand())
    .addCommand(eventsCommand())
    .addCommand(webhookCommand())
    .addCommand(parkedCommand())
    .addCommand(deadLettersCommand())
    .addCommand(healthCommand())
    .addCommand(statusCommand())
    .addCommand(consoleCommand())
    .addCommand(portalLinkCommand())
    .addCommand(sessionsCommand());
}

/**
 * Runs the program on `argv` (the user's words, without `node` and the script), the words of
 * multi-word flags grouped first (`words.ts`).
 */
export function runGridwire(argv: readonly string[], program: Command = gridwireProgram()): Promise<Command> {
  return program.parseAsync(groupOptionWords(argv), { from: 'user' });
}
