import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseKind } from '../databases.js';
import pg from 'pg';
import { POSTGRES_ADMIN_URL, freshDatabase } from '../databases.js';
import { esim, sqliteFile } from '../cli/helpers.js';
import type { CliResult } from '../cli/helpers.js';
import { eventually } from '../harness.js';

// A database the CLI can open once per command (a temp SQLite file, or a fresh PostgreSQL
// database), and main() run in-process with captured output.

export const TEST_MASTER_KEY = '07'.repeat(32);

export interface CliDatabase {
  readonly url: string;
  readonly dataDir: string;
  drop(): Promise<void>;
}

/**
 * Waits until no session is connected to the database. A closed pg pool resolves before its
 * sockets are gone, and dropping the database under a closing socket makes that client throw.
 */
async function closedConnections(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await eventually(
      async () => {
        const { rows } = await admin.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where datname = $1',
          [name],
        );
        return Number(rows[0]?.n) === 0 ? true : undefined;
      },
      10_000,
      `connections to ${name} to close`,
    );
  } finally {
    await admin.end();
  }
}

/**
 * A fresh database holding what a first start leaves (every migration and the built-in
 * catalogue), copied from the process's template (test/databases.ts) rather than migrated by
 * the first command; 'empty' for a database nothing has touched yet.
 */
export async function cliDatabase(
  kind: DatabaseKind,
  start: 'empty' | 'seeded' = 'seeded',
): Promise<CliDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'esim-callbacks-'));
  const db = await freshDatabase(kind, start);
  if (db.target.kind === 'sqlite') {
    return {
      url: `sqlite:${sqliteFile(dataDir, db.image)}`,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const url = db.target.url;
  return {
    url,
    dataDir,
    async drop() {
      await closedConnections(url);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI in-process with captured output, logging nothing unless told otherwise. */
export function runCli(argv: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return esim({ LOG_LEVEL: 'silent', ...env }, ...argv);
}
