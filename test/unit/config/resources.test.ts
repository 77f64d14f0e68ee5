import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { ENV, LOCAL_ENV } from '../../../shared/config/resources';

const ROOT = resolve(__dirname, '../../..');
const RESOURCES = 'shared/config/resources.ts';
const SOURCE_FOLDERS = ['bench', 'bin', 'cli', 'functions', 'infra', 'local', 'shared', 'test'];
/** A variable name; built from parts so this file holds no such name itself. */
const VARIABLE = new RegExp(`${'GRIDWIRE'}_[A-Z0-9_]+`, 'g');

const sourceFiles = (): string[] =>
  SOURCE_FOLDERS.flatMap((folder) => {
    let names: string[];
    try {
      names = readdirSync(join(ROOT, folder), { recursive: true }) as string[];
    } catch {
      return [];
    }
    return names
      .filter((name) => /\.[cm]?[jt]s$/.test(name) && !name.split(sep).includes('node_modules'))
      .map((name) => join(folder, name).split(sep).join('/'));
  });

describe('environment variable names', () => {
  const names: string[] = [...Object.values(ENV), ...Object.values(LOCAL_ENV)];

  it('are each defined once, in ENV or LOCAL_ENV', () => {
    expect(new Set(names).size).toBe(names.length);
    const written: string[] = readFileSync(join(ROOT, RESOURCES), 'utf8').match(VARIABLE) ?? [];
    expect(written.filter((name, i) => written.indexOf(name) !== i)).toEqual([]);
    expect([...written].sort()).toEqual([...names].sort());
  });

  it('are not written out anywhere else in the code', () => {
    const literals = sourceFiles()
      .filter((file) => file !== RESOURCES)
      .flatMap((file) =>
        (readFileSync(join(ROOT, file), 'utf8').match(VARIABLE) ?? []).map((name) => `${file}: ${name}`),
      );
    expect(literals).toEqual([]);
  });

  it('are all listed in the configuration guide', () => {
    const guide = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    expect(names.filter((name) => !guide.includes(`\`${name}\``))).toEqual([]);
    expect((guide.match(VARIABLE) ?? []).filter((name) => !names.includes(name))).toEqual([]);
  });
});
