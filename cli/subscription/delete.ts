/** `gridwire subscription delete`: an event subscription gone, its queued and held events dropped. */
import { Command } from 'commander';
import { okData, resolveApiTarget, subscriptionLabel, subscriptionRoute } from '../admin-api';
import { printAnswer } from '../output';
import { named, type Options, refOf, withRef } from './common';

export function deleteCommand(): Command {
  return withRef(new Command('delete'))
    .description('Delete an event subscription (its queued and held events are dropped).')
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const result = await target.client.DELETE(subscriptionRoute(ref), { params: { path: ref } });
      okData(result, `deleting ${subscriptionLabel(ref)}`);
      const deleted = result.response.status !== 204;
      printAnswer(options, { deleted }, () =>
        deleted ? `Deleted ${subscriptionLabel(ref)}.` : `There was no ${subscriptionLabel(ref)}.`,
      );
    });
}
