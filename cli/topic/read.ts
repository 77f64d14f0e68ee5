/** `gridwire topic show` and `list`: a topic with its publish URL, or every topic (of a namespace). */
import { Command } from 'commander';
import { okData, resolveApiTarget } from '../admin-api';
import { printAnswer, table } from '../output';
import { publishUrlOf, requireTopic } from './api';
import { archiveText, deduplicationWindowText, formatTopic, type Options, refOf, withCommon } from './common';

export function showCommand(): Command {
  return withCommon(new Command('show'))
    .description('Show a topic and the URL its events are published to.')
    .argument('<name>', 'the topic name')
    .action(async (name: string, options: Options) => {
      const ref = refOf(name, options);
      const target = await resolveApiTarget(options);
      const document = await requireTopic(target, ref);
      printAnswer(options, document, (doc) => formatTopic(target, ref, doc));
    });
}

export function listCommand(): Command {
  return withCommon(new Command('list'))
    .description('List the topics (with --namespace, the topics of that namespace).')
    .action(async (options: Options) => {
      const target = await resolveApiTarget(options);
      const listed =
        options.namespace === undefined
          ? await target.client.GET('/admin/topics')
          : await target.client.GET('/admin/namespaces/{namespace}/topics', {
              params: { path: { namespace: options.namespace } },
            });
      const { value } = okData(listed, 'listing the topics');
      printAnswer(options, value, (documents) =>
        documents.length === 0
          ? 'No topics.'
          : table(
              ['NAME', 'INPUT SCHEMA', 'DEDUP WINDOW', 'ARCHIVE', 'PUBLISH URL'],
              documents.map((doc) => [
                doc.name,
                doc.properties.inputSchema ?? 'CloudEventSchemaV1_0',
                deduplicationWindowText(doc),
                archiveText(doc),
                publishUrlOf(target, refOf(doc.name, options), doc),
              ]),
            ),
      );
    });
}
