import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { badRequest } from '../domain/errors/error-codes.js';

// Paging of the list routes (GET /catalogue, /orders, /esims, /callbacks): the page and perPage
// query parameters, and the X-Total-Count and Link response headers.

export interface PagingLimits {
  /** Plural noun of the listed items, capitalised: "Bundles per page, ...". */
  readonly items: string;
  readonly defaultPerPage: number;
  readonly maxPerPage: number;
  /** What a page past the end answers, e.g. "returns []" or "is empty". */
  readonly pastEnd: string;
}

/** The page and perPage query parameters, to spread into a route's querystring schema. */
export function pagingQuery(limits: PagingLimits) {
  const { items, defaultPerPage, maxPerPage, pastEnd } = limits;
  return {
    page: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,8}$',
        default: '1',
        description: `Page to return, a whole number from 1. A page past the end ${pastEnd}.`,
      }),
    ),
    perPage: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxPerPage,
        default: defaultPerPage,
        description: `${items} per page, 1 to ${maxPerPage} (default ${defaultPerPage}).`,
      }),
    ),
  };
}

/** The response headers of a paged list, for its 200 schema; `total` describes X-Total-Count. */
export function pagingHeaders(total: string) {
  return {
    'X-Total-Count': { type: 'integer', description: total },
    Link: {
      type: 'string',
      description:
        'RFC 8288 links to the next, prev, first and last pages, keeping the other query parameters.',
    },
  };
}

export interface Page {
  readonly page: number;
  readonly perPage: number;
  /** Rows to skip: (page - 1) * perPage. */
  readonly offset: number;
}

/** The page a validated query asks for. */
export function requestedPage(
  query: { readonly page?: string; readonly perPage?: number },
  defaultPerPage: number,
): Page {
  const page = Number(query.page ?? '1');
  const perPage = query.perPage ?? defaultPerPage;
  return { page, perPage, offset: (page - 1) * perPage };
}

/** The last page by number of `total` rows: 1 when there are none. */
export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/**
 * Where a link leads: a page by number, or, in a list read by key, the page beside a key (for
 * example `{ before: '812' }`), which carries no page number.
 */
export type PageLink =
  { readonly page: number } | { readonly key: Readonly<Record<string, string>> };

/**
 * The links of a list read by key, decided by the rows the page read: a next (prev) link where a
 * page lies that way, none where none does; the last link where the list reads its end by key
 * (the last page by number otherwise). Every link drops the request's own values of `names`.
 */
export interface PageKeys {
  readonly names: readonly string[];
  readonly next?: PageLink;
  readonly prev?: PageLink;
  readonly last?: PageLink;
}

/**
 * The key a request of a list read by key gives, one of `names` (after, before), or undefined.
 * Two keys, or a key beside a page other than 1, are a 400 naming both: a page is placed by its
 * key or by its number, and the links by key carry no number.
 */
export function requestedKey<Name extends string>(
  query: { readonly page?: string } & { readonly [K in Name]?: string },
  names: readonly [Name, Name],
): Name | undefined {
  const given = names.filter((name) => query[name] !== undefined);
  const [first, second] = given;
  if (second !== undefined) {
    throw badRequest(`query parameters ${first} and ${second}: give one (a Link header sets one)`);
  }
  if (first !== undefined && query.page !== undefined && query.page !== '1') {
    throw badRequest(
      `query parameters page and ${first}: give one (a page read by key has no number, and the links by key carry none)`,
    );
  }
  return first;
}

/** Sets X-Total-Count and Link on the reply of a paged list. */
export function setPagingHeaders(
  reply: FastifyReply,
  base: string,
  url: string,
  page: Page,
  total: number,
  keys?: PageKeys,
): FastifyReply {
  const known = declaredQuery(reply);
  return reply
    .header('x-total-count', String(total))
    .header('link', pagingLinks(base, url, page.page, page.perPage, total, known, keys));
}

/** The query parameters the route declares, lower-cased: only they are carried into links. */
function declaredQuery(reply: FastifyReply): ReadonlySet<string> {
  const schema = reply.request.routeOptions.schema?.querystring as
    { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(schema?.properties ?? {}).map((name) => name.toLowerCase()));
}

// The links keep the query parameters the route declares, except page and the keys, which they
// set, and api_key, which never appears in a link: links end up in logs, proxies and browser
// histories. Unknown parameters are dropped, so a request cannot make the header echo what it
// likes (or grow it past what proxies accept).

function isApiKey(name: string): boolean {
  return name.toLowerCase().startsWith('api_key');
}

function linkUrl(
  base: string,
  path: string,
  params: URLSearchParams,
  known: ReadonlySet<string>,
  dropped: ReadonlySet<string>,
  link: PageLink,
): string {
  const next = new URLSearchParams();
  for (const [name, value] of params) {
    const lower = name.toLowerCase();
    if (!isApiKey(name) && known.has(lower) && !dropped.has(lower)) next.append(name, value);
  }
  if ('page' in link) next.append('page', String(link.page));
  else for (const [name, value] of Object.entries(link.key)) next.append(name, value);
  return `${base}${path}?${next.toString()}`;
}

/** The Link header value (RFC 8288) for a page: next and prev where they exist, first and last always. */
function pagingLinks(
  base: string,
  url: string,
  page: number,
  perPage: number,
  total: number,
  known: ReadonlySet<string>,
  keys?: PageKeys,
): string {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const params = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const last = lastPage(total, perPage);
  const dropped = new Set(['page', ...(keys?.names ?? [])].map((name) => name.toLowerCase()));
  const to = (link: PageLink) => linkUrl(base, path, params, known, dropped, link);
  // A list read by numbers alone: its neighbours by number, a page past the end linking back to
  // the last page.
  const byNumber = (): Pick<PageKeys, 'next' | 'prev'> => ({
    ...(page < last ? { next: { page: page + 1 } } : {}),
    ...(page > 1 ? { prev: { page: Math.min(page - 1, last) } } : {}),
  });
  const { next, prev } = keys ?? byNumber();
  const links: string[] = [];
  if (next !== undefined) links.push(`<${to(next)}>; rel="next"`);
  if (prev !== undefined) links.push(`<${to(prev)}>; rel="prev"`);
  links.push(`<${to({ page: 1 })}>; rel="first"`);
  links.push(`<${to(keys?.last ?? { page: last })}>; rel="last"`);
  return links.join(', ');
}
