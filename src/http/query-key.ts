// Recognises a query parameter that carries, or tries to carry, an API key. A key in a URL ends
// up in proxy logs, browser history and Referer headers, so outside GET and HEAD (where the
// documented `api_key` parameter is accepted for browser use) any such parameter is refused, and
// every log line redacts it. "Such" is judged on the name as the query parser would see it and
// beyond: decoded (up to three times), Unicode-normalised, lower-cased and with every character
// other than letters and digits removed, so `API_KEY`, `Api-Key`, `api_key[]`, `api%5Fkey`,
// `apiKey` and `x-api-key` all count.

const MAX_DECODING_ROUNDS = 3;

function decoded(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  for (let round = 0; round < MAX_DECODING_ROUNDS; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(name);
    } catch {
      break;
    }
    if (next === name) break;
    name = next;
  }
  return name;
}

/** True when a (raw, possibly encoded) query parameter name looks like an API key. */
export function isKeyLikeName(raw: string): boolean {
  const letters = decoded(raw)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  return letters.startsWith('apikey') || letters.startsWith('xapikey');
}

/** The raw names of the query parameters of a URL (path and query, as in request.url). */
export function queryParameterNames(url: string): string[] {
  const start = url.indexOf('?');
  if (start === -1) return [];
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end === -1 ? undefined : end);
  return query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? part : part.slice(0, eq);
    });
}

/** The first query parameter of the URL whose name looks like an API key, if any. */
export function keyLikeQueryParameter(url: string): string | undefined {
  return queryParameterNames(url).find(isKeyLikeName);
}
