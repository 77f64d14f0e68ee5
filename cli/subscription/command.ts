/**
 * `gridwire subscription create|update|show|list|delete|pause|resume|validate|signing-secret`:
 * event subscriptions of a topic (with `--namespace`, of a namespace topic), with the Azure CLI's
 * flag names (`az eventgrid event-subscription ...`). A client of the management API's
 * subscription routes, local by default or `--api` (see `admin-api.ts`).
 *
 * One file per subcommand (`create.ts`, `update.ts`, ..., `pause` and `resume` in
 * `pause-resume.ts`); what they share in `common.ts`, the flags that shape a subscription in
 * `flag-options.ts`; the bodies are made in `body.ts`, what is printed in `format.ts`.
 */
import { Command } from 'commander';
import { createCommand } from './create';
import { deleteCommand } from './delete';
import { listCommand } from './list';
import { pauseOrResumeCommand } from './pause-resume';
import { showCommand } from './show';
import { signingSecretCommand } from './signing-secret';
import { updateCommand } from './update';
import { validateCommand } from './validate';

export function subscriptionCommand(): Command {
  return new Command('subscription')
    .description(
      'Event subscriptions of a topic: create, update, show, list, delete, pause, resume, validate, signing-secret (az eventgrid event-subscription).',
    )
    .addCommand(createCommand())
    .addCommand(updateCommand())
    .addCommand(showCommand())
    .addCommand(listCommand())
    .addCommand(deleteCommand())
    .addCommand(pauseOrResumeCommand('pause'))
    .addCommand(pauseOrResumeCommand('resume'))
    .addCommand(validateCommand())
    .addCommand(signingSecretCommand());
}
