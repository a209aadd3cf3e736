import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { formatBytes, formatDateTime, formatMoney } from '../format.js';

// What the Overview, Billing and API & callbacks pages share: how money, times and data are
// shown, and the pager of their tables.

/** How a page body shows values: the organisation's currency and the reader's time zone. */
export interface Shown {
  readonly currency: string;
  readonly timeZone: string;
}

export const money = (minor: number, shown: Shown): string => formatMoney(minor, shown.currency);
export const when = (at: string, shown: Shown): string =>
  at === '' ? '—' : formatDateTime(at, shown.timeZone);
/** Bytes as MB or GB (decimal, as the catalogue counts). */
export const data = (bytes: number): string => formatBytes(bytes / 1_000_000);

/** Previous / next links of a paged table, keeping the other query parameters. */
export function pager(
  path: string,
  page: number,
  perPage: number,
  total: number,
  label: string,
): SafeHtml {
  const last = Math.max(1, Math.ceil(total / perPage));
  if (last === 1) return html``;
  const link = (to: number, text: string, rel: string) =>
    html`<a href="${path}?page=${to}" rel="${rel}">${text}</a>`;
  return html`<nav class="pager" aria-label="${label} pages">
    ${page > 1 ? link(page - 1, 'Previous', 'prev') : ''}
    <span>Page ${page} of ${last}</span>
    ${page < last ? link(page + 1, 'Next', 'next') : ''}
  </nav>`;
}

/** The `page` query parameter: a whole number from 1, else 1. */
export function pageParam(raw: unknown): number {
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,6}$/.test(raw) ? Number(raw) : 1;
  return n;
}
