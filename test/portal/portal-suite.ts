import type { Browser } from 'playwright-core';
import { browserOnly, launchBrowser } from './browser.js';
import type { DatabaseKind } from '../databases.js';
import type { PortalOptions, PortalServer } from './portal-harness.js';
import { startPortal } from './portal-harness.js';

// What a portal suite starts before its tests and closes after them: the portal server, and the
// browser. `openPortal` suits a suite that mixes HTTP tests with browser tests (those skip
// without Chromium); `openPortalWithBrowser` a suite that is browserOnly as a whole.
//
//   before(async () => ({ portal, browser } = await openPortal(kind)));
//   after(() => closePortal(portal, browser));

/** The portal, with Chromium when it is installed (undefined otherwise). */
export async function openPortal(
  kind: DatabaseKind,
  options: PortalOptions = {},
): Promise<{ portal: PortalServer; browser: Browser | undefined }> {
  const portal = await startPortal(kind, options);
  const browser = browserOnly.skip === false ? await launchBrowser() : undefined;
  return { portal, browser };
}

/** The portal and Chromium, for a suite that only runs where Chromium is installed. */
export async function openPortalWithBrowser(
  kind: DatabaseKind,
  options: PortalOptions = {},
): Promise<{ portal: PortalServer; browser: Browser }> {
  const portal = await startPortal(kind, options);
  return { portal, browser: await launchBrowser() };
}

/** Closes the browser, then the portal and its database. */
export async function closePortal(
  portal: PortalServer,
  browser: Browser | undefined,
): Promise<void> {
  await browser?.close();
  await portal.close();
}
