import type { Browser, Page } from 'playwright-core';
import type { KeptPage } from './browser.js';
import { browserOnly, keptPage, sharedBrowser } from './browser.js';
import type { DatabaseKind } from '../databases.js';
import type { PortalOptions, PortalServer } from './portal-harness.js';
import { startPortal } from './portal-harness.js';

// What a portal suite starts before its tests and closes after them: the portal server, with the
// process's Chromium (browser.ts, started once per process and closed when its tests end) and
// the suite's page on the portal (portalPage), one context kept for all its tests.
// `openPortal` suits a suite that mixes HTTP tests with browser tests (those skip without
// Chromium); `openPortalWithBrowser` a suite that is browserOnly as a whole.
//
//   before(async () => ({ portal, browser } = await openPortal(kind)));
//   after(() => closePortal(portal));

/** The portal, with Chromium when it is installed (undefined otherwise). */
export async function openPortal(
  kind: DatabaseKind,
  options: PortalOptions = {},
): Promise<{ portal: PortalServer; browser: Browser | undefined }> {
  const portal = await startPortal(kind, options);
  const browser = browserOnly.skip === false ? await sharedBrowser() : undefined;
  return { portal, browser };
}

/** The portal and Chromium, for a suite that only runs where Chromium is installed. */
export async function openPortalWithBrowser(
  kind: DatabaseKind,
  options: PortalOptions = {},
): Promise<{ portal: PortalServer; browser: Browser }> {
  const portal = await startPortal(kind, options);
  return { portal, browser: await sharedBrowser() };
}

const pages = new WeakMap<PortalServer, KeptPage>();

/**
 * The suite's page on the portal for the next test (browser.ts keptPage): the same context for
 * every test of the suite, signed out and on about:blank; relative URLs resolve on the portal.
 */
export async function portalPage(
  portal: PortalServer,
  options: { width?: number; height?: number } = {},
): Promise<Page> {
  let kept = pages.get(portal);
  if (kept === undefined) {
    kept = keptPage(await sharedBrowser(), portal.baseUrl);
    pages.set(portal, kept);
  }
  return kept.page(options);
}

/** Closes the suite's page, the portal and its database; the browser stays for other suites. */
export async function closePortal(portal: PortalServer): Promise<void> {
  await pages.get(portal)?.close();
  pages.delete(portal);
  await portal.close();
}
