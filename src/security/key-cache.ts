import type { Clock } from '../clock.js';
import type { Executor } from '../store/database.js';
import { findOrganisationByPreviousKeyHash } from '../store/repositories/api-key-repository.js';
import { authVersion } from '../store/repositories/auth-state-repository.js';
import type { KeyHolder } from '../store/repositories/organisation-repository.js';
import { findOrganisationByKeyHash } from '../store/repositories/organisation-repository.js';

/**
 * The organisations API keys authenticate, kept in memory. A lookup that hits costs no query.
 *
 * - The instance that changes an organisation or its keys calls `forget` once the change has
 *   committed: its next request reads the database.
 * - Every other instance (another server process, the CLI's writes) notices within `stalenessMs`:
 *   every such write increments auth_state.version in its transaction, and an instance re-reads
 *   that version before serving from memory once its last reading is `stalenessMs` old, dropping
 *   everything it holds when it moved.
 * - A rotated-out key is remembered with the end of its grace period and refused from then on,
 *   with no write and no query.
 *
 * Unknown keys are never remembered, so wrong keys cannot fill it; it holds at most
 * `maxEntries` keys and forgets the oldest first.
 */
export interface ApiKeyCache {
  /** The organisation a key (by its SHA-256 hash) authenticates now, or undefined. */
  lookup(hash: string): Promise<KeyHolder | undefined>;
  /** Drops what is held for the organisation; call after a change to it has committed. */
  forget(organisationId: string): void;
}

export interface ApiKeyCacheOptions {
  readonly db: Executor;
  /** Service time: grace periods end by it, and the staleness period is measured on it. */
  readonly clock: Clock;
  /** How old the last reading of auth_state.version may be (0: no cache, every lookup queries). */
  readonly stalenessMs: number;
  readonly maxEntries?: number;
}

interface Entry {
  readonly holder: KeyHolder;
  /** Epoch milliseconds when the key stops authenticating; Infinity for a current key. */
  readonly until: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;

/** Current key first, then a rotated-out one inside its grace period. */
async function loadHolder(db: Executor, hash: string, now: number): Promise<KeyHolder | undefined> {
  return (
    (await findOrganisationByKeyHash(db, hash)) ??
    (await findOrganisationByPreviousKeyHash(db, hash, new Date(now).toISOString()))
  );
}

export function createApiKeyCache(options: ApiKeyCacheOptions): ApiKeyCache {
  const { db, clock, stalenessMs } = options;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  // Incremented whenever entries are dropped, so a lookup that read the database before the drop
  // does not put back what it read.
  let generation = 0;
  let version: number | undefined;
  let readAt = 0;
  let reading: Promise<void> | undefined;

  const dropAll = (): void => {
    entries.clear();
    generation += 1;
  };
  const readVersion = async (startedAt: number): Promise<void> => {
    const current = await authVersion(db);
    if (current !== version) {
      dropAll();
      version = current;
    }
    // The start of the read, not its end: a change committed before it is in what it saw.
    readAt = startedAt;
  };
  const confirmed = (now: number): Promise<void> | undefined => {
    if (version !== undefined && now >= readAt && now - readAt < stalenessMs) return undefined;
    reading ??= readVersion(now).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const remember = (hash: string, holder: KeyHolder): void => {
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    const until = holder.validUntil === undefined ? Infinity : Date.parse(holder.validUntil);
    entries.set(hash, { holder, until });
  };

  return {
    async lookup(hash) {
      const now = clock.now().getTime();
      if (stalenessMs <= 0) return loadHolder(db, hash, now);
      const pending = confirmed(now);
      if (pending !== undefined) await pending;
      const hit = entries.get(hash);
      if (hit !== undefined) {
        if (now < hit.until) return hit.holder;
        entries.delete(hash);
      }
      const before = generation;
      const holder = await loadHolder(db, hash, now);
      if (holder !== undefined && before === generation) remember(hash, holder);
      return holder;
    },
    forget(organisationId) {
      for (const [hash, entry] of entries) {
        if (entry.holder.organisation.id === organisationId) entries.delete(hash);
      }
      generation += 1;
    },
  };
}
