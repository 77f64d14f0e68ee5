/**
 * The one reader of publish request bodies: every content mode (Event Grid, CloudEvents
 * structured and batch, custom schema, and the JSON data of a binary-mode CloudEvent) becomes
 * events only through it, so the same limits hold everywhere. It refuses, naming the limit (and
 * the event index where there is one): a body over 1 MiB (too large), an empty body, bytes that
 * are not UTF-8, text that is not JSON, nesting deeper than 100 levels, and an object that names a
 * member twice (at the event's top level or anywhere inside it). The schema parsers take only what
 * it returns ({@link PublishBody}), so no path can skip it.
 */
import { isUtf8 } from 'node:buffer';
import { formatJsonPath, type JsonPath, scanJsonText } from '../platform/json-text';
import { binaryAttributes } from './cloud-events-binary';
import { checkRequestSize, PUBLISH_LIMITS } from './limits';
import { invalidInput } from './rejection';

declare const READ: unique symbol;

/** A request body the reader accepted: its text and parsed value. Only the reader makes one. */
export interface PublishBody {
  /** The body's JSON text, exactly as sent. */
  readonly text: string;
  /** `JSON.parse(text)`. */
  readonly value: unknown;
  /** When the body is an array: the text of each element, exactly as written. */
  readonly elements: readonly string[] | undefined;
  readonly [READ]: true;
}

const REPLACEMENT = '\uFFFD';
const ENCODED_REPLACEMENT = Buffer.from(REPLACEMENT, 'utf8');

/** The byte offset of the first byte sequence that is not UTF-8 (`bytes` is known to have one). */
function firstInvalidUtf8(bytes: Buffer, text: string): number {
  // Decoding replaces each invalid sequence with U+FFFD; the first one not written as the three
  // bytes of U+FFFD in the input is where the input goes wrong.
  let offset = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(REPLACEMENT, from);
    if (at === -1) return offset;
    offset += Buffer.byteLength(text.slice(from, at), 'utf8');
    if (!bytes.subarray(offset, offset + 3).equals(ENCODED_REPLACEMENT)) return offset;
    offset += 3;
    from = at + 1;
  }
}

/**
 * Bytes as UTF-8 text; refused as invalid input when they are not UTF-8 (nothing is replaced: a
 * publisher's data is never silently changed). `what` names the bytes in the message.
 */
export function decodeUtf8(bytes: Buffer, what: string): string {
  const text = bytes.toString('utf8');
  if (!isUtf8(bytes)) {
    throw invalidInput(
      `${what} is not valid UTF-8 (the first invalid byte is at offset ${firstInvalidUtf8(bytes, text)}); JSON must be sent as UTF-8.`,
    );
  }
  return text;
}

/** Where the events of a body are: the elements of a top-level array, or the body itself. */
export type BodyLayout =
  /** A JSON body that holds the events (an array of them, or one object). */
  | 'events'
  /** The JSON data of a binary-mode CloudEvent (the one event's `data`). */
  | 'data';

/** The event index and the path inside that event of a path from the body's root. */
function locate(text: string, path: JsonPath, layout: BodyLayout): { index: number; inside: JsonPath } {
  if (layout === 'data') return { index: 0, inside: ['data', ...path] };
  if (text.trimStart().startsWith('[') && typeof path[0] === 'number') {
    return { index: path[0], inside: path.slice(1) };
  }
  return { index: 0, inside: path };
}

/**
 * Refuses JSON text nested too deep or naming a member twice in one object (invalid input);
 * returns the elements of a top-level array (found in the same pass).
 */
function checkJsonStructure(text: string, layout: BodyLayout): string[] | undefined {
  const max = PUBLISH_LIMITS.maxJsonDepth;
  const { problem, elements } = scanJsonText(text, max);
  if (problem === undefined) return elements;
  if (problem.kind === 'depth') {
    const batch = layout === 'events' && text.trimStart().startsWith('[');
    const where = batch ? ` (in the event at index ${problem.path[0]})` : '';
    const body = layout === 'data' ? "The request body (the event's data)" : 'The request body';
    throw invalidInput(
      `${body} nests more than ${max} levels deep${where}; at most ${max} levels of arrays and objects are allowed.`,
    );
  }
  const { index, inside } = locate(text, problem.path, layout);
  const where = inside.length === 0 ? '' : ` in ${formatJsonPath(inside)}`;
  throw invalidInput(
    `Event at index ${index}: member '${problem.name}' appears more than once${where}; a member may appear only once in an object (receivers would disagree on which one counts).`,
  );
}

/** Parses JSON text, or refuses it (invalid input) with the parser's reason. */
function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidInput(`${what}: ${(error as Error).message}`);
  }
}

const asPublishBody = (text: string, value: unknown, elements?: readonly string[]): PublishBody =>
  ({ text, value, elements }) as PublishBody;

/**
 * Reads a publish request body that holds events (Event Grid, CloudEvents structured or batch,
 * custom schema), enforcing the request size, UTF-8, JSON, nesting and unique-member rules.
 */
export function readPublishBody(bytes: Buffer): PublishBody {
  checkRequestSize(bytes.length);
  if (bytes.length === 0) throw invalidInput('The request body is empty; a JSON document is required.');
  const text = decodeUtf8(bytes, 'The request body');
  const value = parseJsonText(text, 'The request body is not valid JSON');
  return asPublishBody(text, value, checkJsonStructure(text, 'events'));
}

/**
 * Reads a binary-mode CloudEvent (`ce-*` headers, the body as its data) into the one structured
 * event it stands for. The body is at most 1 MiB; when its content type is JSON it is the event's
 * `data` as written and must be UTF-8 JSON within the nesting and unique-member rules (the limit
 * counts the body as sent); any other body is data of any bytes, carried as `data_base64`. An
 * empty body carries no data.
 */
export function readBinaryCloudEvent(
  headers: Readonly<Record<string, string | undefined>>,
  body: Buffer,
): PublishBody {
  checkRequestSize(body.length);
  const { members, contentType, jsonData } = binaryAttributes(headers);
  const attributes = `{${members.join(',')}}`;
  if (body.length === 0) return asPublishBody(attributes, JSON.parse(attributes));
  if (!jsonData) {
    const base64 = `"data_base64":${JSON.stringify(body.toString('base64'))}`;
    const text = `{${[...members, base64].join(',')}}`;
    return asPublishBody(text, JSON.parse(text));
  }
  const data = decodeUtf8(body, 'The request body');
  const value = parseJsonText(
    data,
    `The body is not valid JSON, which its Content-Type '${contentType}' says it is`,
  );
  checkJsonStructure(data, 'data');
  // The attributes are parsed on their own (small); the data, parsed above, joins them.
  const event = JSON.parse(attributes) as Record<string, unknown>;
  event.data = value;
  return asPublishBody(`{${[...members, `"data":${data.trim()}`].join(',')}}`, event);
}
