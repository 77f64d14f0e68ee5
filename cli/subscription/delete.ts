/** `gridwire subscription delete`: an event subscription gone, its queued and held events dropped. */
import { Command } from 'commander';
import { okText, resolveApiTarget, subscriptionAdminPath, subscriptionLabel } from '../admin-api';
import { printAnswer } from '../output';
import { named, type Options, refOf, withRef } from './common';

export function deleteCommand(): Command {
  return withRef(new Command('delete'))
    .description('Delete an event subscription (its queued and held events are dropped).')
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const answer = await target.call('DELETE', subscriptionAdminPath(ref));
      okText(answer, `deleting ${subscriptionLabel(ref)}`);
      const deleted = answer.status !== 204;
      printAnswer(options, { deleted }, () =>
        deleted ? `Deleted ${subscriptionLabel(ref)}.` : `There was no ${subscriptionLabel(ref)}.`,
      );
    });
}
