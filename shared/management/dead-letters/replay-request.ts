/**
 * The replay request (`POST .../deadLetters/replay`) and the time window of a listing, parsed
 * from what the caller sent: 400 naming the field for anything else.
 */
import { type ZodError, z } from 'zod';
import { DEAD_LETTER_REASONS, type DeadLetterReason } from '../../domain/model';
import { type ApiError, badRequest } from '../../http/errors';
import { firstIssue } from '../../platform/zod-issues';

/** Explicit keys one replay call may name. */
export const MAX_REPLAY_KEYS = 100;

/** Written-at window of a selection, epoch ms: `since` inclusive, `until` exclusive. */
export interface TimeWindow {
  since?: number;
  until?: number;
}

export interface ReplayRequest {
  window: TimeWindow;
  /** Exactly these blobs (instead of a window). */
  keys?: string[];
  /** Only records dead-lettered for one of these reasons (default: all). */
  reasons?: DeadLetterReason[];
  /** Count only: read and select, queue nothing, mark nothing. */
  dryRun: boolean;
  /** Replay blobs already replayed too. */
  force: boolean;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The 400 for a refused replay request or window: `<field>: <what is wrong>.` */
function refusal(error: ZodError, field?: string): ApiError {
  const first = firstIssue(error, { indexes: 'bracketed' });
  const path = [field, first?.path].filter((part) => part !== undefined && part !== '').join('.');
  const message = first?.message ?? 'invalid';
  return badRequest(path === '' ? `${message}.` : `${path}: ${message}.`);
}

/** Parses `input`, or throws the 400 naming the field of its first issue. */
function parseOrRefuse<S extends z.ZodType>(schema: S, input: unknown, field?: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw refusal(parsed.error, field);
  return parsed.data;
}

const timeMessage = (issue: { input?: unknown }) =>
  `must be an ISO 8601 time such as 2026-11-22T10:00:00Z or a date such as 2026-11-22 (got ${JSON.stringify(issue.input)})`;

/**
 * An ISO 8601 time (`2026-11-22T10:00:00Z`, an offset instead of `Z`, or a date meaning its start
 * in UTC) as epoch ms; absent, null or empty gives `undefined`.
 */
const timeSchema = z.preprocess(
  (value) => (value === null || value === '' ? undefined : value),
  z
    .string({ error: timeMessage })
    .refine((text) => ISO_8601.test(text) && !Number.isNaN(Date.parse(text)), {
      error: timeMessage,
      abort: true,
    })
    .transform((text) => Date.parse(text))
    .optional(),
);

/** `since` and `until` as parsed: epoch ms or absent. */
interface Bounds {
  since?: number | undefined;
  until?: number | undefined;
}

const windowOf = ({ since, until }: Bounds): TimeWindow => ({
  ...(since === undefined ? {} : { since }),
  ...(until === undefined ? {} : { until }),
});

/** `since` and `until`, each a time or absent. */
const windowFields = { since: timeSchema, until: timeSchema };

const sinceBeforeUntil = ({ since, until }: Bounds) =>
  since === undefined || until === undefined || since < until;

/** A written-at window: `since` before `until`, either may be absent. */
const windowSchema = z
  .object(windowFields)
  .refine(sinceBeforeUntil, { path: ['since'], error: 'must be before until' })
  .transform(windowOf);

/** An ISO 8601 time as epoch ms; absent or empty gives `undefined`. Throws a 400 naming `field`. */
export function parseTime(field: string, value: unknown): number | undefined {
  return parseOrRefuse(timeSchema, value, field);
}

/** `since` and `until` as a window; 400 if either is malformed or `since` is not before `until`. */
export function parseWindow(input: { since?: unknown; until?: unknown }): TimeWindow {
  return parseOrRefuse(windowSchema, { since: input.since, until: input.until });
}

const REPLAY_FIELDS = ['since', 'until', 'keys', 'reason', 'dryRun', 'force'] as const;

/** A replay body is a JSON object of these fields and no others (each checked by a later stage). */
const replayFieldsSchema = z.strictObject(
  Object.fromEntries(REPLAY_FIELDS.map((field) => [field, z.unknown().optional()])),
  {
    error: (issue) => {
      if (issue.code === 'invalid_type') return 'The request body must be a JSON object';
      if (issue.code === 'unrecognized_keys') {
        return `${issue.keys[0]}: unknown field; the fields are ${REPLAY_FIELDS.join(', ')}`;
      }
      return undefined;
    },
  },
);

const isReason = (name: unknown): name is DeadLetterReason =>
  (DEAD_LETTER_REASONS as readonly unknown[]).includes(name);

const reasonsMessage = (got: unknown) =>
  `must be one of ${DEAD_LETTER_REASONS.join(', ')}, or a list of them (got ${JSON.stringify(got)})`;

/** Dead-letter reasons: one name or a list of names (each kept once); absent or null gives `undefined`. */
const reasonsSchema = z.preprocess(
  (value) => (value === null || value === undefined || Array.isArray(value) ? value : [value]),
  z
    .array(z.unknown())
    .min(1, { error: (issue) => reasonsMessage(issue.input) })
    .refine((names) => names.every(isReason), {
      error: (issue) => reasonsMessage((issue.input as unknown[]).find((name) => !isReason(name))),
    })
    .transform((names) => [...new Set(names as DeadLetterReason[])])
    .nullish(),
);

/** Dead-letter reasons from `reason`: one name or a list of names. */
export function parseReasons(value: unknown): DeadLetterReason[] | undefined {
  return parseOrRefuse(reasonsSchema, value, 'reason') ?? undefined;
}

const keysMessage = `must be a list of 1 to ${MAX_REPLAY_KEYS} blob keys`;
const blobKeyMessage = 'must be a blob key (a non-empty string)';

/** `keys`: blob keys, each kept once; absent or null gives `undefined`. Not with a window. */
const keysSchema = z
  .object({
    ...windowFields,
    keys: z
      .array(z.unknown(), { error: keysMessage })
      .min(1, { error: keysMessage })
      .max(MAX_REPLAY_KEYS, { error: keysMessage })
      .pipe(z.array(z.string({ error: blobKeyMessage }).min(1, { error: blobKeyMessage })))
      .transform((keys) => [...new Set(keys)])
      .nullish(),
  })
  .refine(({ keys, since, until }) => keys == null || (since === undefined && until === undefined), {
    path: ['keys'],
    error: 'give either keys or since/until, not both',
  });

const flagSchema = z.boolean({ error: 'must be true or false' }).nullish();

/** `reason`, `dryRun` and `force`. */
const replayOptionsSchema = z.object({ reason: reasonsSchema, dryRun: flagSchema, force: flagSchema });

/**
 * The replay request body `{since?, until?, keys?, reason?, dryRun?, force?}`; 400 naming the
 * field for anything else. `keys` and `since`/`until` exclude each other. Read in stages, so a
 * body with several faults is refused for the first of them in this order: the body's shape and
 * fields, the window, the keys, the reasons and flags.
 */
export function parseReplayRequest(body: unknown): ReplayRequest {
  parseOrRefuse(replayFieldsSchema, body);
  const window = parseOrRefuse(windowSchema, body);
  const { keys } = parseOrRefuse(keysSchema, body);
  const { reason, dryRun, force } = parseOrRefuse(replayOptionsSchema, body);
  return {
    window,
    ...(keys == null ? {} : { keys }),
    ...(reason == null ? {} : { reasons: reason }),
    dryRun: dryRun ?? false,
    force: force ?? false,
  };
}
