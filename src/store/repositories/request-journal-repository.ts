import { PostgresAdapter, sql } from 'kysely';
import type { Selectable } from 'kysely';
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

/**
 * Adds calls, in their order, in one statement; answers the ids they took, lowest and highest.
 * SQLite takes the rows as one JSON array (one statement text whatever their number, so one
 * prepared statement), PostgreSQL as the rows of a multi-row insert.
 */
export async function insertApiRequests(
  db: Executor,
  calls: readonly JournalledCall[],
): Promise<{ first: number; last: number }> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const ids = await db
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
  const rows = JSON.stringify(
    calls.map((c) => [c.organisationId, c.at, c.method, c.path, c.status, c.durationMs]),
  );
  const field = (i: number) => sql`json_extract(value, ${sql.lit(`$[${i}]`)})`;
  const inserted = await db
    .insertInto('api_requests')
    .columns(['organisation_id', 'at', 'method', 'path', 'status', 'duration_ms'])
    .expression(
      db
        .selectFrom(sql<{ value: string }>`json_each(${rows})`.as('r'))
        .select([
          field(0).as('organisation_id'),
          field(1).as('at'),
          field(2).as('method'),
          field(3).as('path'),
          field(4).as('status'),
          field(5).as('duration_ms'),
        ]),
    )
    .executeTakeFirstOrThrow();
  // One connection, rows in the array's order: their ids follow one another.
  const last = Number(inserted.insertId);
  return { first: last - calls.length + 1, last };
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
