/**
 * Secrets left out of what the message log keeps of an attempt: the answer excerpt and the error
 * text. An endpoint may echo the request it got (a debugging endpoint echoes its headers, a token
 * endpoint that refuses may quote the client's credentials), and the message log is read by
 * people who may not see the subscription's secrets: each secret known when the request was made
 * is replaced with {@link REDACTED} wherever it stands, in every form an answer is likely to
 * carry it in:
 *
 * - as sent;
 * - percent-encoded (either hex case, any character encoded or not), and `+` for a space, as in a
 *   URL or a form;
 * - JSON-escaped (`\"`, `\\`, `\/`, `\n`..., and `\uXXXX` for any character, surrogate pairs too);
 * - HTML-escaped (`&amp;`, `&quot;`..., and numeric references `&#38;` `&#x26;`);
 * - any mix of those within the one secret (encoders differ on which characters they escape);
 * - inside base64 (standard or URL-safe), as in an echoed `Authorization: Basic` header: a
 *   base64 word whose decoding holds a secret (in any of the forms above, e.g. the URL-encoded
 *   `client-id:secret` of RFC 6749 2.3.1) is replaced whole;
 * - cut by the end of the text (the excerpt keeps 1 KiB, an error quotes an answer's start): its
 *   start, once it is {@link MIN_SECRET_CHARS} characters or more.
 *
 * A secret shorter than {@link MIN_SECRET_CHARS} characters is not looked for: it can't be told
 * from other text, and replacing every `1` would leave nothing to read. Pure and bounded by the
 * text's length (each position is tried against each secret's first character, nearly always
 * failing there); the caller skips it for a subscription with no secrets.
 */

/** What stands for a secret in stored text. */
export const REDACTED = '[redacted]';
/** Secrets shorter than this are not looked for, and a cut secret is redacted from this length. */
export const MIN_SECRET_CHARS = 4;
/** Base64 words shorter than this are not decoded (too short to hold a secret). */
const MIN_BASE64_CHARS = 8;
/**
 * Steps one match may take at most: ambiguity (`%` as itself or as the start of `%25`) is rare
 * and short-lived, so this only bounds a text built to make it branch.
 */
const MAX_MATCH_STEPS = 20_000;

/** The text with each of `secrets` replaced with {@link REDACTED}, in every form listed above. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (text === '') return text;
  const wanted = secretsToFind(secrets);
  if (wanted.length === 0) return text;
  return withoutBase64Secrets(withoutSecrets(text, wanted), wanted);
}

/** A result's answer excerpt and error with `secrets` redacted (the others fields as they are). */
export function redactResult<R extends { response?: string; error?: string }>(
  result: R,
  secrets: readonly string[],
): R {
  if ((result.response === undefined && result.error === undefined) || secrets.length === 0) return result;
  return {
    ...result,
    ...(result.response === undefined ? {} : { response: redactSecrets(result.response, secrets) }),
    ...(result.error === undefined ? {} : { error: redactSecrets(result.error, secrets) }),
  };
}

/**
 * The credentials Gridwire put on a request for its `auth` (their values change per token and per
 * request, so they are read from the request as sent): the `Authorization` header's credentials
 * after its scheme (a bearer token, SigV4's credential, headers and signature, a Basic pair), a
 * SigV4 signature alone, and the session token SigV4 sends.
 */
export function requestCredentialsOf(headers: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-amz-security-token') found.push(value);
    if (lower !== 'authorization') continue;
    const credentials = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    found.push(credentials ?? value);
    const signature = /Signature=([0-9a-fA-F]+)/.exec(value)?.[1];
    if (signature !== undefined) found.push(signature);
  }
  return found;
}

/**
 * The values of a URL's query string (a name alone when it has no value), as secrets: a sealed
 * query string is sealed whole, so each of its values may be one.
 */
export function queryValuesOf(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  return [...url.searchParams].map(([name, value]) => (value === '' ? name : value));
}

