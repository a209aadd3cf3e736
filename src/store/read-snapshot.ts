import type { Db, Executor } from './database.js';

/**
 * Runs `read` in one PostgreSQL snapshot: a read-only transaction at repeatable read, so its
 * statements see the database as of one moment, whatever commits meanwhile. Reads only: the
 * transaction refuses writes.
 */
export function readSnapshot<T>(db: Db, read: (trx: Executor) => Promise<T>): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(read);
}
