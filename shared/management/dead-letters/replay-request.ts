/**
 * The replay request (`POST .../deadLetters/replay`) and the time window of a listing, parsed
 * from what the caller sent: 400 naming the field for anything else.
 */
import { DEAD_LETTER_REASONS, type DeadLetterReason } from '../../domain/model';
import { badRequest } from '../../http/errors';

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

/**
 * An ISO 8601 time (`2026-11-22T10:00:00Z`, an offset instead of `Z`, or a date meaning its start
 * in UTC) as epoch ms; absent or empty gives `undefined`. Throws a 400 naming `field`.
 */
export function parseTime(field: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const at = typeof value === 'string' && ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) {
    throw badRequest(
      `${field}: must be an ISO 8601 time such as 2026-11-22T10:00:00Z or a date such as 2026-11-22 (got ${JSON.stringify(value)}).`,
    );
  }
  return at;
}

/** `since` and `until` as a window; 400 if either is malformed or `since` is not before `until`. */
export function parseWindow(input: { since?: unknown; until?: unknown }): TimeWindow {
  const since = parseTime('since', input.since);
  const until = parseTime('until', input.until);
  if (since !== undefined && until !== undefined && since >= until) {
    throw badRequest('since: must be before until.');
  }
  return { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

const REPLAY_FIELDS = ['since', 'until', 'keys', 'reason', 'dryRun', 'force'] as const;

/** Dead-letter reasons from `reason`: one name or a list of names. */
export function parseReasons(value: unknown): DeadLetterReason[] | undefined {
  if (value === undefined || value === null) return undefined;
  const names = Array.isArray(value) ? value : [value];
  const allowed = DEAD_LETTER_REASONS as readonly unknown[];
  const wrong = names.find((name) => !allowed.includes(name));
  if (names.length === 0 || wrong !== undefined) {
    throw badRequest(
      `reason: must be one of ${DEAD_LETTER_REASONS.join(', ')}, or a list of them (got ${JSON.stringify(names.length === 0 ? value : wrong)}).`,
    );
  }
  return [...new Set(names as DeadLetterReason[])];
}

const optionalBoolean = (field: string, value: unknown): boolean => {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badRequest(`${field}: must be true or false.`);
  return value;
};

/**
 * The replay request body `{since?, until?, keys?, reason?, dryRun?, force?}`; 400 naming the
 * field for anything else. `keys` and `since`/`until` exclude each other.
 */
export function parseReplayRequest(body: unknown): ReplayRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !(REPLAY_FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw badRequest(`${unknown}: unknown field; the fields are ${REPLAY_FIELDS.join(', ')}.`);
  }
  const window = parseWindow(fields);
  let keys: string[] | undefined;
  if (fields.keys !== undefined && fields.keys !== null) {
    const value = fields.keys;
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REPLAY_KEYS) {
      throw badRequest(`keys: must be a list of 1 to ${MAX_REPLAY_KEYS} blob keys.`);
    }
    const wrong = value.findIndex((key) => typeof key !== 'string' || key === '');
    if (wrong >= 0) throw badRequest(`keys[${wrong}]: must be a blob key (a non-empty string).`);
    if (window.since !== undefined || window.until !== undefined) {
      throw badRequest('keys: give either keys or since/until, not both.');
    }
    keys = [...new Set(value as string[])];
  }
  const reasons = parseReasons(fields.reason);
  return {
    window,
    ...(keys === undefined ? {} : { keys }),
    ...(reasons === undefined ? {} : { reasons }),
    dryRun: optionalBoolean('dryRun', fields.dryRun),
    force: optionalBoolean('force', fields.force),
  };
}
