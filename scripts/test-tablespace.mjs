// A tablespace in memory for a test run's PostgreSQL databases (scripts/test.mjs).
//
// Each database a test makes is a copy of a 13 MB template, and PostgreSQL writes every dirty
// page of every database out to disk and waits for it (an immediate checkpoint) each time one is
// dropped: on disk, a run's few hundred databases cost gigabytes of writes and seconds of waiting
// per drop. In a tablespace under /dev/shm those writes are copies in memory, as the SQLite
// tests' databases are in memory. It is made only where it can be: the server on this machine
// (a loopback address or a socket), reachable as a superuser, and its data directory's owner
// able to own a directory here (this process may give it away: root, or the server's own user).
// Otherwise, or with TEST_POSTGRES_TABLESPACE=none, the databases go to the default tablespace.
//
// A run holds a lock in PostgreSQL (an advisory lock named after its tablespace) for as long as
// it lasts, on a connection of its own: a run killed before it could drop its tablespace loses
// the lock with its connection, and the next run drops what it left (the memory it holds).
import { chownSync, mkdirSync, rmSync, statSync } from 'node:fs';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '']);

function isLocal(url) {
  const { hostname, searchParams } = new URL(url);
  return LOCAL_HOSTS.has(hostname) || (searchParams.get('host') ?? '').startsWith('/');
}

/** Runs `run` with a connection to the server at `url` as its administrator, closed after. */
export async function withAdmin(url, run) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** The run's tablespace ({ name, dir }), or undefined where one cannot be made. */
export async function memoryTablespace(url, runId) {
  if (process.env.TEST_POSTGRES_TABLESPACE === 'none') return undefined;
  if (process.platform !== 'linux' || !isLocal(url)) return undefined;
  const name = spaceName(runId);
  const dir = `/dev/shm/esim-test-${runId}`;
  try {
    return await withAdmin(url, async (admin) => {
      const { rows } = await admin.query("select current_setting('data_directory') as dir");
      const owner = statSync(rows[0].dir);
      mkdirSync(dir, { mode: 0o700 });
      try {
        chownSync(dir, owner.uid, owner.gid);
        await admin.query(`create tablespace ${name} location '${dir}'`);
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      return { name, dir };
    });
  } catch {
    return undefined;
  }
}

const spaceName = (runId) => `esim_space_${runId}`;

/**
 * Takes the run's lock and holds it until the returned connection ends (at the end of the run,
 * or with the process); undefined without PostgreSQL.
 */
export async function holdRunLock(url, runId) {
  const { default: pg } = await import('pg');
  const holder = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await holder.connect();
    await holder.query('select pg_advisory_lock(hashtext($1))', [spaceName(runId)]);
    // A lost connection ends the lock; the run goes on (its own clean-up still drops its space).
    holder.on('error', () => undefined);
    return holder;
  } catch {
    await holder.end().catch(() => undefined);
    return undefined;
  }
}

/**
 * Drops every test tablespace (named like `pattern`) whose run no longer holds its lock, with
 * the databases in it and its directory. Returns the names dropped.
 */
export async function dropAbandonedTablespaces(url, pattern = 'esim\\_space\\_%') {
  if (!isLocal(url)) return [];
  try {
    return await withAdmin(url, async (admin) => {
      const { rows } = await admin.query(
        `select oid, spcname, pg_tablespace_location(oid) as dir
         from pg_tablespace where spcname like $1`,
        [pattern],
      );
      const dropped = [];
      for (const { oid, spcname, dir } of rows) {
        const taken = await admin.query('select pg_try_advisory_lock(hashtext($1)) as ok', [
          spcname,
        ]);
        if (!taken.rows[0].ok) continue; // its run is still going
        try {
          const databases = await admin.query(
            'select datname from pg_database where dattablespace = $1',
            [oid],
          );
          for (const { datname } of databases.rows)
            await admin.query(`drop database if exists "${datname}" with (force)`);
          await admin.query(`drop tablespace if exists ${spcname}`);
          if (dir.startsWith('/dev/shm/esim-test-')) rmSync(dir, { recursive: true, force: true });
          dropped.push(spcname);
        } finally {
          await admin.query('select pg_advisory_unlock(hashtext($1))', [spcname]);
        }
      }
      return dropped;
    });
  } catch {
    return []; // no PostgreSQL, or not as a superuser: nothing to clean here
  }
}

/** How many times a tablespace's drop is tried while a database is still being made in it. */
const DROP_TRIES = 10;

/**
 * Drops the tablespace, with any database still in it (after the run's own were dropped: one whose
 * making had not ended then, as when a run is stopped while a worker makes one, appears once it
 * ends, so a drop that finds the tablespace not empty is tried again after a pause), and removes
 * its directory.
 */
export async function dropTablespace(url, space) {
  if (space === undefined) return;
  try {
    await withAdmin(url, async (admin) => {
      for (let attempt = 1; ; attempt += 1) {
        const left = await admin.query(
          `select datname from pg_database d join pg_tablespace t on t.oid = d.dattablespace
           where t.spcname = $1`,
          [space.name],
        );
        for (const { datname } of left.rows)
          await admin.query(`drop database if exists "${datname}" with (force)`);
        try {
          await admin.query(`drop tablespace if exists ${space.name}`);
          return;
        } catch (error) {
          // 55000: not empty.
          if (error.code !== '55000' || attempt >= DROP_TRIES) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        }
      }
    });
    rmSync(space.dir, { recursive: true, force: true });
  } catch (error) {
    console.error(
      `the run's tablespace ${space.name} (${space.dir}) was not dropped: ${error.message}`,
    );
  }
}
