/**
 * A topic's `PUT` body as `gridwire topic create` and `update` build it. A `PUT` replaces the
 * whole definition, so for a topic that exists the body carries over what no flag names (its
 * schema and mapping, tags, retention, de-duplication window and archive), from its document.
 * Also the flags of the settings both commands change: the de-duplication window, the archive and
 * event validation against the topic's event catalog.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ARCHIVE_RETENTION_IN_DAYS, DEDUPLICATION_WINDOW_IN_MINUTES } from '../../shared/domain/model';
import { CliError } from '../errors';
import { integer } from '../options';
import type { TopicDocument } from './api';
import type { Options } from './common';

/** The settings `update` changes: the de-duplication window, the archive and event validation. */
export type SettingFlags = {
  deduplicationWindow?: number;
  archiveRetention?: number;
  /** `false` with `--no-archive` (commander's default for a negated flag alone is `true`). */
  archive?: boolean;
  /** `--validate-events` (true) or `--no-validate-events` (false); absent: kept. */
  validateEvents?: boolean;
  /** `--unknown-event-types allow|reject`; absent: kept. */
  unknownEventTypes?: 'allow' | 'reject';
};

/** What `create` takes besides: the input schema and mapping, a namespace topic's retention. */
export type TopicFlags = Options &
  SettingFlags & {
    inputSchema?: string;
    inputMappingFields?: Record<string, string>;
    inputMappingDefaultValues?: Record<string, string>;
    eventRetentionInDays?: number;
  };

/** `FIELD=VALUE` words (`--input-mapping-fields eventType=kind subject=path`) as a record. */
export const assignments =
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

/** `--archive-retention`: whole days within the limits (an empty word is 0, out of them). */
const archiveRetentionArgument = integer(
  '--archive-retention',
  ARCHIVE_RETENTION_IN_DAYS.min,
  ARCHIVE_RETENTION_IN_DAYS.max,
);

/** `--unknown-event-types`: allow or reject (any case). */
const unknownEventTypesArgument = (value: string): 'allow' | 'reject' => {
  const word = value.trim().toLowerCase();
  if (word !== 'allow' && word !== 'reject') {
    throw new InvalidArgumentError('--unknown-event-types must be allow or reject.');
  }
  return word;
};

/**
 * Adds `--deduplication-window`, `--archive-retention`, `--no-archive`, `--validate-events`,
 * `--no-validate-events` and `--unknown-event-types`; `kept` says what happens to a setting no
 * flag names.
 */
export function withSettingFlags(command: Command, kept: string): Command {
  const { min, max } = ARCHIVE_RETENTION_IN_DAYS;
  return command
    .option(
      '--deduplication-window <minutes>',
      `minutes a repeated event id is answered but not delivered again, ${DEDUPLICATION_WINDOW_IN_MINUTES.min} (off) to ${DEDUPLICATION_WINDOW_IN_MINUTES.max}; ${kept}`,
      deduplicationWindowArgument,
    )
    .option(
      '--archive-retention <days>',
      `keep every event the topic accepts in its archive this many days, ${min} to ${max}; ${kept}`,
      archiveRetentionArgument,
    )
    .addOption(
      new Option('--no-archive', 'keep no archive (turns off the archive of an existing topic)').conflicts(
        'archiveRetention',
      ),
    )
    .addOption(
      new Option(
        '--validate-events',
        `check each published event's data against its type's schema in the topic's event catalog (gridwire event-type); ${kept}`,
      ),
    )
    .addOption(new Option('--no-validate-events', "don't check events against the event catalog"))
    .addOption(
      new Option(
        '--unknown-event-types <allow|reject>',
        `with --validate-events, what an event of a type the catalog does not list gets: allow (default) or reject; ${kept}`,
      ).argParser(unknownEventTypesArgument),
    );
}

