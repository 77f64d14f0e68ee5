import { arrayElements, jsonDepth, objectMembers, objectText } from '../../../shared/platform/json-text';

describe('JSON text', () => {
  it('splits a top-level array into the exact text of its elements', () => {
    const text = ' [ {"a":"],}\\"{["} ,\n[1, [2]] ,"x\\\\" , 12.50e3,true,null,{} ] ';
    expect(arrayElements(text)).toEqual([
      '{"a":"],}\\"{["}',
      '[1, [2]]',
      '"x\\\\"',
      '12.50e3',
      'true',
      'null',
      '{}',
    ]);
    expect(arrayElements('[]')).toEqual([]);
    expect(arrayElements(' [ ] ')).toEqual([]);
    expect(() => arrayElements('{}')).toThrow(/not an array/);
  });

  it('lists object members with their values exactly as written, repeated names included', () => {
    const text = '{ "n" : 9007199254740993 , "__proto__":{"x":"}"}, "s\\u0041":"a\\"b", "n":1e400 }';
    expect(objectMembers(text)).toEqual([
      { name: 'n', value: '9007199254740993' },
      { name: '__proto__', value: '{"x":"}"}' },
      { name: 'sA', value: '"a\\"b"' },
      { name: 'n', value: '1e400' },
    ]);
    expect(objectMembers('{}')).toEqual([]);
    expect(() => objectMembers('[1]')).toThrow(/not an object/);
  });

  it('writes members back without touching their values', () => {
    const members = objectMembers('{"a": 1.50, "__proto__": [ 1 ]}');
    expect(objectText(members)).toBe('{"a":1.50,"__proto__":[ 1 ]}');
    expect(objectText([{ name: 'q"', value: 'null' }])).toBe('{"q\\"":null}');
  });

  it('measures nesting, ignoring brackets inside strings', () => {
    expect(jsonDepth('{"a":[{"b":"[[[{{{\\"]]"}]}')).toBe(3);
    expect(jsonDepth('"just a string"')).toBe(0);
  });
});
