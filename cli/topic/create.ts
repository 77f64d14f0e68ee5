/**
 * `gridwire topic create`: a topic made (or its settings changed); with `--namespace`, a
 * namespace topic, the namespace made first if needed. For a topic that exists the body carries
 * over what no flag names, read from its document first (`body.ts`).
 */
import { Command } from 'commander';
import { resolveApiTarget, type TopicRef, topicLabel } from '../admin-api';
import { countOption } from '../options';
import { printAnswer } from '../output';
import { inputSchemaArgument } from '../subscription/body';
import { ensureNamespace, putTopic, readTopic } from './api';
import {
  assignments,
  checkClassicFlags,
  checkNamespaceFlags,
  classicTopicBody,
  namespaceTopicBody,
  type TopicFlags,
  withSettingFlags,
} from './body';
import { formatTopic, refOf, withCommon } from './common';

/** PUTs the topic and prints what was made: "Created" (201) or "Updated", and how to read its keys. */
async function createTopic(name: string, options: TopicFlags): Promise<void> {
  const ref: TopicRef = refOf(name, options);
  const target = await resolveApiTarget(options);
  const notes: string[] = [];
  let body: unknown;
  if (ref.namespace === undefined) {
    checkClassicFlags(options);
    body = classicTopicBody(options, await readTopic(target, ref));
  } else {
    checkNamespaceFlags(options);
    // A namespace made here has no topic yet: nothing to read.
    const madeNamespace = await ensureNamespace(target, ref.namespace);
    if (madeNamespace) notes.push(`Created namespace ${ref.namespace}.`);
    body = namespaceTopicBody(options, madeNamespace ? undefined : await readTopic(target, ref));
  }
  const { created, document } = await putTopic(target, ref, body, 'creating');
  printAnswer(options, document, (doc) =>
    [
      ...notes,
      `${created ? 'Created' : 'Updated'} ${topicLabel(ref)}.`,
      formatTopic(target, ref, doc),
      `Its keys: gridwire topic keys ${name}${ref.namespace === undefined ? '' : ` --namespace ${ref.namespace}`}`,
    ].join('\n'),
  );
}

export function createCommand(): Command {
  const command = withCommon(new Command('create'))
    .description(
      'Create a topic (or change its settings); with --namespace, a namespace topic (the namespace is created if needed).',
    )
    .argument('<name>', 'the topic name')
    .option(
      '--input-schema <schema>',
      'EventGridSchema (default), CloudEventSchemaV1_0 or CustomEventSchema (any case)',
      inputSchemaArgument,
    )
    .option(
      '--input-mapping-fields <field=source...>',
      'custom schema: event fields taken from the input, e.g. eventType=kind subject=path',
      assignments('--input-mapping-fields'),
    )
    .option(
      '--input-mapping-default-values <field=value...>',
      'custom schema: values for fields the input lacks, e.g. dataVersion=1.0',
      assignments('--input-mapping-default-values'),
    )
    .addOption(countOption('--event-retention-in-days <days>', 'namespace topics: how long events are kept'));
  return withSettingFlags(command, 'default off for a new topic, kept for an existing one').action(
    createTopic,
  );
}
