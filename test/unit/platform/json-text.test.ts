import {
  arrayElements,
  formatJsonPath,
  jsonDepth,
  jsonStructureProblem,
  objectMembers,
  objectText,
  scanJsonText,
} from '../../../shared/platform/json-text';

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

  it('finds nesting beyond a limit and stops there, with the path to the container that goes too deep', () => {
    expect(jsonStructureProblem('[[1],{"a":[2]}]', 3)).toBeUndefined();
    expect(jsonStructureProblem('[[1],{"a":[2]}]', 2)).toEqual({ kind: 'depth', path: [1, 'a'] });
    expect(jsonStructureProblem(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`, 100)).toEqual({
      kind: 'depth',
      path: Array.from({ length: 100 }, () => 0),
    });
    expect(jsonStructureProblem('{"a":"[[[[{{{{\\\\\\"]"}', 1)).toBeUndefined();
  });

  it('finds the first object naming a member twice, after unescaping names', () => {
    expect(jsonStructureProblem('{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}', 10)).toBeUndefined();
    expect(jsonStructureProblem('{"a":"b","b":1}', 10)).toBeUndefined();
    expect(jsonStructureProblem('[1,{"x":{"y":[0,{"a":1,"\\u0061":2}]}}]', 10)).toEqual({
      kind: 'duplicate',
      name: 'a',
      path: [1, 'x', 'y', 1],
    });
    const many = `{${Array.from({ length: 30 }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(jsonStructureProblem(many, 10)).toBeUndefined();
    expect(jsonStructureProblem(many.replace('"k29"', '"k3"'), 10)).toEqual({
      kind: 'duplicate',
      name: 'k3',
      path: [],
    });
  });

  it('splits a top-level array into its elements in the same pass', () => {
    const text = ' [ {"a":"],}\\"{["} ,\n[1, [2]] ,"x\\\\" , 12.50e3,true,null,{} ] ';
    expect(scanJsonText(text, 10)).toEqual({ problem: undefined, elements: arrayElements(text) });
    expect(scanJsonText('[]', 10).elements).toEqual([]);
    expect(scanJsonText(' [ ] ', 10).elements).toEqual([]);
    expect(scanJsonText('[[]]', 10).elements).toEqual(['[]']);
    expect(scanJsonText('{"a":[1,2]}', 10).elements).toBeUndefined();
  });

  it('writes paths for messages', () => {
    expect(formatJsonPath(['data', 'items', 0, 'a b', '$x'])).toBe('data.items[0]["a b"].$x');
    expect(formatJsonPath([2, 'k'])).toBe('[2].k');
  });
});
