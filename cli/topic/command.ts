/**
 * `gridwire topic create|show|list|delete|keys|regenerate-key`: topics (with `--namespace`, the
 * topics of a namespace, whose keys are the namespace's), with the Azure CLI's flag names
 * (`az eventgrid topic ...`). A client of the management API's topic routes, local by default or
 * `--api` (see `admin-api.ts`).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  type ApiTarget,
  type ApiTargetOptions,
  callOk,
  namespaceOption,
  okText,
  resolveApiTarget,
  type TopicRef,
  topicAdminPath,
  topicLabel,
  withApiTargetOptions,
} from '../admin-api';
import { CliError } from '../errors';
import { countOption } from '../options';
import { type JsonOption, printAnswer, table } from '../output';
import { inputSchemaArgument } from '../subscription/body';

type Options = ApiTargetOptions & JsonOption & { namespace?: string };

/** A topic document as the API shows it, classic or namespace (the parts printed here). */
export interface TopicDocument {
  name: string;
  properties: {
    endpoint?: string;
    inputSchema?: string;
    eventRetentionInDays?: number;
    inputSchemaMapping?: { properties?: Record<string, unknown> };
  };
}

/** Where the topic's keys are: the topic's own, or its namespace's. */
const keysOwnerPath = (ref: TopicRef): string =>
  ref.namespace === undefined
    ? topicAdminPath(ref)
    : `/admin/namespaces/${encodeURIComponent(ref.namespace)}`;

/** The URL publishers post the topic's events to. */
export function publishUrlOf(target: ApiTarget, ref: TopicRef, document?: TopicDocument): string {
  if (ref.namespace === undefined) {
    return (
      document?.properties.endpoint ??
      `${target.url.replace(/\/+$/, '')}/topics/${encodeURIComponent(ref.topic)}/api/events`
    );
  }
  return `${target.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ref.namespace)}/topics/${encodeURIComponent(ref.topic)}:publish`;
}

/** The topic's document, or `undefined` when there is none. */
export async function readTopic(target: ApiTarget, ref: TopicRef): Promise<TopicDocument | undefined> {
  const answer = await target.call('GET', topicAdminPath(ref));
  if (answer.status === 404) return undefined;
  return JSON.parse(okText(answer, `reading ${topicLabel(ref)}`)) as TopicDocument;
}

/** The topic's document; "no topic named ..." when there is none. */
export async function requireTopic(target: ApiTarget, ref: TopicRef): Promise<TopicDocument> {
  const document = await readTopic(target, ref);
  if (document !== undefined) return document;
  const where = ref.namespace === undefined ? '' : ` in namespace '${ref.namespace}'`;
  throw new CliError(`no topic named '${ref.topic}'${where} (gridwire topic list shows them)`);
}

/** The topic's two keys (a namespace topic's are its namespace's). */
export async function topicKeys(target: ApiTarget, ref: TopicRef): Promise<{ key1: string; key2: string }> {
  const text = await callOk(
    target,
    'POST',
    `${keysOwnerPath(ref)}/listKeys`,
    undefined,
    `reading the keys of ${topicLabel(ref)}`,
  );
  return JSON.parse(text) as { key1: string; key2: string };
}

const refOf = (name: string, options: Options): TopicRef => ({
  topic: name,
  ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
});

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

/** A topic, a setting a line. */
function formatTopic(target: ApiTarget, ref: TopicRef, document: TopicDocument): string {
  const p = document.properties;
  const mapping = p.inputSchemaMapping?.properties;
  return [
    `name:          ${document.name}${ref.namespace === undefined ? '' : ` (namespace ${ref.namespace})`}`,
    `input schema:  ${p.inputSchema ?? 'CloudEventSchemaV1_0'}`,
    ...(mapping === undefined ? [] : [`input mapping: ${JSON.stringify(mapping)}`]),
    ...(p.eventRetentionInDays === undefined ? [] : [`retention:     ${p.eventRetentionInDays} days`]),
    `publish URL:   ${publishUrlOf(target, ref, document)}`,
  ].join('\n');
}

/** Creates the namespace when it does not exist yet (a namespace topic needs one). */
async function ensureNamespace(target: ApiTarget, namespace: string): Promise<boolean> {
  const path = `/admin/namespaces/${encodeURIComponent(namespace)}`;
  const found = await target.call('GET', path);
  if (found.status !== 404) {
    okText(found, `reading namespace ${namespace}`);
    return false;
  }
  await callOk(target, 'PUT', path, { properties: {} }, `creating namespace ${namespace}`);
  return true;
}

function withCommon(command: Command): Command {
  return withApiTargetOptions(command.addOption(namespaceOption())).option(
    '--json',
    'print the API’s JSON document instead of text',
  );
}

