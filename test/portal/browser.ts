import { existsSync } from 'node:fs';
import { after } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { rememberBaseUrl } from './base-urls.js';

// The browser of the portal tests: Debian's chromium, driven by playwright-core, headless. No
// browser is ever downloaded. Without /usr/bin/chromium the browser tests are SKIPPED with a
// loud line, unless CI=true, where a missing browser fails the run (.ci/run installs it).
// A test process starts Chromium once, when a suite first asks for it (sharedBrowser), and closes
// it when the process's tests are done. A suite keeps one context and page for its tests
// (keptPage), handed to each test signed out, so no cookie crosses from one test to another; a
// test that needs a second person at once opens another context (newPage).

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const browserAvailable = existsSync(CHROMIUM_PATH);

if (!browserAvailable) {
  const line = '!'.repeat(78);
  const message = `${line}\n!! ${CHROMIUM_PATH} is missing: the portal's browser tests are SKIPPED.\n!! Install it with: apt-get install -y --no-install-recommends chromium\n${line}`;
  if (process.env['CI'] === 'true') throw new Error(`${message}\nCI requires the browser.`);
  process.stderr.write(message + '\n');
}

/** Options for node:test: `test('…', browserOnly, async () => …)` skips without a browser. */
export const browserOnly = { skip: browserAvailable ? false : `${CHROMIUM_PATH} is missing` };

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

let shared: Promise<Browser> | undefined;

/** The process's Chromium, started on first use (again if it went away). */
export async function sharedBrowser(): Promise<Browser> {
  const current = shared;
  if (current !== undefined) {
    const browser = await current.catch(() => undefined);
    if (browser?.isConnected() === true) return browser;
  }
  const launching = launchBrowser();
  shared = launching;
  return launching;
}

async function closeShared(): Promise<void> {
  const browser = await shared?.catch(() => undefined);
  shared = undefined;
  await browser?.close();
}

// Registered when this module loads, at the top level of the test file: it runs once, after all
// of the process's tests. A process that runs several files and ends itself calls the shared
// clean-ups instead (the same registry as test/databases.ts).
after(closeShared);
const registry = globalThis as { [key: symbol]: (() => Promise<void>)[] | undefined };
(registry[Symbol.for('esim.test.cleanups')] ??= []).push(closeShared);

const STUCK_MS = 180_000;

/** A fresh context (its own cookies) whose relative URLs resolve against baseUrl. */
export async function newPage(
  browser: Browser,
  baseUrl: string,
  options: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  });
  // Playwright's own 30 s per action or navigation is a wall-clock budget that a loaded machine
  // overruns; the waits follow the page (a selector, a URL), and this bound only ends a stuck one.
  context.setDefaultTimeout(STUCK_MS);
  rememberBaseUrl(context, baseUrl);
  const page = await context.newPage();
  return { context, page };
}

export interface KeptPage {
  /**
   * The suite's page for the next test: signed out (its cookies cleared), alone in its context
   * (any window a test opened is closed), with no route or dialog handler left, the viewport asked
   * for, on about:blank.
   */
  page(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * One context and page for the tests of a suite, reset between them. A new context (and the
 * renderer process it starts) costs Chromium about 0.5 s of processor time and a loaded machine
 * a second or more of wall time; the reset costs a blank navigation. The portal keeps nothing in
 * the browser's storage but cookies, which the reset clears.
 */
export function keptPage(browser: Browser, baseUrl: string): KeptPage {
  let open: { context: BrowserContext; page: Page } | undefined;
  return {
    async page(options = {}) {
      const size = { width: options.width ?? 1280, height: options.height ?? 800 };
      if (open === undefined || open.page.isClosed() || !browser.isConnected()) {
        await open?.context.close().catch(() => undefined);
        open = await newPage(browser, baseUrl, size);
        return open.page;
      }
      const { context, page } = open;
      await Promise.all(context.pages().map((p) => (p === page ? undefined : p.close())));
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      page.removeAllListeners('dialog');
      await page.goto('about:blank');
      await context.clearCookies();
      const current = page.viewportSize();
      if (current?.width !== size.width || current.height !== size.height) {
        await page.setViewportSize(size);
      }
      return page;
    },
    async close() {
      const closing = open;
      open = undefined;
      await closing?.context.close();
    },
  };
}
