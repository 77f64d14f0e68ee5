/**
 * `gridwire topic create`: a topic made (or its settings changed); with `--namespace`, a
 * namespace topic, the namespace made first if needed. A `PUT` replaces the whole definition, so
 * for a topic that exists the body carries over what no flag names (its schema and mapping, tags,
 * retention, de-duplication window), read from its document first.
 */
import { Command, InvalidArgumentError } from 'commander';
import { DEDUPLICATION_WINDOW_IN_MINUTES } from '../../shared/domain/model';
import {
  type ApiTarget,
  okText,
  resolveApiTarget,
  type TopicRef,
  topicAdminPath,
  topicLabel,
} from '../admin-api';
import { CliError } from '../errors';
import { countOption, integer } from '../options';
import { printAnswer } from '../output';
import { inputSchemaArgument } from '../subscription/body';
import { ensureNamespace, readTopic, type TopicDocument } from './api';
import { formatTopic, type Options, refOf, withCommon } from './common';

type CreateOptions = Options & {
  inputSchema?: string;
  inputMappingFields?: Record<string, string>;
  inputMappingDefaultValues?: Record<string, string>;
  eventRetentionInDays?: number;
  deduplicationWindow?: number;
};

/** `FIELD=VALUE` words (`--input-mapping-fields eventType=kind subject=path`) as a record. */
const assignments =
  (flag: string) =>
  (value: string, previous: Record<string, string> = {}) => {
    const at = value.indexOf('=');
    if (at <= 0) throw new InvalidArgumentError(`${flag} takes FIELD=VALUE words, e.g. eventType=kind.`);
    return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
  };

/** `--deduplication-window`: whole minutes within the limits; an empty word is not 0. */
const deduplicationWindowArgument = (value: string): number => {
  const { min, max } = DEDUPLICATION_WINDOW_IN_MINUTES;
  if (value.trim() === '') {
    throw new InvalidArgumentError(`--deduplication-window must be an integer from ${min} to ${max}.`);
  }
  return integer('--deduplication-window', min, max)(value);
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

/** The de-duplication window the body sets: the flag's, else the one the topic has (none for a new topic). */
function deduplicationOf(options: CreateOptions, existing: TopicDocument | undefined) {
  const minutes = options.deduplicationWindow ?? existing?.properties.deduplicationWindowInMinutes;
  return minutes === undefined ? {} : { deduplicationWindowInMinutes: minutes };
}

/**
 * A classic topic's body: its input schema and mapping (it keeps no events), and its window. An
 * existing topic keeps its schema and mapping unless a flag names them, and its tags.
 */
async function classicTopicBody(target: ApiTarget, ref: TopicRef, options: CreateOptions): Promise<unknown> {
  if (options.eventRetentionInDays !== undefined) {
    throw new CliError('--event-retention-in-days goes with --namespace (classic topics keep no events)');
  }
  const existing = await readTopic(target, ref);
  const given = inputMappingOf(options.inputMappingFields, options.inputMappingDefaultValues);
  const inputSchema =
    options.inputSchema ??
    (given === undefined ? (existing?.properties.inputSchema ?? 'EventGridSchema') : 'CustomEventSchema');
  const mapping =
    given ?? (inputSchema === 'CustomEventSchema' ? existing?.properties.inputSchemaMapping : undefined);
  const tags = existing?.tags ?? {};
  return {
    ...(Object.keys(tags).length === 0 ? {} : { tags }),
    properties: {
      inputSchema,
      ...(mapping === undefined ? {} : { inputSchemaMapping: mapping }),
      ...deduplicationOf(options, existing),
    },
  };
}

/**
 * A namespace topic's body (CloudEvents only), its namespace made first if needed (noted in
 * `notes`); an existing topic keeps its retention and window unless a flag names them.
 */
async function namespaceTopicBody(
  target: ApiTarget,
  ref: TopicRef & { namespace: string },
  options: CreateOptions,
  notes: string[],
): Promise<unknown> {
  if (options.inputSchema !== undefined && options.inputSchema !== 'CloudEventSchemaV1_0') {
    throw new CliError('namespace topics take CloudEvents only (--input-schema CloudEventSchemaV1_0)');
  }
  const madeNamespace = await ensureNamespace(target, ref.namespace);
  if (madeNamespace) notes.push(`Created namespace ${ref.namespace}.`);
  const existing = madeNamespace ? undefined : await readTopic(target, ref);
  const retention = options.eventRetentionInDays ?? existing?.properties.eventRetentionInDays;
  return {
    properties: {
      ...(retention === undefined ? {} : { eventRetentionInDays: retention }),
      ...deduplicationOf(options, existing),
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
      ? await classicTopicBody(target, ref, options)
      : await namespaceTopicBody(target, { ...ref, namespace: ref.namespace }, options, notes);
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
    .option(
      '--deduplication-window <minutes>',
      `minutes a repeated event id is answered but not delivered again, ${DEDUPLICATION_WINDOW_IN_MINUTES.min} (off) to ${DEDUPLICATION_WINDOW_IN_MINUTES.max}; default off for a new topic, kept for an existing one`,
      deduplicationWindowArgument,
    )
    .action(createTopic);
}
