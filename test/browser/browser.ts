/**
 * What the browser tests share: Debian's headless Chromium (`scripts/ensure-browser.sh` installs
 * it) launched through playwright-core, a page watched for its errors and requests, sessions
 * minted with the stack's admin token (`POST /admin/sessions`), and the check that a screenshot
 * shows a page rather than a blank.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { TestStack } from '../support/local-stack';

/** Where `scripts/ensure-browser.sh` puts Chromium. */
const CHROMIUM = '/usr/bin/chromium';
/** As the machine notes say: no sandbox as root, and no calls to the network from the browser. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Generous: a busy 2-core machine runs the stack, the webhook and the browser together. */
export const WAIT_MS = 30_000;

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });

/** A browser with one page open and watched, and a folder for its screenshots. */
export interface OpenBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  watched: Watched;
  screenshotDir: string;
}

/** Launches the browser and opens a watched page at the size the screenshots are taken at. */
export async function openBrowser(screenshotPrefix: string): Promise<OpenBrowser> {
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched = watch(page);
  const screenshotDir = await mkdtemp(join(tmpdir(), screenshotPrefix));
  return { browser, context, page, watched, screenshotDir };
}

/** Closes what `openBrowser` opened (whatever of it was opened) and removes the screenshots. */
export async function closeBrowser(open: Partial<OpenBrowser>): Promise<void> {
  await open.browser?.close();
  if (open.screenshotDir !== undefined) await rm(open.screenshotDir, { recursive: true, force: true });
}

/** What a page did: its uncaught errors and content security policy messages, and its requests. */
export interface Watched {
  /** Uncaught errors of the page and messages about its content security policy. */
  problems: string[];
  /** Every URL the page asked for, with its method and the authorization header it carried. */
  requests: { url: string; method: string; authorization: string | undefined }[];
}

export function watch(page: Page): Watched {
  const watched: Watched = { problems: [], requests: [] };
  page.on('pageerror', (error) => watched.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) watched.problems.push(`console: ${message.text()}`);
  });
  page.on('request', (request) =>
    watched.requests.push({
      url: request.url(),
      method: request.method(),
      authorization: request.headers().authorization,
    }),
  );
  return watched;
}

export type Scope =
  | { role: 'operator' }
  | { role: 'portal'; topic?: string; namespace?: string; labels?: string[]; permissions?: string[] };

/** A session token of `scope`, made with the stack's admin token. */
export async function mintSession(api: TestStack, scope: Scope, expiresInMinutes?: number): Promise<string> {
  const answer = await api.call('POST', '/admin/sessions', {
    scope,
    ...(expiresInMinutes === undefined ? {} : { expiresInMinutes }),
  });
  if (answer.status !== 201) throw new Error(`session: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.token as string;
}

/** A 401 as the console's API answers a session past its end. */
export const SESSION_EXPIRED = {
  status: 401,
  contentType: 'application/json',
  body: JSON.stringify({
    error: { code: 'SessionExpired', message: 'The session has expired: ask for a new link.' },
  }),
};

/**
 * Takes a full-page screenshot into `file` and checks it, decoded as PNG, is a page: at least
 * 1280 by 600 pixels, many colours, and a good share of pixels not the background's.
 */
export async function expectNotBlank(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: file, fullPage: true });
  const png = PNG.sync.read(await readFile(file));
  expect(png.width).toBeGreaterThanOrEqual(1280);
  expect(png.height).toBeGreaterThanOrEqual(600);
  const counts = new Map<number, number>();
  for (let offset = 0; offset < png.data.length; offset += 4) {
    const colour = png.data.readUInt32BE(offset);
    counts.set(colour, (counts.get(colour) ?? 0) + 1);
  }
  const pixels = png.width * png.height;
  const background = Math.max(...counts.values());
  // Text, badges and borders: many colours, and a good share of pixels not the background's.
  expect(counts.size).toBeGreaterThan(50);
  expect((pixels - background) / pixels).toBeGreaterThan(0.1);
}
