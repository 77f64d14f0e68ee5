/**
 * `gridwire publish`: publishes events to a topic from the command line, in the topic's own input
 * schema (Event Grid, CloudEvents or custom; with `--namespace`, CloudEvents to a namespace
 * topic). One event from `--data`, `--event-type`, `--subject` and `--id`, or those a `--file`
 * holds. The key is read through the management API unless `--key` gives one; that read also
 * tells a topic that does not exist ("no topic named ...") from a wrong key, which the publish
 * route itself answers alike (401), so that names can't be probed.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import {
  type ApiTarget,
  type ApiTargetOptions,
  messageOf,
  namespaceOption,
  resolveApiTarget,
  send,
  type TopicRef,
  topicLabel,
  withApiTargetOptions,
} from './admin-api';
import { CliError } from './errors';
import { type JsonOption, printAnswer } from './output';
import { publishUrlOf, requireTopic, topicKeys } from './topic/command';

export interface PublishFlags {
  data?: string;
  eventType?: string;
  subject?: string;
  id?: string;
  source?: string;
  dataVersion?: string;
  file?: string;
  key?: string;
}

/** How many times a refused publish (429 or 503 with `Retry-After`) is sent again. */
export const PUBLISH_RETRIES = 3;

type Schema = 'EventGridSchema' | 'CloudEventSchemaV1_0' | 'CustomEventSchema';

function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${flag}: not JSON (${(error as Error).message})`);
  }
}

/**
 * The events to send, in the topic's schema: those of the file as they are (an array, or one
 * event), or one made from the flags, `now` its time.
 */
export async function eventsToPublish(schema: Schema, flags: PublishFlags, now: Date): Promise<unknown[]> {
  if (flags.file !== undefined) {
    if (flags.data !== undefined || flags.eventType !== undefined || flags.subject !== undefined) {
      throw new CliError('--file holds whole events; leave out --data, --event-type and --subject');
    }
    let text: string;
    try {
      text = await readFile(flags.file, 'utf8');
    } catch (error) {
      throw new CliError(
        `--file: could not read ${flags.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    const parsed = parseJson(`--file ${flags.file}`, text);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  if (flags.data === undefined && flags.eventType === undefined) {
    throw new CliError('give the event with --event-type (and --subject, --data), or events with --file');
  }
  const data = flags.data === undefined ? undefined : parseJson('--data', flags.data);
  const id = flags.id ?? randomUUID();
  if (schema === 'CustomEventSchema') {
    if (data === undefined)
      throw new CliError('a custom schema topic takes the whole event as --data (JSON)');
    return [data];
  }
  if (flags.eventType === undefined) throw new CliError('--event-type is required with --data');
  if (schema === 'CloudEventSchemaV1_0') {
    return [
      {
        specversion: '1.0',
        id,
        source: flags.source ?? '/gridwire/cli',
        type: flags.eventType,
        ...(flags.subject === undefined ? {} : { subject: flags.subject }),
        time: now.toISOString(),
        ...(data === undefined ? {} : { datacontenttype: 'application/json', data }),
      },
    ];
  }
  if (flags.subject === undefined) throw new CliError('--subject is required for an Event Grid schema topic');
  return [
    {
      id,
      subject: flags.subject,
      eventType: flags.eventType,
      eventTime: now.toISOString(),
      data: data ?? {},
      dataVersion: flags.dataVersion ?? '1.0',
    },
  ];
}

/** The publish request: URL and headers for the topic's kind and schema. */
function requestOf(
  target: ApiTarget,
  ref: TopicRef,
  schema: Schema,
  key: string,
): { url: string; headers: Record<string, string> } {
  if (ref.namespace !== undefined) {
    return {
      url: `${publishUrlOf(target, ref)}?api-version=2024-06-01`,
      headers: {
        authorization: `SharedAccessKey ${key}`,
        'content-type': 'application/cloudevents-batch+json; charset=utf-8',
      },
    };
  }
  return {
    url: `${target.url.replace(/\/+$/, '')}/topics/${encodeURIComponent(ref.topic)}/api/events?api-version=2018-01-01`,
    headers: {
      'aeg-sas-key': key,
      'content-type':
        schema === 'CloudEventSchemaV1_0'
          ? 'application/cloudevents-batch+json; charset=utf-8'
          : 'application/json',
    },
  };
}

