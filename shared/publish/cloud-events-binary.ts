/**
 * CloudEvents in the HTTP binary content mode (CloudEvents HTTP protocol binding 1.0): the
 * attributes travel as `ce-<name>` headers, the body is the event's data and `Content-Type` its
 * `datacontenttype`. A binary request is turned into the one structured event text it stands
 * for (by the publish body reader, which applies the body limits to the data), which then goes
 * through the same validation as structured events: one set of rules.
 */
import { invalidInput } from './rejection';

const CE_PREFIX = 'ce-';

/** Whether the request carries a CloudEvent in binary mode (a `ce-specversion` header). */
export const isBinaryCloudEvent = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  Object.keys(headers).some((name) => name.toLowerCase() === `${CE_PREFIX}specversion`);

/** Media types whose bodies are JSON (`application/json`, `text/json`, `*\/*+json`). */
const isJsonMediaType = (mediaType: string): boolean =>
  mediaType === 'application/json' || mediaType === 'text/json' || mediaType.endsWith('+json');

/** A header value as the binding writes it: percent-encoded UTF-8 where needed. */
function decodeHeaderValue(name: string, value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw invalidInput(`Header ${name}: the value is not valid percent-encoded UTF-8.`);
  }
}

/** A binary-mode request's attributes as JSON members, and its `Content-Type`. */
export interface BinaryAttributes {
  /** `"name":"value"` for each `ce-*` header, then `datacontenttype` from `Content-Type`. */
  members: string[];
  contentType: string | undefined;
  /** Whether the body is JSON by its content type (then it is the `data` as written). */
  jsonData: boolean;
}

/**
 * The attributes of a binary-mode CloudEvent. Attribute names are the header names after `ce-`,
 * lower-cased; values stay strings, as headers carry them. Validation of the attributes is left
 * to the structured rules; the body is read by the publish body reader.
 */
export function binaryAttributes(headers: Readonly<Record<string, string | undefined>>): BinaryAttributes {
  const members: string[] = [];
  let contentType: string | undefined;
  for (const [rawName, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (name === 'content-type') {
      contentType = value;
      continue;
    }
    if (!name.startsWith(CE_PREFIX) || name.length === CE_PREFIX.length) continue;
    const attribute = name.slice(CE_PREFIX.length);
    if (attribute === 'datacontenttype' || attribute === 'data' || attribute === 'data_base64') {
      throw invalidInput(
        `Header ${rawName} is not allowed in binary mode: the data is the body and its type is the Content-Type header.`,
      );
    }
    members.push(`${JSON.stringify(attribute)}:${JSON.stringify(decodeHeaderValue(rawName, value))}`);
  }
  if (contentType !== undefined) members.push(`"datacontenttype":${JSON.stringify(contentType)}`);
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return { members, contentType, jsonData: isJsonMediaType(mediaType) };
}
