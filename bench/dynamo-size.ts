/**
 * DynamoDB item sizes and write units, by DynamoDB's documented sizing rules, for items as the
 * document client writes them (plain values, `Uint8Array` for binary). dynalite reports no
 * consumed capacity, so the benchmark counts write units from what the handlers write.
 */

/** Bytes one write unit covers (on-demand and provisioned alike). */
export const WRITE_UNIT_BYTES = 1024;

/** Significant digits of a number, as DynamoDB stores it (leading and trailing zeros trimmed). */
function significantDigits(value: number): number {
  const [mantissa = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(1, digits.length);
}

/** The size of one attribute value: what it adds to an item besides its name. */
export function valueBytes(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(significantDigits(value) / 2) + 1;
  if (typeof value === 'bigint') return Math.ceil(value.toString().replace('-', '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    return [...value].reduce((sum: number, member) => sum + valueBytes(member), 0);
  }
  // Lists and maps: 3 bytes, plus 1 byte per element and the elements (and a map's names).
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueBytes(member), 0);
  if (typeof value === 'object') {
    return (
      3 +
      Object.entries(value as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .reduce((sum, [name, member]) => sum + 1 + Buffer.byteLength(name, 'utf8') + valueBytes(member), 0)
    );
  }
  return 0;
}

/** An item's size: each attribute's name and value (undefined attributes are not written). */
export function itemBytes(item: Readonly<Record<string, unknown>>): number {
  return Object.entries(item)
    .filter(([, value]) => value !== undefined)
    .reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueBytes(value), 0);
}

/** Write units one put of `item` costs: one per started KiB, at least one. */
export const writeUnitsOf = (item: Readonly<Record<string, unknown>>): number =>
  Math.max(1, Math.ceil(itemBytes(item) / WRITE_UNIT_BYTES));

/**
 * What kind of item a partition key names: the text before its first `#` (`HEALTH`, `HISTORY`,
 * `TOPIC`, ...), or `other`.
 */
export function keyKind(pk: unknown): string {
  if (typeof pk !== 'string') return 'other';
  const hash = pk.indexOf('#');
  return hash > 0 ? pk.slice(0, hash) : 'other';
}
