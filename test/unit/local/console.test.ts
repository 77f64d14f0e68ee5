import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONSOLE_PATH,
  consoleHeaders,
  consoleRoutes,
  consoleUrl,
  inlineScriptHashes,
} from '../../../local/console';

const PAGE = readFileSync(join(__dirname, '..', '..', '..', 'console', 'index.html'), 'utf8');

describe('the console routes', () => {
  it('serve the page and each of its files, with the security headers', async () => {
    const routes = consoleRoutes();
    expect(Object.keys(routes).sort()).toEqual(
      [
        '',
        '/',
        '/app.js',
        '/common.js',
        '/log.js',
        '/dead-letters.js',
        '/style.css',
        '/vendor/preact.js',
        '/vendor/hooks.js',
        '/vendor/htm.js',
      ]
        .map((path) => `GET ${CONSOLE_PATH}${path}`)
        .sort(),
    );
    for (const [route, serve] of Object.entries(routes)) {
      const answer = await serve();
      expect([route, answer.status]).toEqual([route, 200]);
      expect(answer.body.length).toBeGreaterThan(100);
      expect(answer.headers?.['x-content-type-options']).toBe('nosniff');
      expect(answer.headers?.['referrer-policy']).toBe('no-referrer');
    }
    // Each vendor module is an ES module (what the import map and `type="module"` need).
    for (const vendor of ['preact', 'hooks', 'htm']) {
      const { body } = await (
        routes[`GET ${CONSOLE_PATH}/vendor/${vendor}.js`] as () => Promise<{ body: string }>
      )();
      expect([vendor, /\bexport\s*(\{|default\b)/.test(body)]).toEqual([vendor, true]);
    }
  });

  it("let in the page's import map by its hash, and no other inline script", async () => {
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(PAGE)?.[1] ?? '';
    expect(importMap).toContain('"preact"');
    const hash = `'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
    expect(inlineScriptHashes(PAGE)).toEqual([hash]);
    const page = await (
      consoleRoutes()[`GET ${CONSOLE_PATH}`] as () => Promise<{ headers?: Record<string, string> }>
    )();
    expect(page.headers?.['content-security-policy']).toContain(`script-src 'self' ${hash};`);
    expect(consoleHeaders('text/css')['content-security-policy']).toContain("script-src 'self';");
  });

  it('put the admin token in the address fragment, encoded', () => {
    expect(consoleUrl('http://127.0.0.1:4000', 'a b/c#d')).toBe(
      'http://127.0.0.1:4000/console#token=a%20b%2Fc%23d',
    );
  });
});
