import { badRequest } from '../../domain/errors/error-codes.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';

// Paging of the portal's lists: `?page=N` (1-based) with a fixed page size, and the
// "Previous / Page N of M / Next" links under a table, keeping the list's other query values.

export interface PortalPage {
  readonly number: number;
  readonly size: number;
  readonly offset: number;
}

const MAX_PAGE = 1_000_000;

const COUNT = new Intl.NumberFormat('en-US');

/** A count as people read it: 10,003. */
export function countOf(n: number): string {
  return COUNT.format(n);
}

/** A count with its noun, singular for one: '1 order', '10,003 orders'. */
export function countedNoun(n: number, singular: string, plural = `${singular}s`): string {
  return `${countOf(n)} ${n === 1 ? singular : plural}`;
}

/** The requested page; a value that is not a whole number from 1 is a 400. */
export function requestedPortalPage(raw: string | undefined, size: number): PortalPage {
  const value = raw === undefined || raw === '' ? '1' : raw;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1 || number > MAX_PAGE) {
    throw badRequest('page must be a whole number from 1');
  }
  return { number, size, offset: (number - 1) * size };
}

function hrefFor(path: string, query: Readonly<Record<string, string>>, page: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== '') params.set(key, value);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Links to the neighbouring pages; nothing when everything fits on one page. */
export function pageLinks(
  path: string,
  query: Readonly<Record<string, string>>,
  page: PortalPage,
  total: number,
): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / page.size));
  if (pages === 1 && page.number === 1) return html``;
  const previous =
    page.number > 1
      ? html`<a href="${hrefFor(path, query, page.number - 1)}" rel="prev">Previous</a>`
      : html``;
  const next =
    page.number < pages
      ? html`<a href="${hrefFor(path, query, page.number + 1)}" rel="next">Next</a>`
      : html``;
  return html`<nav class="pager" aria-label="Pages">
    ${previous} <span>Page ${countOf(page.number)} of ${countOf(pages)}</span> ${next}
  </nav>`;
}

/** Links to the neighbouring pages of a list read by key: Previous (`before`) and Next (`after`). */
export function keyLinks(
  path: string,
  query: Readonly<Record<string, string>>,
  keys: { readonly before?: string; readonly after?: string },
): SafeHtml {
  if (keys.before === undefined && keys.after === undefined) return html``;
  const href = (name: string, key: string) => {
    const params = new URLSearchParams();
    for (const [k, value] of Object.entries(query)) if (value !== '') params.set(k, value);
    params.set(name, key);
    return `${path}?${params.toString()}`;
  };
  const previous =
    keys.before === undefined
      ? html``
      : html`<a href="${href('before', keys.before)}" rel="prev">Previous</a>`;
  const next =
    keys.after === undefined
      ? html``
      : html`<a href="${href('after', keys.after)}" rel="next">Next</a>`;
  return html`<nav class="pager" aria-label="Pages">${previous} ${next}</nav>`;
}
