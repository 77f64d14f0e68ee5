import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * docs/CONFORMANCE.md is how a reader checks the claim "behaves like the original": each row names
 * the code and the tests that prove it. A test renamed or moved, or a symbol that no longer
 * exists, must not leave a row pointing at nothing.
 */
const ROOT = resolve(__dirname, '../../..');
const PAGE = readFileSync(join(ROOT, 'docs/CONFORMANCE.md'), 'utf8');

/** The cells of every table row (header and separator rows left out). */
const rows = PAGE.split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
  .map((line) =>
    line
      .slice(2, -2)
      .split(' | ')
      .map((cell) => cell.trim()),
  )
  .filter((cells) => !['behaviour', '#', 'value', 'probation after'].includes(cells[0] ?? ''));

/** A test cell's references: each test file, with the test names quoted after it. */
function testReferences(cell: string): { path: string; names: string[] }[] {
  const references: { path: string; names: string[] }[] = [];
  for (const part of cell.split(/;\s*/)) {
    const path = /`(test\/[^`]+\.test\.ts)`/.exec(part)?.[1];
    if (path === undefined) continue;
    // Names are in straight or curly double quotes; a name may hold apostrophes.
    const names = [...part.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string);
    references.push({ path, names });
  }
  return references;
}

/** The tests a row cites, as `[path, name]` (name `''` when the row names only the file). */
const cited: [string, string][] = rows.flatMap((cells) =>
  testReferences(cells[cells.length - 1] ?? '').flatMap(({ path, names }) =>
    names.length === 0
      ? [[path, ''] as [string, string]]
      : names.map((name): [string, string] => [path, name]),
  ),
);

/** Source files and the symbols cited beside them: `` `SYMBOL` (`path`) `` or `` `A` and `B` (`path`) ``. */
const sourceReferences = rows.flatMap((cells) =>
  [
    ...(cells[2] ?? '').matchAll(
      /((?:`[^`]+`(?:,| and)? *)+)\(`((?:shared|functions|infra|local|cli|bench)\/[^`]+\.ts)`\)/g,
    ),
  ].map((match) => ({
    path: match[2] as string,
    symbols: [...(match[1] as string).matchAll(/`([A-Za-z_][\w.]*)`/g)].map((symbol) => symbol[1] as string),
  })),
);

/** The name as it appears in the source: the same text, with `’` and `'` taken as one. */
const normalise = (text: string) => text.replace(/[’']/g, "'").replace(/\\'/g, "'");

describe('docs/CONFORMANCE.md', () => {
  it('cites tests in enough rows to be a table of proof', () => {
    expect(cited.length).toBeGreaterThan(100);
    expect(sourceReferences.length).toBeGreaterThan(60);
  });

  it.each(cited)('cites %s, test "%s", which exists', (path, name) => {
    const file = join(ROOT, path);
    expect(existsSync(file)).toBe(true);
    if (name === '') return;
    // A `%s` in the name is a table-driven test's title: its fixed part is what is found.
    expect(normalise(readFileSync(file, 'utf8'))).toContain(normalise(name));
  });

  it.each(sourceReferences)('cites $path with symbols that are in it', ({ path, symbols }) => {
    const file = join(ROOT, path);
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    for (const symbol of symbols) {
      // `TOPIC_PROFILE.health.probationMs`: the object is declared in the file, the member in it.
      const [head = '', ...members] = symbol.split('.');
      expect({ symbol, found: text.includes(head) }).toEqual({ symbol, found: true });
      for (const member of members)
        expect({ symbol, found: text.includes(member) }).toEqual({ symbol, found: true });
    }
  });
});
