import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_PATH, consoleUrl, PORTAL_PATH } from '../../../local/console';
import { CONSOLE_BUNDLE_FILES, PAGE_MODULES } from '../../../shared/console/files';

const CONSOLE_DIR = join(__dirname, '..', '..', '..', 'console');

describe('the console address', () => {
  it('puts the session token in the address fragment, encoded', () => {
    expect(consoleUrl('http://127.0.0.1:4000', 'a b/c#d')).toBe(
      `http://127.0.0.1:4000${CONSOLE_PATH}#token=a%20b%2Fc%23d`,
    );
  });

  it('is the portal’s when asked, without a doubled slash', () => {
    expect(consoleUrl('https://api.example.com/', 'gws1.x.y', PORTAL_PATH)).toBe(
      'https://api.example.com/portal#token=gws1.x.y',
    );
  });
});

describe("the console's files", () => {
  it('are every file of console/, and each module the page imports is one of them', () => {
    const files = readdirSync(CONSOLE_DIR).sort();
    expect(files).toEqual(CONSOLE_BUNDLE_FILES.filter((name) => !name.startsWith('vendor/')).sort());
    for (const name of files.filter((file) => file.endsWith('.js'))) {
      const imported = [...readFileSync(join(CONSOLE_DIR, name), 'utf8').matchAll(/from '\.\/([^']+)'/g)].map(
        ([, module]) => module,
      );
      for (const module of imported)
        expect([name, PAGE_MODULES]).toEqual([name, expect.arrayContaining([module])]);
    }
  });
});