/** Token fields whose values are left out of a quoted token endpoint answer. */
const TOKEN_FIELDS = 'access_token|refresh_token|id_token|client_secret';
const JSON_TOKEN_FIELD = new RegExp(`("(?:${TOKEN_FIELDS})"\\s*:\\s*")(?:[^"\\\\]|\\\\.)*"?`, 'g');
const FORM_TOKEN_FIELD = new RegExp(`\\b((?:${TOKEN_FIELDS})=)[^&\\s"]*`, 'g');

/**
 * A token endpoint's answer with the values of its token fields (`access_token`, `refresh_token`,
 * `id_token`, `client_secret`) redacted, in JSON or in a form: an answer that refuses may still
 * carry a token nobody knew beforehand. A value cut by the end of the text goes too.
 */
export function redactTokenFields(text: string): string {
  return text.replace(JSON_TOKEN_FIELD, `$1${REDACTED}"`).replace(FORM_TOKEN_FIELD, `$1${REDACTED}`);
}

/** Each secret as characters (code points), long enough, distinct, longest first. */
function secretsToFind(secrets: readonly string[]): string[][] {
  const distinct = [...new Set(secrets)].map((secret) => Array.from(secret));
  return distinct.filter((chars) => chars.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

/** The text with each match of `wanted` (see {@link matchEnd}) replaced. */
function withoutSecrets(text: string, wanted: readonly string[][]): string {
  let out = '';
  let kept = 0;
  let at = 0;
  while (at < text.length) {
    let end = -1;
    for (const chars of wanted) {
      end = matchEnd(text, at, chars);
      if (end >= 0) break;
    }
    if (end < 0) {
      at += 1;
      continue;
    }
    out += `${text.slice(kept, at)}${REDACTED}`;
    kept = end;
    at = end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** Whether the text holds one of `wanted` anywhere (cut at its end too). */
const holdsSecret = (text: string, wanted: readonly string[][]): boolean => {
  for (let at = 0; at < text.length; at += 1) {
    if (wanted.some((chars) => matchEnd(text, at, chars) >= 0)) return true;
  }
  return false;
};

const BASE64_WORD = new RegExp(`[A-Za-z0-9+/_-]{${MIN_BASE64_CHARS},}={0,2}`, 'g');

/**
 * The text with each base64 word that decodes to text holding a secret replaced whole. Each word
 * is decoded from its first four characters in turn, so one glued to other text is found too.
 */
function withoutBase64Secrets(text: string, wanted: readonly string[][]): string {
  return text.replace(BASE64_WORD, (word) => {
    for (let skip = 0; skip < 4 && word.length - skip >= MIN_BASE64_CHARS; skip += 1) {
      const decoded = Buffer.from(word.slice(skip), 'base64').toString('utf8');
      if (holdsSecret(decoded, wanted)) return REDACTED;
    }
    return word;
  });
}

/**
 * Where a match of the secret `chars` that starts at `start` ends, or -1: each of its characters
 * in any form {@link decodingsAt} reads. A match the text's end cuts after
 * {@link MIN_SECRET_CHARS} characters or more ends there.
 */
function matchEnd(text: string, start: number, chars: readonly string[]): number {
  // Depth first over the rare positions where two readings give the character wanted.
  const stack: Array<[number, number]> = [[start, 0]];
  for (let steps = 0; stack.length > 0 && steps < MAX_MATCH_STEPS; steps += 1) {
    const [at, matched] = stack.pop() as [number, number];
    if (matched === chars.length) return at;
    if (at >= text.length) {
      if (matched >= MIN_SECRET_CHARS) return text.length;
      continue;
    }
    const all = decodingsAt(text, at);
    const readings = all.filter(([char]) => char === chars[matched]);
    if (all.length === 1 && matched >= MIN_SECRET_CHARS && ESCAPE_CUT.test(text.slice(at)))
      return text.length;
    for (let index = readings.length - 1; index >= 0; index -= 1) {
      stack.push([(readings[index] as [string, number])[1], matched + 1]);
    }
  }
  return -1;
}

/** The start of an escape the end of the text cut, left unfinished (all that is left of the text). */
const ESCAPE_CUT =
  /^(?:(?:%[0-9a-fA-F]{2}){0,3}%[0-9a-fA-F]?|(?:%[0-9a-fA-F]{2}){1,3}|\\(?:u[0-9a-fA-F]{0,3})?|&(?:#[xX]?[0-9a-fA-F]{0,6}|[a-z]{0,4}))$/;

/** The characters the text may stand for at `at`, each with where its reading ends. */
function decodingsAt(text: string, at: number): Array<[string, number]> {
  const literal = String.fromCodePoint(text.codePointAt(at) as number);
  const readings: Array<[string, number]> = [[literal, at + literal.length]];
  const escaped =
    literal === '+'
      ? ([' ', at + 1] as [string, number])
      : literal === '%'
        ? percentAt(text, at)
        : literal === '\\'
          ? jsonEscapeAt(text, at)
          : literal === '&'
            ? entityAt(text, at)
            : undefined;
  if (escaped !== undefined) readings.push(escaped);
  return readings;
}

const PERCENT_BYTE = /%([0-9a-fA-F]{2})/y;

/** A character percent-encoded as UTF-8 at `at` (one to four `%XX`). */
function percentAt(text: string, at: number): [string, number] | undefined {
  const bytes: number[] = [];
  let next = at;
  do {
    PERCENT_BYTE.lastIndex = next;
    const hex = PERCENT_BYTE.exec(text)?.[1];
    if (hex === undefined) return undefined;
    bytes.push(Number.parseInt(hex, 16));
    next += 3;
  } while (bytes.length < utf8Length(bytes[0] as number) && bytes.length < 4);
  const decoded = Buffer.from(bytes).toString('utf8');
  if (decoded.includes('\uFFFD') || Array.from(decoded).length !== 1) return undefined;
  return [decoded, next];
}

/** A UTF-8 sequence's length from its first byte. */
const utf8Length = (first: number): number =>
  first < 0x80 ? 1 : first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;

const JSON_SHORT: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const JSON_UNIT = /\\u([0-9a-fA-F]{4})/y;

/** A JSON escape at `at`: `\"` and the like, or `\uXXXX` (a surrogate pair read as one character). */
function jsonEscapeAt(text: string, at: number): [string, number] | undefined {
  const short = JSON_SHORT[text[at + 1] as string];
  if (short !== undefined) return [short, at + 2];
  const unit = unitAt(text, at);
  if (unit === undefined) return undefined;
  if (unit >= 0xd800 && unit < 0xdc00) {
    const low = unitAt(text, at + 6);
    if (low !== undefined && low >= 0xdc00 && low < 0xe000) {
      return [String.fromCharCode(unit, low), at + 12];
    }
  }
  return [String.fromCharCode(unit), at + 6];
}

function unitAt(text: string, at: number): number | undefined {
  JSON_UNIT.lastIndex = at;
  const hex = JSON_UNIT.exec(text)?.[1];
  return hex === undefined ? undefined : Number.parseInt(hex, 16);
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));/y;

/** An HTML character reference at `at`: a named one of the five, or a numeric one. */
function entityAt(text: string, at: number): [string, number] | undefined {
  ENTITY.lastIndex = at;
  const found = ENTITY.exec(text);
  if (found === null) return undefined;
  const [whole, name, decimal, hex] = found;
  if (name !== undefined) return [NAMED_ENTITIES[name] as string, at + whole.length];
  const codePoint = decimal !== undefined ? Number(decimal) : Number.parseInt(hex as string, 16);
  if (codePoint > 0x10ffff) return undefined;
  return [String.fromCodePoint(codePoint), at + whole.length];
}
