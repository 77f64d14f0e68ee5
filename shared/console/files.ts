/**
 * The console's and portal's page and files, as the management function serves them (on AWS and
 * in the local stack alike): the static files of `console/` and the preact, htm and openapi-fetch
 * modules as their packages ship them, wired by the page's import map, with no build step. Run from the
 * sources (or the installed package) they are read from `console/` and the packages; in a
 * function's bundle from the `console/` folder bundling put beside it (`CONSOLE_BUNDLE_FILES`).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** The page's own modules: the shell (`app.js`) and the parts it imports. */
export const PAGE_MODULES = [
  'app.js',
  'common.js',
  'activity.js',
  'log.js',
  'dead-letters.js',
  'replays.js',
  'event-types.js',
  'counters.js',
  'portal.js',
  'signing.js',
  'endpoint-form.js',
] as const;

/** The vendor modules by their path under `/console/`, and where each package ships it. */
const VENDOR_MODULES: Readonly<Record<string, () => string>> = {
  // Each package's ES module build: preact's and its hooks' `.mjs` (what their exports give),
  // htm's browser module beside its CommonJS entry (its exports map has no path Node resolves),
  // and openapi-fetch's `.mjs` (the API's client; it imports nothing).
  'vendor/preact.js': () => require.resolve('preact'),
  'vendor/hooks.js': () => require.resolve('preact/hooks'),
  'vendor/htm.js': () => join(dirname(require.resolve('htm')), 'htm.module.js'),
  'vendor/openapi-fetch.js': () => require.resolve('openapi-fetch/dist/index.mjs'),
};

/** The page itself. */
export const PAGE_FILE = 'index.html';

/** Every file a bundle carries in its `console/` folder, by its path there. */
export const CONSOLE_BUNDLE_FILES = [PAGE_FILE, ...PAGE_MODULES, 'style.css', ...Object.keys(VENDOR_MODULES)];

export interface ConsoleFile {
  readonly text: string;
  readonly contentType: string;
}

/** Reads the page (`index.html`) and its files by their path under `/console/`. */
export interface ConsoleFiles {
  /** The file, or undefined when it is not one of the console's. */
  read(name: string): Promise<ConsoleFile | undefined>;
}

const contentTypeOf = (name: string): string =>
  name.endsWith('.html')
    ? 'text/html; charset=utf-8'
    : name.endsWith('.css')
      ? 'text/css; charset=utf-8'
      : JAVASCRIPT;

/** Where each file is, from the sources: `console/` and the vendor packages. */
function sourcePath(consoleDir: string, name: string): string | undefined {
  const vendor = VENDOR_MODULES[name];
  if (vendor !== undefined) return vendor();
  return CONSOLE_BUNDLE_FILES.includes(name) ? join(consoleDir, name) : undefined;
}

/**
 * The console's files: from `bundleDir` when it holds them (a function's bundle), else from the
 * sources' `console/` folder and the vendor packages. Each file is read once.
 */
export function consoleFiles(bundleDir: string = join(__dirname, 'console')): ConsoleFiles {
  const bundled = existsSync(join(bundleDir, PAGE_FILE));
  const sourcesDir = join(__dirname, '..', '..', 'console');
  const cache = new Map<string, Promise<ConsoleFile>>();
  return {
    read: (name) => {
      if (!CONSOLE_BUNDLE_FILES.includes(name)) return Promise.resolve(undefined);
      const path = bundled ? join(bundleDir, name) : sourcePath(sourcesDir, name);
      if (path === undefined) return Promise.resolve(undefined);
      let file = cache.get(name);
      if (file === undefined) {
        file = readFile(path, 'utf8').then((text) => ({ text, contentType: contentTypeOf(name) }));
        file.catch(() => cache.delete(name));
        cache.set(name, file);
      }
      return file;
    },
  };
}

/** Where bundling finds each file the bundle's `console/` folder holds (`CONSOLE_BUNDLE_FILES`). */
export function consoleSourcePaths(root: string): Record<string, string> {
  return Object.fromEntries(
    CONSOLE_BUNDLE_FILES.map((name) => [name, sourcePath(join(root, 'console'), name) as string]),
  );
}

/**
 * The `'sha256-...'` source of each inline script of `html` (the import map, which a browser
 * reads only inline), so the policy lets it in and no other inline script.
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
    .map(([, body]) => body ?? '')
    .filter((body) => body.trim() !== '')
    .map((body) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
}

export interface PagePolicy {
  /** Hashes of the page's inline scripts (its import map). */
  scriptHashes?: readonly string[];
  /** Origins that may frame the page (`frame-ancestors`); none: it may not be framed. */
  frameAncestors?: readonly string[];
  /** Origins images may come from beside the page's own (the portal's logo). */
  imageOrigins?: readonly string[];
}

/**
 * The headers of every console answer: scripts, styles and API calls from this origin only (and
 * the page's own inline import map by its hash), framing only by the origins named, no referrer,
 * no sniffing.
 */
export function consoleHeaders(contentType: string, policy: PagePolicy = {}): Record<string, string> {
  const frameAncestors = policy.frameAncestors ?? [];
  return {
    'content-type': contentType,
    'content-security-policy': [
      "default-src 'none'",
      `script-src ${["'self'", ...(policy.scriptHashes ?? [])].join(' ')}`,
      "style-src 'self'",
      "connect-src 'self'",
      `img-src ${["'self'", 'data:', ...(policy.imageOrigins ?? [])].join(' ')}`,
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${frameAncestors.length === 0 ? "'none'" : frameAncestors.join(' ')}`,
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}
