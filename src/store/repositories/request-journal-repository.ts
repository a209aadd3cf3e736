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

/** Adds a call; answers its id. */
export async function insertApiRequest(db: Executor, call: JournalledCall): Promise<number> {
  const inserted = await db
    .insertInto('api_requests')
    .values({
      organisation_id: call.organisationId,
      at: call.at,
      method: call.method,
      path: call.path,
      status: call.status,
      duration_ms: call.durationMs,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
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
