import querystring from 'fast-querystring';

// The query string parser of the app (the router's `querystringParser`). It is the router's own
// parser, with one thing more: a query string whose percent-encoding is broken (`%ff`, which is
// no UTF-8; `%E0%A4%A`, cut short; `%zz`) is marked, so the input guard answers 400 naming it
// (input-guard.ts), as a broken path already is. The parser alone would hand such a value on as
// its raw text, and `description=%ff` would then be searched for as those three characters.
// The parser may not throw: it runs inside the router's lookup, outside any request's handling.

/** Set on a parsed query whose percent-encoding does not decode. */
export const MALFORMED_QUERY = Symbol('malformed query string');

export type ParsedQuery = Record<string, unknown> & { [MALFORMED_QUERY]?: true };

function decodes(query: string): boolean {
  try {
    decodeURIComponent(query);
    return true;
  } catch {
    return false;
  }
}

export function parseQueryString(query: string): ParsedQuery {
  if (query.length === 0) return {};
  const parsed = querystring.parse(query) as ParsedQuery;
  if (query.includes('%') && !decodes(query)) parsed[MALFORMED_QUERY] = true;
  return parsed;
}
