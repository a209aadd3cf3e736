import { CompiledQuery } from 'kysely';
import type { Executor } from '../database.js';

// auth_state.version (013-auth-state) changes with every write to what authentication reads:
// an organisation's row (its key, groups, currency, settings) and its rotated-out keys. The
// writers below increment it in their own transaction, so a process that sees the new version
// also sees the change, and its in-memory key lookups (src/security/key-cache.ts) know to go.

/** Marks a change to what authentication reads; call inside the transaction that makes it. */
export async function touchAuthVersion(trx: Executor): Promise<void> {
  await trx
    .updateTable('auth_state')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

// Compiled once: every instance reads it about once per API_KEY_CACHE_MS.
const VERSION_QUERY = CompiledQuery.raw('select version from auth_state where id = 1', []);

/** The version of what authentication reads: it changes whenever an organisation or key does. */
export async function authVersion(db: Executor): Promise<number> {
  const result = await db.executeQuery<{ version: number | string }>(VERSION_QUERY);
  return Number(result.rows[0]?.version ?? 0);
}
