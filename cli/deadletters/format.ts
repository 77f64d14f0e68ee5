/** What `deadletters list` and `deadletters show` print for a reader. */
import { MAX_JSON_DEPTH } from '../../shared/http/api-gateway';
import { jsonDepth } from '../../shared/platform/json-text';
import { type SubscriptionRef, subscriptionLabel } from '../admin-api';
import { plural } from '../text';
import type { DeadLetterBlobText, DeadLetterListing } from './api';

const named = subscriptionLabel;

/**
 * How much indented text one record may take (characters); a record that would take more is
 * printed as stored. Indentation grows with depth, so a deeply nested record would otherwise
 * exceed what a string can hold.
 */
export const MAX_INDENTED_CHARS = 32 * 1024 * 1024;

/**
 * JSON text indented for reading, token by token: numbers and strings stay exactly as written.
 * `undefined` when the result would be longer than `maxChars`.
 */
export function indentJson(text: string, indent = '  ', maxChars = MAX_INDENTED_CHARS): string | undefined {
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i += 1) {
    if (out.length > maxChars) return undefined;
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') {
        out += text[i + 1] ?? '';
        i += 1;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '{' || char === '[') {
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next += 1;
      if (text[next] === (char === '{' ? '}' : ']')) {
        out += `${char}${text[next]}`;
        i = next;
      } else {
        depth += 1;
        out += `${char}${newline()}`;
      }
    } else if (char === '}' || char === ']') {
      depth -= 1;
      out += `${newline()}${char}`;
    } else if (char === ',') {
      out += `,${newline()}`;
    } else if (char === ':') {
      out += ': ';
    } else if (!/\s/.test(char)) {
      out += char;
    }
  }
  return out;
}

/** The human-readable `deadletters list` output. */
export function formatListing(ref: SubscriptionRef, blobs: readonly DeadLetterListing[]): string {
  if (blobs.length === 0) return `No dead letters of ${named(ref)}.`;
  const lines = [`${plural(blobs.length, 'dead-letter blob')} of ${named(ref)}, newest first:`];
  for (const blob of blobs) {
    const replayed = blob.replayedAt === undefined ? 'not replayed' : `replayed ${blob.replayedAt}`;
    lines.push(`  ${blob.key}`);
    lines.push(`    written ${blob.writtenAt}, ${plural(blob.bytes, 'byte')}, ${replayed}`);
  }
  return lines.join('\n');
}

/**
 * One record for reading: indented, or as stored (one line) when it nests deeper than publishing
 * allows now (a record stored before the limit held in every content mode) or would not fit
 * indented, saying why.
 */
function formatRecord(record: string, heading: string): string[] {
  const depth = jsonDepth(record);
  if (depth > MAX_JSON_DEPTH) {
    return [
      `${heading} nested ${depth} levels deep (publishing allows ${MAX_JSON_DEPTH}), so printed as stored, not indented:`,
      record,
    ];
  }
  const indented = indentJson(record);
  if (indented === undefined) {
    return [
      `${heading} ${plural(record.length, 'character')}, too large to indent, so printed as stored:`,
      record,
    ];
  }
  return [`${heading}:`, indented];
}

/** The human-readable `deadletters show` output: each record indented (or as stored, saying why). */
export function formatBlob(blob: DeadLetterBlobText): string {
  const replayed = blob.replayedAt === undefined ? 'not replayed' : `replayed ${blob.replayedAt}`;
  const lines = [`${blob.key}: ${plural(blob.records.length, 'record')}, ${replayed}`];
  blob.records.forEach((record, index) => {
    lines.push('', ...formatRecord(record, `Record ${index + 1} of ${blob.records.length}`));
  });
  return lines.join('\n');
}
