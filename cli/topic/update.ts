/**
 * `gridwire topic update`: some settings of an existing topic changed (its de-duplication window,
 * its archive, its event validation), everything else kept as its document shows it: the body is built as `create`
 * builds it for an existing topic (`body.ts`).
 */
import { Command } from 'commander';
import { resolveApiTarget, topicLabel } from '../admin-api';
import { CliError } from '../errors';
import { printAnswer } from '../output';
import { putTopic, requireTopic } from './api';
import {
  classicTopicBody,
  namesASetting,
  namespaceTopicBody,
  type TopicFlags,
  withSettingFlags,
} from './body';
import { formatTopic, refOf, withCommon } from './common';

async function updateTopic(name: string, options: TopicFlags): Promise<void> {
  if (!namesASetting(options)) {
    throw new CliError(
      'topic update changes what its flags name: give --archive-retention, --no-archive, --deduplication-window, --validate-events, --no-validate-events or --unknown-event-types',
    );
  }
  const ref = refOf(name, options);
  const target = await resolveApiTarget(options);
  const existing = await requireTopic(target, ref);
  const body =
    ref.namespace === undefined ? classicTopicBody(options, existing) : namespaceTopicBody(options, existing);
  const { document } = await putTopic(target, ref, body, 'updating');
  printAnswer(options, document, (doc) =>
    [`Updated ${topicLabel(ref)}.`, formatTopic(target, ref, doc)].join('\n'),
  );
}

export function updateCommand(): Command {
  return withSettingFlags(
    withCommon(new Command('update'))
      .description('Change some settings of an existing topic; the others stay as they are.')
      .argument('<name>', 'the topic name'),
    'kept when not given',
  ).action(updateTopic);
}
