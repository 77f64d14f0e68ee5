/** `gridwire subscription show`: an event subscription, a setting a line. */
import { Command } from 'commander';
import { resolveApiTarget, subscriptionLabel } from '../admin-api';
import { CliError } from '../errors';
import { printAnswer } from '../output';
import { named, type Options, readSubscription, refOf, withRef } from './common';
import { formatSubscription } from './format';

export function showCommand(): Command {
  return withRef(new Command('show'))
    .description('Show an event subscription.')
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const document = await readSubscription(await resolveApiTarget(options), ref);
      if (document === undefined) throw new CliError(`no ${subscriptionLabel(ref)}`);
      printAnswer(options, document, formatSubscription);
    });
}
