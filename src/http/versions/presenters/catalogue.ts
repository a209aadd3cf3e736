import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { CatalogueItem } from '../../../domain/catalogue/catalogue-view.js';
import { BundleSchema } from '../../routes/catalogue/bundle-schema.js';
import { BundleAnswer } from '../../routes/catalogue/get.js';
import { CataloguePageV21 } from '../../routes/catalogue/list.js';
import { catalogueArray } from '../../routes/catalogue/page-json.js';
import { pagingHeaders } from '../../paging.js';
import { toMajor } from '../money.js';
import { presenter } from '../presenter.js';
import type { InCurrency } from '../results.js';
import type { PageCounters, PagePresenter } from '../version.js';
import { money, reshaped } from '../shapes/schema-tools.js';

// The catalogue. v2.1: a page is a bare array of bundles. v2.2: the envelope clients read,
// {bundles, pageCount, rows, pageSize}. v2.4: price in major units. The list route joins a page
// from its bundles' prebuilt JSON (routes/catalogue/page-json.ts) and a version writes the page
// in its shape as it is joined: the envelope around the bundles, each price rewritten in place,
// into one buffer, with no parse and no string decoding.

export const BundleV24 = reshaped(BundleSchema, {
  price: money('Price per bundle'),
});

/** The page envelope around a version's bundle schema. */
export function cataloguePage(bundle: TSchema) {
  return Type.Object(
    {
      bundles: Type.Array(bundle, { description: 'One page of bundles.' }),
      pageCount: Type.Integer({ description: 'Pages of this size over all matching bundles.' }),
      rows: Type.Integer({ description: 'Bundles matching the filters, over all pages.' }),
      pageSize: Type.Integer({ description: 'Bundles per page (perPage).' }),
    },
    {
      description: 'One page of bundles and the paging counters.',
      headers: pagingHeaders('Number of bundles matching the filters, over all pages.'),
    },
  );
}

const PRICE = Buffer.from('"price":');
const OPEN = Buffer.from('{"bundles":[');
const COMMA = 0x2c;

/** The end of the envelope, after the page's last bundle. */
function close({ rows, pageSize }: PageCounters): Buffer {
  const pageCount = Math.ceil(rows / pageSize);
  return Buffer.from(`],"pageCount":${pageCount},"rows":${rows},"pageSize":${pageSize}}`);
}

/** Where `key` last occurs in `bytes`, or -1: a bundle's price is its last field but one. */
function lastIndexOf(bytes: Buffer, key: Buffer): number {
  next: for (let at = bytes.length - key.length; at >= 0; at -= 1) {
    for (let k = 0; k < key.length; k += 1) {
      if (bytes[at + k] !== key[k]) continue next;
    }
    return at;
  }
  return -1;
}

// A catalogue has few distinct prices: each is written in major units once per currency.
const MAJOR_TEXTS_MAX = 10_000;
const majorTexts = new Map<string, Map<number, string>>();

function majorText(minor: number, currency: string): string {
  let texts = majorTexts.get(currency);
  if (texts === undefined) {
    texts = new Map();
    majorTexts.set(currency, texts);
  }
  let text = texts.get(minor);
  if (text === undefined) {
    text = String(toMajor(minor, currency));
    if (texts.size >= MAJOR_TEXTS_MAX) texts.clear();
    texts.set(minor, text);
  }
  return text;
}

/** A bundle's price: where its digits are in the bundle's JSON, and its text in major units. */
interface Price {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * The price of a bundle's JSON, found by its key (which inside a JSON string would have its
 * quotes escaped, so it can only be the price's).
 */
function priceOf(item: Buffer, currency: string): Price | undefined {
  const at = lastIndexOf(item, PRICE);
  if (at < 0) return undefined;
  const start = at + PRICE.length;
  let end = start;
  const negative = item[end] === 0x2d;
  if (negative) end += 1;
  let minor = 0;
  for (let c = item[end] ?? 0; c >= 0x30 && c <= 0x39; c = item[end] ?? 0) {
    minor = minor * 10 + (c - 0x30);
    end += 1;
  }
  return { start, end, text: majorText(negative ? -minor : minor, currency) };
}

/**
 * The envelope around the page's bundles, written into one buffer of the exact size; with a
 * currency, each bundle's `"price":<minor>` as `"price":<major>`. Each bundle's bytes are copied
 * whole and its price's digits replaced in the copy: no buffer, view or string per bundle.
 */
function envelope(
  items: readonly Buffer[],
  counters: PageCounters,
  currency: string | undefined,
): Buffer {
  const end = close(counters);
  const prices: (Price | undefined)[] = [];
  let length = OPEN.length + end.length + Math.max(0, items.length - 1);
  for (const item of items) {
    length += item.length;
    if (currency === undefined) continue;
    const price = priceOf(item, currency);
    prices.push(price);
    if (price !== undefined) length += price.text.length - (price.end - price.start);
  }
  const out = Buffer.allocUnsafe(length);
  out.set(OPEN, 0);
  let to = OPEN.length;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as Buffer;
    if (i > 0) {
      out[to] = COMMA;
      to += 1;
    }
    out.set(item, to);
    const price = prices[i];
    if (price === undefined) {
      to += item.length;
      continue;
    }
    const { start, text } = price;
    // The rest of the bundle moves to just after the new price, then the price is written.
    out.copyWithin(to + start + text.length, to + price.end, to + item.length);
    for (let k = 0; k < text.length; k += 1) out[to + start + k] = text.charCodeAt(k);
    to += item.length + text.length - (price.end - start);
  }
  out.set(end, to);
  return out;
}

export const PAGE_V21: PagePresenter = {
  schema: CataloguePageV21,
  key: () => '',
  write: (items) => catalogueArray(items),
};

/** v2.2: the page in the envelope, its counters from the paging. */
export const PAGE_V22: PagePresenter = {
  schema: cataloguePage(BundleSchema),
  key: () => '',
  write: (items, counters) => envelope(items, counters, undefined),
};

/** v2.4: the same with each price in the caller's major units. */
export const PAGE_V24: PagePresenter = {
  schema: cataloguePage(BundleV24),
  key: (currency) => currency,
  write: (items, counters, currency) => envelope(items, counters, currency),
};

function bundleV21({ result: item }: InCurrency<CatalogueItem>): Static<typeof BundleSchema> {
  return {
    ...item,
    groups: [...item.groups],
    countries: [...item.countries],
    speed: [...item.speed],
    roamingEnabled: [...item.roamingEnabled],
  };
}

export const BUNDLE_V21 = presenter(BundleAnswer, bundleV21);

export const BUNDLE_V24 = presenter(BundleV24, (read: InCurrency<CatalogueItem>) => ({
  ...bundleV21(read),
  price: toMajor(read.result.price, read.currency),
}));
