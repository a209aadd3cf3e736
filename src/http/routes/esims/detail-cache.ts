import type { Clock } from '../../../clock.js';
import type { AppDeps } from '../../../deps.js';
import type { EsimDetail } from '../../../domain/esims/esim.js';

// GET /esims/{iccid} is the read integrations poll most, and most polls find nothing changed.
// The eSIMs it reads (readEsim, domain/esims/esim-details.ts) are kept in memory and served
// while both hold:
// - no statement that may write has run through this process's store since the eSIM was read
//   (the write counter, store/write-watch.ts): every write this instance makes, to an eSIM, its
//   assignments, usage, history or location or to anything else, ends every entry at once;
// - the eSIM was read less than ESIM_CACHE_MS ago: the bound for writes of other processes on the
//   same SQLite file (`esim` commands, a second writer), which this process cannot see.
// SQLite only: on PostgreSQL a read on one pooled connection can overlap another's transaction,
// whose COMMIT the counter does not see, so there every request reads the database.

export interface EsimDetailCacheOptions {
  readonly writes: NonNullable<AppDeps['writes']>;
  /** Real time: the bound for other processes' writes is real time, whatever the service clock. */
  readonly clock: Clock;
  readonly ttlMs: number;
  readonly maxEntries?: number;
}

export interface EsimDetailCache {
  /** The eSIM while it is fresh, else undefined (then `load` it). */
  get(organisationId: string, iccid: string): EsimDetail | undefined;
  /**
   * Reads the eSIM with `read` and keeps it if no write ran while it was read; what `read`
   * throws (the eSIM is unknown) is thrown and nothing is kept.
   */
  load(organisationId: string, iccid: string, read: () => Promise<EsimDetail>): Promise<EsimDetail>;
}

interface Entry {
  readonly esim: EsimDetail;
  readonly readAt: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;

export function createEsimDetailCache(options: EsimDetailCacheOptions): EsimDetailCache {
  const { writes, clock, ttlMs } = options;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  // The write count every entry was read under; a different count drops them all.
  let heldAt = writes.current();
  const keyOf = (organisationId: string, iccid: string): string => `${organisationId} ${iccid}`;
  return {
    get(organisationId, iccid) {
      if (entries.size === 0) return undefined;
      if (writes.current() !== heldAt) {
        entries.clear();
        return undefined;
      }
      const key = keyOf(organisationId, iccid);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      const age = clock.now().getTime() - entry.readAt;
      if (age >= 0 && age < ttlMs) return entry.esim;
      entries.delete(key);
      return undefined;
    },
    async load(organisationId, iccid, read) {
      const before = writes.current();
      // The start of the read, not its end: a change committed before it is in what it saw.
      const readAt = clock.now().getTime();
      const esim = await read();
      if (writes.current() !== before) return esim;
      if (before !== heldAt) {
        entries.clear();
        heldAt = before;
      }
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(keyOf(organisationId, iccid), { esim, readAt });
      return esim;
    },
  };
}
