// Paging links for GET /catalogue (RFC 8288). They keep every query parameter of the request
// except page, which they set, and api_key, which never appears in a link: links end up in logs,
// proxies and browser histories.

function isApiKey(name: string): boolean {
  return name.toLowerCase().startsWith('api_key');
}

function pageUrl(base: string, path: string, params: URLSearchParams, page: number): string {
  const next = new URLSearchParams();
  for (const [name, value] of params) {
    if (name !== 'page' && !isApiKey(name)) next.append(name, value);
  }
  next.append('page', String(page));
  return `${base}${path}?${next.toString()}`;
}

/** The Link header value for a page: next and prev where they exist, first and last always. */
export function pagingLinks(
  base: string,
  url: string,
  page: number,
  perPage: number,
  total: number,
): string {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const params = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const last = Math.max(1, Math.ceil(total / perPage));
  const links: string[] = [];
  if (page < last) links.push(`<${pageUrl(base, path, params, page + 1)}>; rel="next"`);
  if (page > 1)
    links.push(`<${pageUrl(base, path, params, Math.min(page - 1, last))}>; rel="prev"`);
  links.push(`<${pageUrl(base, path, params, 1)}>; rel="first"`);
  links.push(`<${pageUrl(base, path, params, last)}>; rel="last"`);
  return links.join(', ');
}