export interface PublishIo {
  sleep: (ms: number) => Promise<void>;
  now: () => Date;
}

const realIo: PublishIo = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => new Date(),
};

/** Publishes the events the flags give; resolves with how many were accepted. */
export async function publishEvents(
  target: ApiTarget,
  ref: TopicRef,
  flags: PublishFlags,
  io: PublishIo = realIo,
): Promise<{ published: number; ids: string[] }> {
  const topic = await requireTopic(target, ref);
  const schema = (
    ref.namespace === undefined ? (topic.properties.inputSchema ?? 'EventGridSchema') : 'CloudEventSchemaV1_0'
  ) as Schema;
  const events = await eventsToPublish(schema, flags, io.now());
  const key = flags.key ?? (await topicKeys(target, ref)).key1;
  const { url, headers } = requestOf(target, ref, schema, key);
  for (let attempt = 0; ; attempt += 1) {
    // Sent as it is, not through the target's client: the publish route takes the topic's key,
    // not the admin token or a signature, and a namespace topic's path (`<topic>:publish`) is one
    // segment the client would encode.
    const answer = await send(
      new URL(url),
      { method: 'POST', headers, body: JSON.stringify(events) },
      target.where,
    );
    if (answer.status >= 200 && answer.status <= 299) {
      const ids = events
        .map((event) => (event as { id?: unknown }).id)
        .filter((id): id is string => typeof id === 'string');
      return { published: events.length, ids };
    }
    const retryAfter = Number(answer.headers?.get('retry-after'));
    const refused = answer.status === 429 || answer.status === 503;
    if (refused && Number.isFinite(retryAfter) && retryAfter > 0 && attempt < PUBLISH_RETRIES) {
      await io.sleep(retryAfter * 1000);
      continue;
    }
    const hint = answer.status === 401 && flags.key !== undefined ? ' (is --key a key of this topic?)' : '';
    throw new CliError(
      `publishing to ${topicLabel(ref)} failed: HTTP ${answer.status}: ${messageOf(answer)}${hint}`,
    );
  }
}

export function publishCommand(): Command {
  return withApiTargetOptions(
    new Command('publish')
      .description("Publish events to a topic, in the topic's input schema.")
      .requiredOption('--topic <name>', 'the topic (with --namespace, a topic of that namespace)')
      .addOption(namespaceOption())
      .option('--event-type <type>', 'the event type (CloudEvents: type)')
      .option('--subject <subject>', 'the subject')
      .option('--data <json>', "the event's data, as JSON (custom schema topics: the whole event)")
      .option('--id <id>', 'the event id (default: a new UUID)')
      .option('--source <source>', 'CloudEvents: the source (default /gridwire/cli)')
      .option('--data-version <version>', 'Event Grid schema: dataVersion (default 1.0)')
      .addOption(new Option('--file <path>', 'a JSON file holding an array of whole events (or one)'))
      .option('--key <key>', 'a key of the topic (default: read through the management API)')
      .option('--json', 'print {"published": n, "ids": [...]} instead of text'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  gridwire publish --topic orders --event-type Order.Created --subject shop/orders/1 --data \'{"total":42}\'\n' +
        '  gridwire publish --topic orders --file events.json',
    )
    .action(async (options: PublishFlags & ApiTargetOptions & JsonOption & TopicRef) => {
      const ref: TopicRef = {
        topic: options.topic,
        ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      };
      const result = await publishEvents(await resolveApiTarget(options), ref, options);
      printAnswer(
        options,
        result,
        ({ published, ids }) =>
          `Published ${published} event${published === 1 ? '' : 's'} to ${topicLabel(ref)}${ids.length === 1 ? ` (id ${ids[0]})` : ''}.`,
      );
    });
}
