/**
 * The delivery rules and the domain model are pure: no network, no disk, no AWS. This reads the
 * import statements of every file under those folders and fails naming the file and the import
 * that breaks the rule.
 *
 * Allowed: anything inside the same pure folder, imports of the domain by the delivery rules (which
 * stand on it), type-only imports of the delivery rules by the domain, `zod`, `node:crypto` and
 * the pure text helpers of `shared/platform/json-text.ts`. Everything else (`@aws-sdk/*`,
 * `undici`, `node:fs`, `node:http`, Powertools, `../platform/*`, `../storage/*`, `../queue/*`,
 * ...) is reported. Which folder may import which is `.dependency-cruiser.cjs`'s
 * (`test/unit/layering.test.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const PURE_FOLDERS = ['shared/domain', 'shared/delivery/rules'] as const;
const ALLOWED_PACKAGES = new Set(['zod', 'node:crypto']);
/** Modules outside the pure folders that are pure themselves (string work only). */
const ALLOWED_MODULES = new Set(['shared/platform/json-text']);

interface ImportStatement {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** Blanks comments out, keeping line breaks so line numbers stay right. */
const stripComments = (source: string) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

const lineOf = (source: string, index: number) => source.slice(0, index).split('\n').length;

/** Every module a source file depends on: static imports and re-exports, side-effect imports, import() and require(). */
function parseImports(source: string): ImportStatement[] {
  const code = stripComments(source);
  const found: ImportStatement[] = [];
  const fromClause =
    /(^|[;\n])\s*(import|export)(\s+type)?\s+((?:[\w$*,\s]|\{[^}]*\})*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const match of code.matchAll(fromClause)) {
    const clause = match[4] ?? '';
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    const everyNameIsType =
      named !== null &&
      (named[1] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .every((name) => /^type\s/.test(name));
    found.push({
      specifier: match[5] ?? '',
      typeOnly: match[3] !== undefined || everyNameIsType,
      line: lineOf(code, (match.index ?? 0) + match[0].search(/\b(import|export)\b/)),
    });
  }
  for (const match of code.matchAll(/(^|[;\n])\s*import\s*['"]([^'"]+)['"]/g)) {
    found.push({
      specifier: match[2] ?? '',
      typeOnly: false,
      line: lineOf(code, (match.index ?? 0) + match[0].search(/\bimport\b/)),
    });
  }
  for (const match of code.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    found.push({ specifier: match[1] ?? '', typeOnly: false, line: lineOf(code, match.index ?? 0) });
  }
  return found.sort((a, b) => a.line - b.line);
}

const sourceFiles = (folder: string): string[] =>
  (readdirSync(join(ROOT, folder), { recursive: true }) as string[])
    .filter((name) => /\.[cm]?[jt]sx?$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => join(folder, name).split(sep).join('/'));

const pureFolderOf = (file: string) =>
  PURE_FOLDERS.find((folder) => file === folder || file.startsWith(`${folder}/`));

/** Why an import in `file` breaks the rule, or undefined when it is allowed. */
function violation(file: string, statement: ImportStatement): string | undefined {
  const { specifier } = statement;
  if (!specifier.startsWith('.')) {
    return ALLOWED_PACKAGES.has(specifier) ? undefined : 'a package outside the pure core';
  }
  const target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
    .split(sep)
    .join('/');
  if (ALLOWED_MODULES.has(target)) return undefined;
  const from = pureFolderOf(file);
  const to = pureFolderOf(target);
  if (to === undefined) return `${target}, outside ${PURE_FOLDERS.join(' and ')}`;
  if (from === 'shared/domain' && to !== from && !statement.typeOnly)
    return `${target} (the domain imports only types from the delivery rules)`;
  return undefined;
}

describe('architecture: the domain model and delivery rules do no I/O', () => {
  it('finds every form of import', () => {
    const source = [
      "import { z } from 'zod';",
      "import type { Clock } from '../platform/clock';",
      'import {',
      '  type A,',
      '  type B,',
      "} from './model';",
      "import { type C, D } from './other';",
      "import * as http from 'node:http';",
      "import 'undici';",
      "export { send } from '../queue/sqs-job-queue';",
      "export * from '../storage/store';",
      "export type { E } from './e';",
      "// import { commented } from '@aws-sdk/client-s3';",
      "/* import { blocked } from 'node:fs'; */",
      "const fs = require('node:fs');",
      "const later = () => import('@aws-lambda-powertools/logger');",
      "export const url = 'http://example.com/from';",
    ].join('\n');
    expect(parseImports(source).map((s) => [s.line, s.specifier, s.typeOnly])).toEqual([
      [1, 'zod', false],
      [2, '../platform/clock', true],
      [3, './model', true],
      [7, './other', false],
      [8, 'node:http', false],
      [9, 'undici', false],
      [10, '../queue/sqs-job-queue', false],
      [11, '../storage/store', false],
      [12, './e', true],
      [15, 'node:fs', false],
      [16, '@aws-lambda-powertools/logger', false],
    ]);
  });

  it('reports the file and the import that breaks the rule', () => {
    const check = (file: string, line: string) =>
      parseImports(line).map((statement) => violation(file, statement));
    expect(check('shared/domain/model.ts', "import { z } from 'zod';")).toEqual([undefined]);
    expect(check('shared/domain/model.ts', "import { x } from './delivery';")).toEqual([undefined]);
    expect(check('shared/delivery/rules/retry.ts', "import type { M } from '../../domain/model';")).toEqual([
      undefined,
    ]);
    expect(check('shared/delivery/rules/retry.ts', "import { M } from '../../domain/model';")).toEqual([
      undefined,
    ]);
    expect(check('shared/domain/model.ts', "import { stepOf } from '../delivery/rules/retry';")).toEqual([
      'shared/delivery/rules/retry (the domain imports only types from the delivery rules)',
    ]);
    expect(check('shared/domain/model.ts', "import { clients } from '../platform/aws';")).toEqual([
      'shared/platform/aws, outside shared/domain and shared/delivery/rules',
    ]);
    expect(
      check('shared/delivery/rules/retry.ts', "import type { Store } from '../../storage/store';"),
    ).toEqual(['shared/storage/store, outside shared/domain and shared/delivery/rules']);
    for (const pkg of [
      '@aws-sdk/client-sqs',
      'undici',
      'node:fs',
      'node:http',
      '@aws-lambda-powertools/logger',
    ]) {
      expect(check('shared/domain/model.ts', `import x from '${pkg}';`)).toEqual([
        'a package outside the pure core',
      ]);
    }
  });

  it('holds for every file under shared/domain and shared/delivery/rules', () => {
    const files = PURE_FOLDERS.flatMap(sourceFiles);
    expect(files).toEqual(
      expect.arrayContaining(['shared/domain/model.ts', 'shared/delivery/rules/retry.ts']),
    );
    const problems = files.flatMap((file) =>
      parseImports(readFileSync(join(ROOT, file), 'utf8')).flatMap((statement) => {
        const why = violation(file, statement);
        return why === undefined
          ? []
          : [`${file}:${statement.line} imports '${statement.specifier}': ${why}`];
      }),
    );
    expect(problems).toEqual([]);
  });
});

describe('architecture: the CDK app imports no runtime wiring', () => {
  /** Where `specifier`, imported by `file`, points inside the project (undefined for a package). */
  const targetOf = (file: string, specifier: string) =>
    specifier.startsWith('.')
      ? relative(ROOT, resolve(ROOT, dirname(file), specifier))
          .split(sep)
          .join('/')
      : undefined;

  it('holds for every file under infra/: nothing from shared/lambda/', () => {
    const files = sourceFiles('infra');
    expect(files).toEqual(expect.arrayContaining(['infra/delivery-pipeline.ts', 'infra/monitoring.ts']));
    const problems = files.flatMap((file) =>
      parseImports(readFileSync(join(ROOT, file), 'utf8')).flatMap((statement) =>
        targetOf(file, statement.specifier)?.startsWith('shared/lambda/')
          ? [`${file}:${statement.line} imports '${statement.specifier}'`]
          : [],
      ),
    );
    expect(problems).toEqual([]);
  });
});
