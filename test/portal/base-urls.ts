import type { BrowserContext } from 'playwright-core';

// The base URL each browser context of the portal tests was opened with (newPage in browser.ts),
// for helpers that are handed a page (signIn in portal-harness.ts). Kept apart from browser.ts so
// that importing it does not load the browser.

const baseUrls = new WeakMap<BrowserContext, string>();

export function rememberBaseUrl(context: BrowserContext, baseUrl: string): void {
  baseUrls.set(context, baseUrl);
}

/** The base URL a context from newPage was opened with. */
export function baseUrlOf(context: BrowserContext): string {
  const baseUrl = baseUrls.get(context);
  if (baseUrl === undefined) throw new Error('not a context opened by newPage');
  return baseUrl;
}
