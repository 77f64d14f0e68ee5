/**
 * Working on JSON as text, for the places where parsing into JavaScript values would change it:
 * numbers beyond double precision (9007199254740993, 1e400), a `__proto__` key, how a number is
 * written (1.50). Events travel as the publisher's own text; these helpers find the pieces of
 * that text. Every function expects text that `JSON.parse` has already accepted.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * Walks the text from `from`, calling `visit` with the nesting depth after each bracket outside
 * strings; stops when `visit` returns true and returns the index just past that bracket (or the
 * text's length).
 */
function walkBrackets(text: string, from: number, visit: (depth: number) => boolean): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (
      code === OPEN_BRACKET ||
      code === OPEN_BRACE ||
      code === CLOSE_BRACKET ||
      code === CLOSE_BRACE
    ) {
      depth += code === OPEN_BRACKET || code === OPEN_BRACE ? 1 : -1;
      if (visit(depth)) return i + 1;
    }
  }
  return text.length;
}

/** The deepest nesting of arrays and objects (brackets inside strings skipped). */
export function jsonDepth(text: string): number {
  let deepest = 0;
  walkBrackets(text, 0, (depth) => {
    if (depth > deepest) deepest = depth;
    return false;
  });
  return deepest;
}

const skipSpace = (text: string, from: number): number => {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i += 1;
  return i;
};

/** The index just past the JSON value that starts at `from`. */
function skipValue(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === QUOTE) {
    for (let i = from + 1; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) return i + 1;
    }
    return text.length;
  }
  if (first === OPEN_BRACKET || first === OPEN_BRACE) return walkBrackets(text, from, (depth) => depth === 0);
  // A number, true, false or null: up to the next delimiter.
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    i += 1;
  }
  return i;
}

/** The text of each element of a top-level JSON array, exactly as written. */
export function arrayElements(text: string): string[] {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACKET) throw new TypeError('the JSON text is not an array');
  const elements: string[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return elements;
  for (;;) {
    const end = skipValue(text, i);
    elements.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return elements;
    i = skipSpace(text, i + 1);
  }
}

/** One member of a JSON object: its name and the text of its value, exactly as written. */
export interface JsonMember {
  name: string;
  /** The value's JSON text. */
  value: string;
}

/** The members of a JSON object text, in order (a repeated name appears as often as written). */
export function objectMembers(text: string): JsonMember[] {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) throw new TypeError('the JSON text is not an object');
  const members: JsonMember[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return members;
  for (;;) {
    const nameEnd = skipValue(text, i);
    // A name without escapes is its text between the quotes (no parse needed, the common case).
    const raw = text.slice(i + 1, nameEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(text.slice(i, nameEnd)) as string) : raw;
    i = skipSpace(text, nameEnd);
    if (text.charCodeAt(i) !== COLON) throw new TypeError('the JSON text is not an object');
    i = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, i);
    members.push({ name, value: text.slice(i, valueEnd) });
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) return members;
    i = skipSpace(text, i + 1);
  }
}

/** Writes members back as a JSON object text; values are used as the JSON text they are. */
export const objectText = (members: readonly JsonMember[]): string =>
  `{${members.map((member) => `${JSON.stringify(member.name)}:${member.value}`).join(',')}}`;