/** Whether a flag of `withSettingFlags` was given. */
export const namesASetting = (flags: SettingFlags): boolean =>
  flags.deduplicationWindow !== undefined ||
  flags.archiveRetention !== undefined ||
  flags.archive === false ||
  flags.validateEvents !== undefined ||
  flags.unknownEventTypes !== undefined;

/**
 * The event validation settings the body sets: each flag's, else what the topic has (neither for a
 * new topic). A `PUT` without them turns validation off.
 */
function validationOf(flags: SettingFlags, existing: TopicDocument | undefined) {
  const validate = flags.validateEvents ?? existing?.properties.validateEvents;
  const unknown = flags.unknownEventTypes ?? existing?.properties.unknownEventTypes;
  return {
    ...(validate === undefined ? {} : { validateEvents: validate }),
    ...(unknown === undefined ? {} : { unknownEventTypes: unknown }),
  };
}

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
function deduplicationOf(flags: SettingFlags, existing: TopicDocument | undefined) {
  const minutes = flags.deduplicationWindow ?? existing?.properties.deduplicationWindowInMinutes;
  return minutes === undefined ? {} : { deduplicationWindowInMinutes: minutes };
}

/**
 * The archive the body sets: none with `--no-archive`, else the flag's retention, else the one
 * the topic has (none for a new topic). A `PUT` without it turns the archive off.
 */
function archiveOf(flags: SettingFlags, existing: TopicDocument | undefined) {
  if (flags.archive === false) return { archive: null };
  const days = flags.archiveRetention ?? existing?.properties.archive?.retentionInDays;
  return days === undefined ? {} : { archive: { retentionInDays: days } };
}

/** Throws when a flag is a namespace topic's only (classic topics keep no events). */
export function checkClassicFlags(flags: TopicFlags): void {
  if (flags.eventRetentionInDays !== undefined) {
    throw new CliError('--event-retention-in-days goes with --namespace (classic topics keep no events)');
  }
}

/**
 * A classic topic's body: its input schema and mapping (it keeps no events), its window, its
 * archive and event validation. An existing topic keeps its schema and mapping unless a flag names
 * them, and its tags.
 */
export function classicTopicBody(flags: TopicFlags, existing: TopicDocument | undefined): unknown {
  checkClassicFlags(flags);
  const given = inputMappingOf(flags.inputMappingFields, flags.inputMappingDefaultValues);
  const inputSchema =
    flags.inputSchema ??
    (given === undefined ? (existing?.properties.inputSchema ?? 'EventGridSchema') : 'CustomEventSchema');
  const mapping =
    given ?? (inputSchema === 'CustomEventSchema' ? existing?.properties.inputSchemaMapping : undefined);
  const tags = existing?.tags ?? {};
  return {
    ...(Object.keys(tags).length === 0 ? {} : { tags }),
    properties: {
      inputSchema,
      ...(mapping === undefined ? {} : { inputSchemaMapping: mapping }),
      ...deduplicationOf(flags, existing),
      ...archiveOf(flags, existing),
      ...validationOf(flags, existing),
    },
  };
}

/** Throws when the input schema is not the one a namespace topic takes: CloudEvents only. */
export function checkNamespaceFlags(flags: TopicFlags): void {
  if (flags.inputSchema !== undefined && flags.inputSchema !== 'CloudEventSchemaV1_0') {
    throw new CliError('namespace topics take CloudEvents only (--input-schema CloudEventSchemaV1_0)');
  }
}

/**
 * A namespace topic's body (CloudEvents only); an existing topic keeps its retention, window,
 * archive and event validation unless a flag names them.
 */
export function namespaceTopicBody(flags: TopicFlags, existing: TopicDocument | undefined): unknown {
  checkNamespaceFlags(flags);
  const retention = flags.eventRetentionInDays ?? existing?.properties.eventRetentionInDays;
  return {
    properties: {
      ...(retention === undefined ? {} : { eventRetentionInDays: retention }),
      ...deduplicationOf(flags, existing),
      ...archiveOf(flags, existing),
      ...validationOf(flags, existing),
    },
  };
}
