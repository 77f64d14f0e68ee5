/**
 * What the `gridwire topic` subcommands share: their options (`--namespace`, the API target,
 * `--json`), the topic they name, and a topic as printed.
 */
import type { Command } from 'commander';
import {
  type ApiTarget,
  type ApiTargetOptions,
  namespaceOption,
  type TopicRef,
  withApiTargetOptions,
} from '../admin-api';
import type { JsonOption } from '../output';
import { publishUrlOf, type TopicDocument } from './api';

export type Options = ApiTargetOptions & JsonOption & { namespace?: string };

export const refOf = (name: string, options: Options): TopicRef => ({
  topic: name,
  ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
});

export function withCommon(command: Command): Command {
  return withApiTargetOptions(command.addOption(namespaceOption())).option(
    '--json',
    'print the API’s JSON document instead of text',
  );
}

/** A topic's de-duplication window in a few words: `off`, or `60 min`. */
export const deduplicationWindowText = (document: TopicDocument): string => {
  const minutes = document.properties.deduplicationWindowInMinutes ?? 0;
  return minutes === 0 ? 'off' : `${minutes} min`;
};

/** A topic's archive in a few words: `off`, or how long it keeps events (`7 days`). */
export const archiveText = (document: TopicDocument): string => {
  const days = document.properties.archive?.retentionInDays;
  if (days === undefined) return 'off';
  return days === 1 ? '1 day' : `${days} days`;
};

/** A topic's event validation in a few words: `off`, `on`, or `on, unknown types rejected`. */
export const validationText = (document: TopicDocument): string => {
  if (document.properties.validateEvents !== true) return 'off';
  return document.properties.unknownEventTypes === 'reject' ? 'on, unknown types rejected' : 'on';
};

/** A topic, a setting a line. */
export function formatTopic(target: ApiTarget, ref: TopicRef, document: TopicDocument): string {
  const p = document.properties;
  const mapping = p.inputSchemaMapping?.properties;
  return [
    `name:          ${document.name}${ref.namespace === undefined ? '' : ` (namespace ${ref.namespace})`}`,
    `input schema:  ${p.inputSchema ?? 'CloudEventSchemaV1_0'}`,
    ...(mapping === undefined ? [] : [`input mapping: ${JSON.stringify(mapping)}`]),
    ...(p.eventRetentionInDays === undefined ? [] : [`retention:     ${p.eventRetentionInDays} days`]),
    `dedup window:  ${deduplicationWindowText(document)}`,
    `archive:       ${archiveText(document)}`,
    `validation:    ${validationText(document)}`,
    `publish URL:   ${publishUrlOf(target, ref, document)}`,
    ...(p.sources ?? []).map(
      (source, index) => `${index === 0 ? 'sources:      ' : '              '} ${sourceText(source)}`,
    ),
  ].join('\n');
}

/** A topic's source in one line: a queue (and what its messages hold), or a bus and its pattern. */
export function sourceText(source: NonNullable<TopicDocument['properties']['sources']>[number]): string {
  if (source.kind === 'eventBridge') {
    return `EventBridge bus ${source.bus ?? '?'} (${source.name}), pattern ${JSON.stringify(source.eventPattern ?? {})}, via ${source.queueArn}`;
  }
  return `SQS queue ${source.queueArn}${source.format === 'eventBridge' ? ' (EventBridge events)' : ''}`;
}
