import type { Clock } from '../clock.js';
import { hashApiKey, hashesEqual } from './api-keys.js';
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
 *
 * Entries are found by the key as presented, so a key seen recently costs neither its SHA-256
 * nor a comparison: only a miss hashes the key, finds the row by the hash and compares the stored
 * hash in constant time. A hit needs no constant-time comparison: the map compares strings only
 * when their (per-process seeded) hashes match, so its timing tells nothing of how close a wrong
 * key came. Holding keys themselves adds no exposure: this process also holds the master key that
 * decrypts every stored key.
 */
export interface ApiKeyCache {
  /** The organisation a key (as presented) authenticates now, or undefined. */
  lookup(key: string): Promise<KeyHolder | undefined>;
  /**
   * What `lookup` would answer from memory with no wait: the holder when the key is held, still
   * valid and the version reading is fresh; otherwise undefined (then call `lookup`).
   */
  known(key: string): KeyHolder | undefined;
  /** Drops what is held for the organisation; call after a change to it has committed. */
  forget(organisationId: string): void;
  /**
   * Drops everything held and reads the version again before the next answer; call after a
   * change to many organisations at once has committed (a snapshot import, a reset), which may
   * have removed organisations whose ids the caller no longer knows.
   */
  forgetAll(): void;
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

/** Current key first, then a rotated-out one inside its grace period; the hash compared. */
async function loadHolder(db: Executor, key: string, now: number): Promise<KeyHolder | undefined> {
  const hash = hashApiKey(key);
  const holder =
    (await findOrganisationByKeyHash(db, hash)) ??
    (await findOrganisationByPreviousKeyHash(db, hash, new Date(now).toISOString()));
  return holder !== undefined && hashesEqual(holder.keyHash, hash) ? holder : undefined;
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
  const confirmedAt = (now: number): boolean =>
    version !== undefined && now >= readAt && now - readAt < stalenessMs;
  const confirmed = (now: number): Promise<void> | undefined => {
    if (confirmedAt(now)) return undefined;
    reading ??= readVersion(now).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const remember = (key: string, holder: KeyHolder): void => {
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    const until = holder.validUntil === undefined ? Infinity : Date.parse(holder.validUntil);
    entries.set(key, { holder, until });
  };

  return {
    async lookup(key) {
      const now = clock.now().getTime();
      if (stalenessMs <= 0) return loadHolder(db, key, now);
      const pending = confirmed(now);
      if (pending !== undefined) await pending;
      const hit = entries.get(key);
      if (hit !== undefined) {
        if (now < hit.until) return hit.holder;
        entries.delete(key);
      }
      const before = generation;
      const holder = await loadHolder(db, key, now);
      if (holder !== undefined && before === generation) remember(key, holder);
      return holder;
    },
    known(key) {
      if (stalenessMs <= 0) return undefined;
      const now = clock.now().getTime();
      if (confirmedAt(now) === false) return undefined;
      const hit = entries.get(key);
      return hit !== undefined && now < hit.until ? hit.holder : undefined;
    },
    forgetAll() {
      dropAll();
      version = undefined;
    },
    forget(organisationId) {
      for (const [hash, entry] of entries) {
        if (entry.holder.organisation.id === organisationId) entries.delete(hash);
      }
      generation += 1;
    },
  };
}
