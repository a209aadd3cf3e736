import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

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

/**
 * Keys of a list read by key: the next link carries `next` and the prev link `prev` (for example
 * `{ before: '812' }`); every link drops the request's own values of `names`.
 */
export interface PageKeys {
  readonly names: readonly string[];
  readonly next?: Readonly<Record<string, string>>;
  readonly prev?: Readonly<Record<string, string>>;
  /** A page read by key found the end of the list that way: no next (or prev) link. */
  readonly noNext?: boolean;
  readonly noPrev?: boolean;
  /**
   * Whether a page follows (precedes) this one, when the list knows it better than its total
   * does (a filtered eSIM list counts its matches only so far): it decides the next (prev) link.
   */
  readonly hasNext?: boolean;
  readonly hasPrev?: boolean;
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

// The links keep the query parameters the route declares, except page, which they set, and
// api_key, which never appears in a link: links end up in logs, proxies and browser histories.
// Unknown parameters are dropped, so a request cannot make the header echo what it likes (or
// grow it past what proxies accept).

function isApiKey(name: string): boolean {
  return name.toLowerCase().startsWith('api_key');
}

function pageUrl(
  base: string,
  path: string,
  params: URLSearchParams,
  page: number,
  known: ReadonlySet<string>,
  keys?: { readonly names: readonly string[]; readonly values?: Readonly<Record<string, string>> },
): string {
  const dropped = new Set(keys?.names.map((name) => name.toLowerCase()) ?? []);
  const next = new URLSearchParams();
  for (const [name, value] of params) {
    const lower = name.toLowerCase();
    if (lower !== 'page' && !isApiKey(name) && known.has(lower) && !dropped.has(lower))
      next.append(name, value);
  }
  for (const [name, value] of Object.entries(keys?.values ?? {})) next.append(name, value);
  next.append('page', String(page));
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
  const last = Math.max(1, Math.ceil(total / perPage));
  const links: string[] = [];
  const names = keys?.names ?? [];
  const at = (n: number, values?: Readonly<Record<string, string>>) =>
    pageUrl(base, path, params, n, known, { names, ...(values === undefined ? {} : { values }) });
  if (keys?.hasNext ?? (page < last && keys?.noNext !== true)) {
    links.push(`<${at(page + 1, keys?.next)}>; rel="next"`);
  }
  if (keys?.hasPrev ?? (page > 1 && keys?.noPrev !== true)) {
    // A page past the end has no neighbour's key: its prev link is the last page by number.
    const prev = Math.max(1, Math.min(page - 1, last));
    links.push(
      `<${at(prev, prev === page - 1 || keys?.hasPrev !== undefined ? keys?.prev : undefined)}>; rel="prev"`,
    );
  }
  links.push(`<${at(1)}>; rel="first"`);
  links.push(`<${at(last)}>; rel="last"`);
  return links.join(', ');
}
