import { PostgresAdapter } from 'kysely';
import type { Selectable } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { ApiRequestsTable } from '../schema.js';

// The simulator's request journal (024-console): recent API calls, capped by id.

export type ApiRequestRow = Selectable<ApiRequestsTable>;

/** One API call as the journal records it. */
export interface JournalledCall {
  readonly organisationId: string;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
}

/** SQLite: one row; in a group-commit batch it runs on the driver's prepared statement. */
const insertOne = compiledOnce((db, p: JournalledCall) =>
  db.insertInto('api_requests').values({
    organisation_id: p.organisationId,
    at: p.at,
    method: p.method,
    path: p.path,
    status: p.status,
    duration_ms: p.durationMs,
  }),
);

/**
 * Adds calls, in their order; answers the ids they took, lowest and highest. SQLite runs one
 * prepared insert a row (no round trip); PostgreSQL takes them in one statement.
 */
export async function insertApiRequests(
  trx: Executor,
  calls: readonly JournalledCall[],
): Promise<{ first: number; last: number }> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    const ids = await trx
      .insertInto('api_requests')
      .values(
        calls.map((call) => ({
          organisation_id: call.organisationId,
          at: call.at,
          method: call.method,
          path: call.path,
          status: call.status,
          duration_ms: call.durationMs,
        })),
      )
      .returning('id')
      .execute();
    const numbers = ids.map((row) => Number(row.id));
    return { first: Math.min(...numbers), last: Math.max(...numbers) };
  }
  let first = 0;
  let last = 0;
  for (const call of calls) {
    last = Number((await insertOne.execute(trx, call)).insertId);
    if (first === 0) first = last;
  }
  return { first, last };
}

/** Removes every call with an id up to `id` (the oldest ones, by the primary key). */
export async function deleteApiRequestsUpTo(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('api_requests').where('id', '<=', id).execute();
}

/** The organisation's calls, newest first, read through (organisation_id, id). */
export async function listApiRequests(
  db: Executor,
  organisationId: string | undefined,
  limit: number,
): Promise<ApiRequestRow[]> {
  let query = db.selectFrom('api_requests').selectAll();
  if (organisationId !== undefined) query = query.where('organisation_id', '=', organisationId);
  return query.orderBy('id', 'desc').limit(limit).execute();
}
