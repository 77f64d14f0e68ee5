import { itemBytes, keyKind, valueBytes, WRITE_UNIT_BYTES, writeUnitsOf } from '../../bench/dynamo-size';

describe('DynamoDB item sizes', () => {
  it('sizes values by DynamoDB rules', () => {
    expect(valueBytes('abc')).toBe(3);
    expect(valueBytes('é')).toBe(2);
    expect(valueBytes(true)).toBe(1);
    expect(valueBytes(null)).toBe(1);
    expect(valueBytes(Buffer.alloc(10))).toBe(10);
    // Numbers: one byte per two significant digits, plus one; zeros at either end do not count.
    expect(valueBytes(0)).toBe(2);
    expect(valueBytes(7)).toBe(2);
    expect(valueBytes(1234)).toBe(3);
    expect(valueBytes(12_345)).toBe(4);
    expect(valueBytes(1_000_000)).toBe(2);
    expect(valueBytes(-0.00125)).toBe(3);
    // Lists and maps: 3 bytes, 1 per element, the elements (and a map's names).
    expect(valueBytes([])).toBe(3);
    expect(valueBytes(['ab', 'c'])).toBe(3 + 1 + 2 + 1 + 1);
    expect(valueBytes({ a: 'xy', b: undefined })).toBe(3 + 1 + 1 + 2);
  });

  it('sizes an item by its names and values, leaving out undefined attributes', () => {
    expect(itemBytes({ pk: 'HEALTH#t#s', sk: '#HEALTH', gone: undefined })).toBe(2 + 10 + 2 + 7);
  });

  it('charges a write unit per started KiB, at least one', () => {
    expect(writeUnitsOf({})).toBe(1);
    expect(writeUnitsOf({ d: 'x'.repeat(WRITE_UNIT_BYTES - 1) })).toBe(1);
    expect(writeUnitsOf({ d: 'x'.repeat(WRITE_UNIT_BYTES) })).toBe(2);
    expect(writeUnitsOf({ d: Buffer.alloc(3000) })).toBe(3);
  });

  it('tells items apart by their partition key prefix', () => {
    expect(keyKind('HEALTH#orders#audit')).toBe('HEALTH');
    expect(keyKind('HISTORY#orders#audit#2026-01-01T00#0')).toBe('HISTORY');
    expect(keyKind('TOPIC#orders')).toBe('TOPIC');
    expect(keyKind('plain')).toBe('other');
    expect(keyKind(undefined)).toBe('other');
  });
});
