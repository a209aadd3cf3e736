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
  const name = `esim_space_${runId}`;
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

/** Drops the tablespace (after the run's databases) and removes its directory. */
export async function dropTablespace(url, space) {
  if (space === undefined) return;
  try {
    await withAdmin(url, (admin) => admin.query(`drop tablespace if exists ${space.name}`));
    rmSync(space.dir, { recursive: true, force: true });
  } catch (error) {
    console.error(
      `the run's tablespace ${space.name} (${space.dir}) was not dropped: ${error.message}`,
    );
  }
}
