import type { Db, Executor } from './database.js';

/**
 * Runs `read` in one snapshot of the database, so its statements see it as of one moment,
 * whatever commits meanwhile: on PostgreSQL a read-only transaction at repeatable read (at read
 * committed, the default, each statement sees what had committed when it began); on SQLite a
 * deferred transaction, whose first read fixes what it sees (WAL), taking no write lock. Reads
 * only: PostgreSQL refuses writes in it.
 */
export function readSnapshot<T>(db: Db, read: (trx: Executor) => Promise<T>): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(read);
}
