/**
 * The console: the web page the local stack serves at `/console` (topics, subscriptions with their
 * health, each subscription's message log and dead letters, live counters). It is the static
 * files of `console/` and the preact and htm modules as their packages ship them, wired by the
 * page's import map: no build step. The page and its files hold no secret, so they are served
 * without the admin token; the page sends the token, which `gridwire start` prints in the URL's
 * fragment (never sent to a server), as the bearer token of every admin API call it makes.
 * Local only ([console.md](../docs/console.md)): the deployed admin API takes IAM signatures.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LocalAnswer } from './gateway';

/** Where the local stack serves the console. */
export const CONSOLE_PATH = '/console';

/** The page's own files (`console/` beside `local/`, here and in the package). */
const CONSOLE_DIR = join(__dirname, '..', 'console');

const JAVASCRIPT = 'text/javascript; charset=utf-8';

interface Asset {
  /** The file's path, resolved when it is first asked for. */
  file: () => string;
  contentType: string;
}

/** The page's own modules: the shell (`app.js`) and the parts it imports. */
const PAGE_MODULES = ['app.js', 'common.js', 'log.js', 'dead-letters.js'] as const;

/** The page's files by their path under `/console/`; the vendor modules from their packages. */
const ASSETS: Readonly<Record<string, Asset>> = {
  ...Object.fromEntries(
    PAGE_MODULES.map((name) => [name, { file: () => join(CONSOLE_DIR, name), contentType: JAVASCRIPT }]),
  ),
  'style.css': { file: () => join(CONSOLE_DIR, 'style.css'), contentType: 'text/css; charset=utf-8' },
  // Each package's ES module build: preact's and its hooks' `.mjs` (what their exports give),
  // and htm's browser module beside its CommonJS entry (its exports map has no path to it that
  // Node resolves).
  'vendor/preact.js': { file: () => require.resolve('preact'), contentType: JAVASCRIPT },
  'vendor/hooks.js': { file: () => require.resolve('preact/hooks'), contentType: JAVASCRIPT },
  'vendor/htm.js': {
    file: () => join(dirname(require.resolve('htm')), 'htm.module.js'),
    contentType: JAVASCRIPT,
  },
};

const PAGE_FILE = () => join(CONSOLE_DIR, 'index.html');

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

/**
 * The headers of every console answer: scripts, styles and API calls from this origin only
 * (and the page's own inline import map by its hash), no framing, no referrer, no sniffing.
 */
export function consoleHeaders(
  contentType: string,
  scriptHashes: readonly string[] = [],
): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': [
      "default-src 'none'",
      `script-src ${["'self'", ...scriptHashes].join(' ')}`,
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

/** The page. */
async function page(): Promise<LocalAnswer> {
  const html = await readFile(PAGE_FILE(), 'utf8');
  return {
    status: 200,
    body: html,
    headers: consoleHeaders('text/html; charset=utf-8', inlineScriptHashes(html)),
  };
}

/** One of the page's files. */
async function asset({ file, contentType }: Asset): Promise<LocalAnswer> {
  return { status: 200, body: await readFile(file(), 'utf8'), headers: consoleHeaders(contentType) };
}

/**
 * The console's routes for the gateway, by `METHOD /path`, served without the admin token:
 * `GET /console` (and `/console/`) and `GET /console/<file>` for each of its files. Any other
 * path is not among them (a 404).
 */
export function consoleRoutes(): Record<string, () => Promise<LocalAnswer>> {
  return {
    [`GET ${CONSOLE_PATH}`]: page,
    [`GET ${CONSOLE_PATH}/`]: page,
    ...Object.fromEntries(
      Object.entries(ASSETS).map(([path, found]) => [`GET ${CONSOLE_PATH}/${path}`, () => asset(found)]),
    ),
  };
}

/**
 * The console's URL with the admin token in its fragment: a browser keeps the fragment to
 * itself, so the token never reaches a server or its logs.
 */
export const consoleUrl = (apiUrl: string, adminToken: string): string =>
  `${apiUrl}${CONSOLE_PATH}#token=${encodeURIComponent(adminToken)}`;
