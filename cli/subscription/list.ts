/** `gridwire subscription list`: a topic's event subscriptions. */
import { Command } from 'commander';
import { okData, resolveApiTarget, topicRoute } from '../admin-api';
import { printAnswer } from '../output';
import { type Options, withRef } from './common';
import { formatSubscriptionList } from './format';

export function listCommand(): Command {
  return withRef(new Command('list'), false)
    .description("List a topic's event subscriptions.")
    .action(async (options: Options) => {
      const target = await resolveApiTarget(options);
      const { value } = okData(
        await target.client.GET(topicRoute(options, '/eventSubscriptions'), { params: { path: options } }),
        `listing the subscriptions of topic ${options.topic}`,
      );
      printAnswer(options, value, (documents) => formatSubscriptionList(options, documents));
    });
}
