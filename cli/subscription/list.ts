/** `gridwire subscription list`: a topic's event subscriptions. */
import { Command } from 'commander';
import { callOk, resolveApiTarget, subscriptionsAdminPath } from '../admin-api';
import { printAnswer } from '../output';
import { type Options, withRef } from './common';
import { formatSubscriptionList, type SubscriptionDocument } from './format';

export function listCommand(): Command {
  return withRef(new Command('list'), false)
    .description("List a topic's event subscriptions.")
    .action(async (options: Options) => {
      const target = await resolveApiTarget(options);
      const text = await callOk(
        target,
        'GET',
        subscriptionsAdminPath(options),
        undefined,
        `listing the subscriptions of topic ${options.topic}`,
      );
      const { value } = JSON.parse(text) as { value: SubscriptionDocument[] };
      printAnswer(options, value, (documents) => formatSubscriptionList(options, documents));
    });
}
