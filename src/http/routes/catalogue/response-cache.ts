// Catalogue answers are a pure function of the catalogue version and the normalised query (which
// includes the caller's groups), and integrators ask the same few questions over and over. Each
// app keeps the serialised bodies of recent answers, bounded by count and bytes; an entry is used
// only while catalogue_state.version is unchanged, which every request reads, so an import by any
// process is visible to the very next request.

export interface CachedPage {
  readonly version: number;
  readonly body: Buffer;
  readonly total: number;
}

export interface ResponseCache {
  get(key: string, version: number): CachedPage | undefined;
  set(key: string, page: CachedPage): void;
}

const DISABLED: ResponseCache = { get: () => undefined, set: () => undefined };

export function createResponseCache(maxEntries: number, maxBytes: number): ResponseCache {
  if (maxEntries <= 0) return DISABLED;
  // A Map iterates in insertion order, so re-inserting on use makes the first key the least
  // recently used one.
  const entries = new Map<string, CachedPage>();
  let bytes = 0;
  const remove = (key: string, page: CachedPage): void => {
    entries.delete(key);
    bytes -= page.body.length;
  };
  return {
    get(key, version) {
      const page = entries.get(key);
      if (page === undefined) return undefined;
      remove(key, page);
      if (page.version !== version) return undefined;
      entries.set(key, page);
      bytes += page.body.length;
      return page;
    },
    set(key, page) {
      if (page.body.length > maxBytes) return;
      const previous = entries.get(key);
      if (previous !== undefined) remove(key, previous);
      entries.set(key, page);
      bytes += page.body.length;
      for (const [oldKey, oldPage] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break;
        remove(oldKey, oldPage);
      }
    },
  };
}
