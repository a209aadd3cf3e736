import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue } from 'axe-core';
import type { Page } from 'playwright-core';

// The accessibility check of every portal page: axe-core, run inside the page the browser test
// has open. The script is evaluated through the DevTools protocol rather than added as a <script>
// element, so the portal's Content-Security-Policy (no inline script) does not stop it.

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** The impacts that fail a page. */
export const FAILING_IMPACTS: readonly ImpactValue[] = ['serious', 'critical'];

export interface AxeFinding {
  readonly rule: string;
  readonly impact: string;
  readonly help: string;
  /** CSS selectors of the offending elements (the first few). */
  readonly targets: readonly string[];
}

/** Runs axe-core (WCAG 2.1 A and AA, and best practices) on the open page. */
export async function axeFindings(
  page: Page,
  impacts: readonly ImpactValue[] = FAILING_IMPACTS,
): Promise<AxeFinding[]> {
  // Once per loaded document: a page checked again (at another width) keeps it.
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  // An expression string: the test program is compiled without the DOM library.
  // Only the violations are read: the other result types keep one node each instead of every
  // node that passed, which spares axe a CSS selector for each of them.
  const options = { runOnly: { type: 'tag', values: AXE_TAGS }, resultTypes: ['violations'] };
  const results = await page.evaluate<AxeResults>(`axe.run(document, ${JSON.stringify(options)})`);
  return results.violations
    .filter((v) => v.impact !== undefined && v.impact !== null && impacts.includes(v.impact))
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
}

/** Fails with the findings listed when the open page has a serious or critical violation. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  const findings = await axeFindings(page);
  assert.deepEqual(
    findings,
    [],
    `${label} (${page.url()}) has accessibility violations:\n${JSON.stringify(findings, null, 2)}`,
  );
}
