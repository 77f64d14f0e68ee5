/** `gridwire topic delete`: a topic gone, with its event subscriptions. */
import { Command } from 'commander';
import { okData, resolveApiTarget, topicLabel, topicRoute } from '../admin-api';
import { printAnswer } from '../output';
import { type Options, refOf, withCommon } from './common';

export function deleteCommand(): Command {
  return withCommon(new Command('delete'))
    .description('Delete a topic and its event subscriptions.')
    .argument('<name>', 'the topic name')
    .action(async (name: string, options: Options) => {
      const ref = refOf(name, options);
      const target = await resolveApiTarget(options);
      const result = await target.client.DELETE(topicRoute(ref), { params: { path: ref } });
      okData(result, `deleting ${topicLabel(ref)}`);
      const deleted = result.response.status !== 204;
      printAnswer(options, { deleted }, () =>
        deleted ? `Deleted ${topicLabel(ref)}.` : `There was no ${topicLabel(ref)}.`,
      );
    });
}