export function topicCommand(): Command {
  const topic = new Command('topic').description(
    'Topics: create, show, list, delete, keys, regenerate-key (az eventgrid topic).',
  );

  topic.addCommand(
    withCommon(new Command('create'))
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
      .addOption(
        countOption('--event-retention-in-days <days>', 'namespace topics: how long events are kept'),
      )
      .action(
        async (
          name: string,
          options: Options & {
            inputSchema?: string;
            inputMappingFields?: Record<string, string>;
            inputMappingDefaultValues?: Record<string, string>;
            eventRetentionInDays?: number;
          },
        ) => {
          const ref = refOf(name, options);
          const target = await resolveApiTarget(options);
          let body: unknown;
          const notes: string[] = [];
          if (ref.namespace === undefined) {
            if (options.eventRetentionInDays !== undefined) {
              throw new CliError(
                '--event-retention-in-days goes with --namespace (classic topics keep no events)',
              );
            }
            const mapping = inputMappingOf(options.inputMappingFields, options.inputMappingDefaultValues);
            body = {
              properties: {
                inputSchema:
                  options.inputSchema ?? (mapping === undefined ? 'EventGridSchema' : 'CustomEventSchema'),
                ...(mapping === undefined ? {} : { inputSchemaMapping: mapping }),
              },
            };
          } else {
            if (options.inputSchema !== undefined && options.inputSchema !== 'CloudEventSchemaV1_0') {
              throw new CliError(
                'namespace topics take CloudEvents only (--input-schema CloudEventSchemaV1_0)',
              );
            }
            if (await ensureNamespace(target, ref.namespace))
              notes.push(`Created namespace ${ref.namespace}.`);
            body = {
              properties: {
                ...(options.eventRetentionInDays === undefined
                  ? {}
                  : { eventRetentionInDays: options.eventRetentionInDays }),
              },
            };
          }
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
        },
      ),
  );

  topic.addCommand(
    withCommon(new Command('show'))
      .description('Show a topic and the URL its events are published to.')
      .argument('<name>', 'the topic name')
      .action(async (name: string, options: Options) => {
        const ref = refOf(name, options);
        const target = await resolveApiTarget(options);
        const document = await requireTopic(target, ref);
        printAnswer(options, document, (doc) => formatTopic(target, ref, doc));
      }),
  );

  topic.addCommand(
    withCommon(new Command('list'))
      .description('List the topics (with --namespace, the topics of that namespace).')
      .action(async (options: Options) => {
        const target = await resolveApiTarget(options);
        const path =
          options.namespace === undefined
            ? '/admin/topics'
            : `/admin/namespaces/${encodeURIComponent(options.namespace)}/topics`;
        const { value } = JSON.parse(await callOk(target, 'GET', path, undefined, 'listing the topics')) as {
          value: TopicDocument[];
        };
        printAnswer(options, value, (documents) =>
          documents.length === 0
            ? 'No topics.'
            : table(
                ['NAME', 'INPUT SCHEMA', 'PUBLISH URL'],
                documents.map((doc) => [
                  doc.name,
                  doc.properties.inputSchema ?? 'CloudEventSchemaV1_0',
                  publishUrlOf(target, refOf(doc.name, options), doc),
                ]),
              ),
        );
      }),
  );

  topic.addCommand(
    withCommon(new Command('delete'))
      .description('Delete a topic and its event subscriptions.')
      .argument('<name>', 'the topic name')
      .action(async (name: string, options: Options) => {
        const ref = refOf(name, options);
        const target = await resolveApiTarget(options);
        const answer = await target.call('DELETE', topicAdminPath(ref));
        okText(answer, `deleting ${topicLabel(ref)}`);
        const deleted = answer.status !== 204;
        printAnswer(options, { deleted }, () =>
          deleted ? `Deleted ${topicLabel(ref)}.` : `There was no ${topicLabel(ref)}.`,
        );
      }),
  );

  topic.addCommand(
    withCommon(new Command('keys'))
      .description("Print the topic's two access keys (a namespace topic's are its namespace's).")
      .argument('<name>', 'the topic name')
      .action(async (name: string, options: Options) => {
        const ref = refOf(name, options);
        const target = await resolveApiTarget(options);
        await requireTopic(target, ref);
        const keys = await topicKeys(target, ref);
        printAnswer(options, keys, ({ key1, key2 }) => `key1: ${key1}\nkey2: ${key2}`);
      }),
  );

  topic.addCommand(
    withCommon(new Command('regenerate-key'))
      .description('Replace one access key; the other keeps working meanwhile.')
      .argument('<name>', 'the topic name')
      .addOption(
        new Option('--key-name <key>', 'the key to replace').choices(['key1', 'key2']).makeOptionMandatory(),
      )
      .action(async (name: string, options: Options & { keyName: 'key1' | 'key2' }) => {
        const ref = refOf(name, options);
        const target = await resolveApiTarget(options);
        await requireTopic(target, ref);
        const text = await callOk(
          target,
          'POST',
          `${keysOwnerPath(ref)}/regenerateKey`,
          { keyName: options.keyName },
          `regenerating ${options.keyName} of ${topicLabel(ref)}`,
        );
        const keys = JSON.parse(text) as { key1: string; key2: string };
        printAnswer(options, keys, ({ key1, key2 }) => `key1: ${key1}\nkey2: ${key2}`);
      }),
  );

  return topic;
}
