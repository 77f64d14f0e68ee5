/**
 * Control characters in text that must not carry them (URLs as typed): C0 (U+0000 to U+001F,
 * CR, LF and tab included) and DEL (U+007F). `new URL` quietly drops tabs and line breaks and
 * percent-encodes the rest, so a URL is checked as typed, before it is parsed.
 */

/** The first control character in `text` (its index and code), or `undefined` if there is none. */
export function firstControlCharacter(text: string): { index: number; code: number } | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return { index, code };
  }
  return undefined;
}

/** A control character as people name it: `CR (U+000D)`, `U+0001`. */
export function describeControlCharacter(code: number): string {
  const names: Record<number, string> = { 9: 'tab', 10: 'LF', 13: 'CR', 127: 'DEL' };
  const unicode = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = names[code];
  return name === undefined ? unicode : `${name} (${unicode})`;
}
