import { PostgresAdapter } from 'kysely';
import type { Executor } from '../database.js';
import { touchAuthVersion } from './auth-state-repository.js';
import type { KeyHolder } from './organisation-repository.js';
import { organisationFromRow } from './organisation-repository.js';

// Keys rotated out but still inside their grace period. The organisation row holds the newest
// key; these rows only ever authenticate, they never sign. Every write here also increments
// auth_state.version (auth-state-repository.ts), which the in-memory key lookups compare against.

export interface PreviousKey {
  readonly keyHash: string;
  readonly organisationId: string;
  readonly rotatedAt: string;
  readonly validUntil: string;
}

export async function insertPreviousKey(db: Executor, key: PreviousKey): Promise<void> {
  await db
    .insertInto('previous_api_keys')
    .values({
      key_hash: key.keyHash,
      organisation_id: key.organisationId,
      rotated_at: key.rotatedAt,
      valid_until: key.validUntil,
    })
    .execute();
  await touchAuthVersion(db);
}

/** Ends the grace period of every earlier key of the organisation at `at`. */
export async function endGracePeriods(
  db: Executor,
  organisationId: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('previous_api_keys')
    .set({ valid_until: at })
    .where('organisation_id', '=', organisationId)
    .where('valid_until', '>', at)
    .execute();
  await touchAuthVersion(db);
}

/**
 * Forgets rotated-out keys whose grace period ended by `now`; returns how many. No version
 * change: an expired key is refused whether or not its row is still here (the lookup asks for
 * valid_until > now, and a remembered key stops at its validUntil), so removing the row changes
 * what no instance answers, and every instance keeps what it remembers.
 */
export async function deleteExpiredPreviousKeys(db: Executor, now: string): Promise<number> {
  const result = await db
    .deleteFrom('previous_api_keys')
    .where('valid_until', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The organisation whose rotated-out key has this hash, while its grace period lasts; the
 * holder's validUntil says when that is over.
 */
export async function findOrganisationByPreviousKeyHash(
  db: Executor,
  hash: string,
  now: string,
): Promise<KeyHolder | undefined> {
  const key = await db
    .selectFrom('previous_api_keys')
    .select(['organisation_id', 'key_hash', 'valid_until'])
    .where('key_hash', '=', hash)
    .where('valid_until', '>', now)
    .executeTakeFirst();
  if (key === undefined) return undefined;
  const row = await db
    .selectFrom('organisations')
    .selectAll()
    .where('id', '=', key.organisation_id)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        organisation: organisationFromRow(row),
        keyHash: key.key_hash,
        validUntil: key.valid_until,
      };
}

/** Rotated-out keys of an organisation still inside their grace period, newest first. */
export async function listKeysInGrace(
  db: Executor,
  organisationId: string,
  now: string,
): Promise<PreviousKey[]> {
  const rows = await db
    .selectFrom('previous_api_keys')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('valid_until', '>', now)
    .orderBy('rotated_at', 'desc')
    .execute();
  return rows.map((r) => ({
    keyHash: r.key_hash,
    organisationId: r.organisation_id,
    rotatedAt: r.rotated_at,
    validUntil: r.valid_until,
  }));
}

/**
 * The organisation's current key hash, locked for the rest of the transaction on PostgreSQL
 * (SQLite runs one write transaction at a time), so two rotations cannot both keep the same
 * old key.
 */
export async function lockCurrentKeyHash(db: Executor, id: string): Promise<string | undefined> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const row = await db
    .selectFrom('organisations')
    .select('api_key_hash')
    .where('id', '=', id)
    .$if(postgres, (q) => q.forUpdate())
    .executeTakeFirst();
  return row?.api_key_hash;
}
