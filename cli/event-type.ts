/**
 * `gridwire event-type create|list|show|delete`: a topic's event catalog (with `--namespace`, a
 * namespace topic's): each event type's description, the JSON Schema (draft 2020-12) of its
 * events' data and an example, which a topic with `--validate-events` (`gridwire topic update`)
 * checks published events against. A client of the management API's catalog routes, local by
 * default or `--api` (see `admin-api.ts`).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { components } from '../shared/client/api';
import {
  type ApiTargetOptions,
  type JsonBody,
  namespaceOption,
  okData,
  resolveApiTarget,
  type TopicRef,
  type TopicRoute,
  topicLabel,
  topicRoute,
  withApiTargetOptions,
} from './admin-api';
import { CliError } from './errors';
import { type JsonOption, printAnswer, table } from './output';

type Options = ApiTargetOptions & JsonOption & { topic: string; namespace?: string };
type TypeOptions = Options & { name: string };
type CreateOptions = TypeOptions & { schema?: string; example?: string; description?: string };

/** An event type as the API shows it. */
type EventTypeDocument = components['schemas']['EventType'];

const refOf = (options: Options): TopicRef => ({
  topic: options.topic,
  ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
});

/** The route of an event type of `ref`'s catalog, and its path parameters. */
const typeRoute = (ref: TopicRef, name: string) =>
  [topicRoute(ref, '/eventTypes/{eventType}'), { path: { ...ref, eventType: name } }] as const;

/** The options every subcommand has: the topic (and its namespace), the API target, `--json`. */
function withTopic(command: Command, named: boolean): Command {
  withApiTargetOptions(
    command
      .addOption(new Option('--topic <name>', 'the topic whose event catalog it is').makeOptionMandatory())
      .addOption(namespaceOption()),
  ).option('--json', 'print the API’s JSON document instead of text');
  if (named) {
    command.addOption(
      new Option('--name <eventType>', 'the event type, e.g. Order.Created').makeOptionMandatory(),
    );
  }
  return command;
}

/** A JSON file's value, or a refusal naming the flag and the file. */
function jsonFile(flag: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `${flag} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${flag} ${path}: is not valid JSON (${(error as Error).message})`);
  }
}

/** The `PUT` body `create` sends: what its flags give, nothing else (a `PUT` replaces the type whole). */
export function eventTypeBody(options: Pick<CreateOptions, 'schema' | 'example' | 'description'>): unknown {
  return {
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.schema === undefined ? {} : { schema: jsonFile('--schema', options.schema) }),
    ...(options.example === undefined ? {} : { example: jsonFile('--example', options.example) }),
  };
}

/** An event type, a part a line; its schema and example pretty-printed. */
export function formatEventType(document: EventTypeDocument): string {
  const { description, schema, example } = document.properties;
  const indented = (value: unknown) =>
    JSON.stringify(value, null, 2)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n');
  return [
    `name:        ${document.name}`,
    `description: ${description ?? '(none)'}`,
    ...(schema == null ? ['schema:      (none: its events pass unchecked)'] : ['schema:', indented(schema)]),
    ...('example' in document.properties ? ['example:', indented(example)] : ['example:     (none)']),
  ].join('\n');
}

const where = (ref: TopicRef) => `the event catalog of ${topicLabel(ref)}`;

function createCommand(): Command {
  return withTopic(new Command('create'), true)
    .description(
      'Create an event type in a topic’s catalog, or replace it whole: its description, the JSON Schema (draft 2020-12) of its events’ data, an example.',
    )
    .option('--schema <file>', "a JSON file holding the JSON Schema (draft 2020-12) of the events' data")
    .option(
      '--example <file>',
      "a JSON file holding an example of the events' data (checked against the schema)",
    )
    .option('--description <text>', 'what events of this type say')
    .action(async (options: CreateOptions) => {
      const ref = refOf(options);
      const body = eventTypeBody(options);
      const target = await resolveApiTarget(options);
      const [route, params] = typeRoute(ref, options.name);
      const result = await target.client.PUT(route, {
        params,
        // Its schema and example are the files' JSON as written; the API checks them.
        body: body as JsonBody<TopicRoute<'/eventTypes/{eventType}'>, 'put'>,
      });
      const document = okData(result, `putting event type ${options.name} in ${where(ref)}`);
      printAnswer(options, document, (doc) =>
        [
          `${result.response.status === 201 ? 'Created' : 'Replaced'} event type ${doc.name} in ${where(ref)}.`,
          formatEventType(doc),
        ].join('\n'),
      );
    });
}

function listCommand(): Command {
  return withTopic(new Command('list'), false)
    .description('List the event types of a topic’s catalog.')
    .action(async (options: Options) => {
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const { value } = okData(
        await target.client.GET(topicRoute(ref, '/eventTypes'), { params: { path: ref } }),
        `listing ${where(ref)}`,
      );
      printAnswer(options, value, (documents) =>
        documents.length === 0
          ? `No event types in ${where(ref)}.`
          : table(
              ['NAME', 'SCHEMA', 'EXAMPLE', 'DESCRIPTION'],
              documents.map((doc) => [
                doc.name,
                doc.properties.hasSchema === true ? 'yes' : 'no',
                doc.properties.hasExample === true ? 'yes' : 'no',
                doc.properties.description ?? '',
              ]),
            ),
      );
    });
}

function showCommand(): Command {
  return withTopic(new Command('show'), true)
    .description('Show an event type: its description, schema and example.')
    .action(async (options: TypeOptions) => {
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const [route, params] = typeRoute(ref, options.name);
      const result = await target.client.GET(route, { params });
      if (result.response.status === 404) {
        throw new CliError(
          `no event type ${options.name} in ${where(ref)} (gridwire event-type list --topic ${ref.topic}${ref.namespace === undefined ? '' : ` --namespace ${ref.namespace}`} shows them)`,
        );
      }
      printAnswer(options, okData(result, `reading event type ${options.name}`), formatEventType);
    });
}

function deleteCommand(): Command {
  return withTopic(new Command('delete'), true)
    .description('Delete an event type from a topic’s catalog.')
    .action(async (options: TypeOptions) => {
      const ref = refOf(options);
      const target = await resolveApiTarget(options);
      const [route, params] = typeRoute(ref, options.name);
      const result = await target.client.DELETE(route, { params });
      okData(result, `deleting event type ${options.name} from ${where(ref)}`);
      const deleted = result.response.status !== 204;
      printAnswer(options, { deleted }, () =>
        deleted
          ? `Deleted event type ${options.name} from ${where(ref)}.`
          : `There was no event type ${options.name} in ${where(ref)}.`,
      );
    });
}

export function eventTypeCommand(): Command {
  return new Command('event-type')
    .description(
      "A topic's event catalog: create, list, show, delete event types (a topic with --validate-events checks events against their schemas).",
    )
    .addCommand(createCommand())
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(deleteCommand());
}
