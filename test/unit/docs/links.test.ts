import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The README is a front door to the guides in docs/, and the guides link to each other's
 * sections: a heading renamed or moved must not leave a link pointing nowhere.
 */
const ROOT = resolve(__dirname, '../../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The page without fenced code blocks, whose lines are neither headings nor links. */
const prose = (text: string): string => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
const anchors = (text: string): Set<string> => {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading = ''] of prose(text).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
};

/** Relative link targets of a page, code spans and code blocks left out. */
const links = (text: string): string[] =>
  [
    ...prose(text)
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/\]\(([^)\s]+)\)/g),
  ]
    .map(([, target = '']) => target)
    .filter((target) => !/^[a-z]+:/i.test(target));

describe('documentation links', () => {
  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    const broken = links(readFileSync(join(ROOT, page), 'utf8')).filter((target) => {
      const [file = '', anchor] = target.split('#');
      const path = file === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), file);
      if (!existsSync(path)) return true;
      return anchor !== undefined && path.endsWith('.md') && !anchors(readFileSync(path, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it('reaches every guide from the README', () => {
    const linked = new Set(
      links(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((target) =>
        relative(ROOT, resolve(ROOT, target.split('#')[0] ?? '')),
      ),
    );
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });
});
