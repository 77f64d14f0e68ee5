/** `gridwire subscription validate`: the endpoint validation handshake sent again. */
import { Command } from 'commander';
import { okData, resolveApiTarget, subscriptionLabel, subscriptionRoute } from '../admin-api';
import { printAnswer } from '../output';
import { named, type Options, refOf, withRef } from './common';
import { formatSubscription, type SubscriptionDocument } from './format';

export function validateCommand(): Command {
  return withRef(new Command('validate'))
    .description('Send the endpoint validation handshake again (for an endpoint that has not agreed yet).')
    .action(async (raw: Options) => {
      const options = named(raw);
      const ref = refOf(options);
      const { client } = await resolveApiTarget(options);
      const document: SubscriptionDocument = okData(
        await client.POST(subscriptionRoute(ref, '/validate'), { params: { path: ref } }),
        `validating ${subscriptionLabel(ref)}`,
      );
      printAnswer(options, document, formatSubscription);
    });
}
