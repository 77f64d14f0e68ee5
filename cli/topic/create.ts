/**
 * `gridwire topic create`: a topic made (or its settings changed); with `--namespace`, a
 * namespace topic, the namespace made first if needed.
 */
import { Command, InvalidArgumentError } from 'commander';
import {
  type ApiTarget,
  okText,
  resolveApiTarget,
  type TopicRef,
  topicAdminPath,
  topicLabel,
} from '../admin-api';
import { CliError } from '../errors';
import { countOption } from '../options';
import { printAnswer } from '../output';
import { inputSchemaArgument } from '../subscription/body';
import { ensureNamespace, type TopicDocument } from './api';
import { formatTopic, type Options, refOf, withCommon } from './common';

type CreateOptions = Options & {
  inputSchema?: string;
  inputMappingFields?: Record<string, string>;
  inputMappingDefaultValues?: Record<string, string>;
  eventRetentionInDays?: number;
};

/** `FIELD=VALUE` words (`--input-mapping-fields eventType=kind subject=path`) as a record. */
const assignments =
  (flag: string) =>
  (value: string, previous: Record<string, string> = {}) => {
    const at = value.indexOf('=');
    if (at <= 0) throw new InvalidArgumentError(`${flag} takes FIELD=VALUE words, e.g. eventType=kind.`);
    return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
  };

/** The custom schema's mapping from `--input-mapping-fields` and `--input-mapping-default-values`. */
function inputMappingOf(fields: Record<string, string> = {}, defaults: Record<string, string> = {}) {
  const names = [...new Set([...Object.keys(fields), ...Object.keys(defaults)])];
  if (names.length === 0) return undefined;
  return {
    inputSchemaMappingType: 'Json',
    properties: Object.fromEntries(
      names.map((name) => [
        name,
        {
          ...(fields[name] === undefined ? {} : { sourceField: fields[name] }),
          ...(defaults[name] === undefined ? {} : { defaultValue: defaults[name] }),
        },
      ]),
    ),
  };
}

/** A classic topic's body: its input schema and mapping (it keeps no events). */
function classicTopicBody(options: CreateOptions): unknown {
  if (options.eventRetentionInDays !== undefined) {
    throw new CliError('--event-retention-in-days goes with --namespace (classic topics keep no events)');
  }
  const mapping = inputMappingOf(options.inputMappingFields, options.inputMappingDefaultValues);
  return {
    properties: {
      inputSchema: options.inputSchema ?? (mapping === undefined ? 'EventGridSchema' : 'CustomEventSchema'),
      ...(mapping === undefined ? {} : { inputSchemaMapping: mapping }),
    },
  };
}

/** A namespace topic's body (CloudEvents only), its namespace made first if needed (noted in `notes`). */
async function namespaceTopicBody(
  target: ApiTarget,
  namespace: string,
  options: CreateOptions,
  notes: string[],
): Promise<unknown> {
  if (options.inputSchema !== undefined && options.inputSchema !== 'CloudEventSchemaV1_0') {
    throw new CliError('namespace topics take CloudEvents only (--input-schema CloudEventSchemaV1_0)');
  }
  if (await ensureNamespace(target, namespace)) notes.push(`Created namespace ${namespace}.`);
  return {
    properties: {
      ...(options.eventRetentionInDays === undefined
        ? {}
        : { eventRetentionInDays: options.eventRetentionInDays }),
    },
  };
}

/** PUTs the topic and prints what was made: "Created" (201) or "Updated", and how to read its keys. */
async function createTopic(name: string, options: CreateOptions): Promise<void> {
  const ref: TopicRef = refOf(name, options);
  const target = await resolveApiTarget(options);
  const notes: string[] = [];
  const body =
    ref.namespace === undefined
      ? classicTopicBody(options)
      : await namespaceTopicBody(target, ref.namespace, options, notes);
  const answer = await target.call('PUT', topicAdminPath(ref), JSON.stringify(body));
  const document = JSON.parse(okText(answer, `creating ${topicLabel(ref)}`)) as TopicDocument;
  printAnswer(options, document, (doc) =>
    [
      ...notes,
      `${answer.status === 201 ? 'Created' : 'Updated'} ${topicLabel(ref)}.`,
      formatTopic(target, ref, doc),
      `Its keys: gridwire topic keys ${name}${ref.namespace === undefined ? '' : ` --namespace ${ref.namespace}`}`,
    ].join('\n'),
  );
}

export function createCommand(): Command {
  return withCommon(new Command('create'))
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
    .addOption(countOption('--event-retention-in-days <days>', 'namespace topics: how long events are kept'))
    .action(createTopic);
}
