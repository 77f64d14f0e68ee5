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
/** The string value of an object text's member `name`; absent when it has none, or it is not a string. */
export function stringMember(objectJson: string, name: string): string | undefined {
  const member = objectMembers(objectJson).find((candidate) => candidate.name === name);
  if (member === undefined) return undefined;
  const value: unknown = JSON.parse(member.value);
  return typeof value === 'string' ? value : undefined;
}

export const objectText = (members: readonly JsonMember[]): string =>
  `{${members.map((member) => `${JSON.stringify(member.name)}:${member.value}`).join(',')}}`;

/** Where a value sits in a JSON document: member names and array indexes from the root. */
export type JsonPath = Array<string | number>;

/** What {@link jsonStructureProblem} found: nesting beyond the limit, or a repeated member name. */
export type JsonStructureProblem =
  /** `path` leads to the array or object that opens one level too many. */
  | { kind: 'depth'; path: JsonPath }
  /** `path` leads to the object that holds `name` twice. */
  | { kind: 'duplicate'; name: string; path: JsonPath };

/** Objects with up to this many members are checked by hashes of their names, without a Set. */
const SMALL_OBJECT = 16;

/** One open array or object while scanning. */
interface Frame {
  object: boolean;
  /** Arrays: the index of the current element. */
  index: number;
  /** Objects: where the current member's name starts (its opening quote). */
  name: number;
  /** Objects up to {@link SMALL_OBJECT} members: the hash and start of each name. */
  hashes: number[];
  starts: number[];
  /** Larger objects: the names. */
  large: Set<string> | undefined;
}

/** The name (unescaped) of the JSON string starting at `start`. */
function stringAt(text: string, start: number): string {
  let end = start + 1;
  let escaped = false;
  for (; end < text.length; end += 1) {
    const code = text.charCodeAt(end);
    if (code === BACKSLASH) {
      escaped = true;
      end += 1;
    } else if (code === QUOTE) break;
  }
  return escaped ? (JSON.parse(text.slice(start, end + 1)) as string) : text.slice(start + 1, end);
}

/** A 32-bit hash of a string, the same as the scan computes for a name without escapes. */
function hashOf(name: string): number {
  let hash = 0;
  for (let i = 0; i < name.length; i += 1) hash = (Math.imul(hash, 31) + name.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Records the name starting at `start` (with `hash`) in an object's frame; false when the object
 * already has it. Names are compared as text only when their hashes are equal.
 */
function addName(text: string, frame: Frame, start: number, hash: number): boolean {
  frame.name = start;
  if (frame.large !== undefined) {
    const name = stringAt(text, start);
    if (frame.large.has(name)) return false;
    frame.large.add(name);
    return true;
  }
  const { hashes, starts } = frame;
  for (let i = 0; i < hashes.length; i += 1) {
    if (hashes[i] === hash && stringAt(text, starts[i] as number) === stringAt(text, start)) return false;
  }
  if (hashes.length < SMALL_OBJECT) {
    hashes.push(hash);
    starts.push(start);
  } else {
    frame.large = new Set([...starts.map((at) => stringAt(text, at)), stringAt(text, start)]);
  }
  return true;
}

const pathOf = (text: string, frames: readonly Frame[], depth: number): JsonPath =>
  frames.slice(0, depth).map((frame) => (frame.object ? stringAt(text, frame.name) : frame.index));

/** What one scan of a JSON text found (see {@link scanJsonText}). */
export interface JsonScan {
  /** The first structural problem, if any (the scan stops there). */
  problem: JsonStructureProblem | undefined;
  /** When the text is an array: the text of each element, exactly as written (as {@link arrayElements}). */
  elements: string[] | undefined;
}

/**
 * One pass over a JSON text that finds its first structural problem: an array or object nested
 * deeper than `maxDepth` (the scan stops there, so a hostile document costs no more than the
 * limit), or an object that names a member twice (`{"a":1,"a":2}`; names compared after
 * unescaping, so `"\u0061"` is `"a"`). The same pass splits a top-level array into its elements.
 * Names are not sliced out of the text unless two hash alike, so the scan costs about what
 * measuring the depth and splitting the array did as two passes.
 */
export function scanJsonText(text: string, maxDepth: number): JsonScan {
  const frames: Frame[] = [];
  let depth = 0;
  let expectName = false;
  let elements: string[] | undefined;
  let elementStart = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      if (!expectName) {
        for (i += 1; i < text.length; i += 1) {
          const inner = text.charCodeAt(i);
          if (inner === BACKSLASH) i += 1;
          else if (inner === QUOTE) break;
        }
        continue;
      }
      expectName = false;
      let hash = 0;
      let escaped = false;
      for (i += 1; i < text.length; i += 1) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) {
          escaped = true;
          i += 1;
        } else if (inner === QUOTE) break;
        else hash = (Math.imul(hash, 31) + inner) | 0;
      }
      if (escaped) hash = hashOf(stringAt(text, start));
      const frame = frames[depth - 1] as Frame;
      if (!addName(text, frame, start, hash)) {
        const problem = {
          kind: 'duplicate',
          name: stringAt(text, start),
          path: pathOf(text, frames, depth - 1),
        };
        return { problem: problem as JsonStructureProblem, elements };
      }
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (depth === maxDepth)
        return { problem: { kind: 'depth', path: pathOf(text, frames, depth) }, elements };
      const object = code === OPEN_BRACE;
      if (depth === 0 && !object) {
        elements = [];
        elementStart = i + 1;
      }
      let frame = frames[depth];
      if (frame === undefined) {
        frame = { object, index: 0, name: 0, hashes: [], starts: [], large: undefined };
        frames.push(frame);
      } else {
        frame.object = object;
        frame.index = 0;
        if (frame.hashes.length > 0) {
          frame.hashes.length = 0;
          frame.starts.length = 0;
        }
        frame.large = undefined;
      }
      depth += 1;
      expectName = object;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      expectName = false;
      if (depth === 0 && elements !== undefined) {
        const last = text.slice(elementStart, i).trim();
        if (last !== '' || elements.length > 0) elements.push(last);
      }
    } else if (code === COMMA) {
      const frame = frames[depth - 1] as Frame;
      if (frame.object) expectName = true;
      else {
        frame.index += 1;
        if (depth === 1 && elements !== undefined) {
          elements.push(text.slice(elementStart, i).trim());
          elementStart = i + 1;
        }
      }
    }
  }
  return { problem: undefined, elements };
}

/** The first structural problem of a JSON text (see {@link scanJsonText}); `undefined` when none. */
export const jsonStructureProblem = (text: string, maxDepth: number): JsonStructureProblem | undefined =>
  scanJsonText(text, maxDepth).problem;

/** A path for messages: `data.items[0]`, names that are not identifiers quoted (`data["a b"]`). */
export const formatJsonPath = (path: readonly (string | number)[]): string =>
  path
    .map((step, index) =>
      typeof step === 'number'
        ? `[${step}]`
        : /^[A-Za-z_$][\w$]*$/.test(step)
          ? `${index === 0 ? '' : '.'}${step}`
          : `[${JSON.stringify(step)}]`,
    )
    .join('');
