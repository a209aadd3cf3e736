import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../config.js';
import { verifyLedger } from '../../domain/money/ledger.js';
import { createKeyCipher } from '../../security/api-keys.js';
import { MASTER_KEY_FILE, resolveMasterKey } from '../../security/master-key.js';
import { migrate, openStore } from '../../store/database.js';
import {
  findEncryptedApiKey,
  listOrganisations,
} from '../../domain/organisations/organisation-reads.js';
import { DatabaseInUseError, takeServerLock } from '../../store/server-lock.js';
import type { ServerLock } from '../../store/server-lock.js';
import {
  SqliteFileError,
  checkDatabaseFile,
  copyLiveDatabase,
  removeSqliteFile,
  scratchPathBeside,
  settle,
  switchDatabaseFile,
} from '../../store/sqlite-files.js';
import type { Command } from '../command.js';
import { onePositional, parse } from '../command.js';

// Backups of the embedded database. PostgreSQL has its own tools (pg_dump, point-in-time
// recovery): see docs/operations.md.

const POSTGRES_HINT =
  'DATABASE_URL is PostgreSQL: back it up with pg_dump or point-in-time recovery and restore ' +
  'with pg_restore (docs/operations.md, "Backups and restore")';

function sqliteFile(config: Config, command: string): string {
  const target = config.database;
  if (target.kind === 'postgres') throw new SqliteFileError(`${command}: ${POSTGRES_HINT}`);
  if (target.path === ':memory:') {
    throw new SqliteFileError(`${command}: an in-memory database (sqlite::memory:) has no file`);
  }
  return target.path;
}

export const backupCommand: Command = {
  usage: 'esim backup <file>',
  summary:
    'Write a consistent copy of the embedded SQLite database to a new file, also while the service runs',
  async run(ctx) {
    const { positionals } = parse(ctx.args, {});
    const destination = resolve(onePositional(positionals, 'backup file'));
    const source = sqliteFile(ctx.config(), 'backup');
    const started = Date.now();
    const bytes = copyLiveDatabase(source, destination);
    ctx.io.out(
      `backed up ${source} to ${destination} (${bytes} bytes, ${Date.now() - started} ms)`,
    );
    return 0;
  },
};

export const restoreCommand: Command = {
  usage: 'esim restore <file>',
  summary:
    'Replace the embedded SQLite database with a backup, once the copy passes its checks; refuses while esim serve runs',
  async run(ctx) {
    const { positionals } = parse(ctx.args, {});
    const source = resolve(onePositional(positionals, 'backup file'));
    const config = ctx.config();
    const target = sqliteFile(config, 'restore');
    checkDatabaseFile(source);

    let lock: ServerLock | undefined;
    try {
      lock = takeServerLock(config.database);
    } catch (error) {
      if (!(error instanceof DatabaseInUseError)) throw error;
      ctx.io.err(`esim restore: refused: ${error.message}; stop the service first`);
      return 1;
    }
    const staging = scratchPathBeside(target, 'restore');
    try {
      copyFileSync(source, staging);
      const report = await checkCopy(config, staging);
      settle(staging);
      const keptAs = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      const kept = switchDatabaseFile(target, staging, keptAs);
      ctx.io.out(
        `restored ${source} into ${target}: ${report.organisations} organisations, ` +
          `${report.entries} journal entries, the ledger balances; ` +
          `migrations applied: ${report.applied.length === 0 ? 'none' : report.applied.join(', ')}`,
      );
      if (kept) ctx.io.out(`the database it replaced is kept as ${keptAs}`);
      return 0;
    } finally {
      removeSqliteFile(staging);
      lock?.release();
    }
  },
};

interface CopyReport {
  applied: string[];
  organisations: number;
  entries: number;
}

/**
 * What a copy must pass before it replaces the database: this version's migrations apply to it
 * (a copy from a newer version is refused), its ledger balances, and its stored API keys open with
 * this installation's master key.
 */
async function checkCopy(config: Config, path: string): Promise<CopyReport> {
  checkDatabaseFile(path);
  const store = openStore({ kind: 'sqlite', path });
  try {
    let applied: string[];
    try {
      applied = await migrate(store);
    } catch (error) {
      throw new SqliteFileError(
        `the backup does not fit this version: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const ledger = await verifyLedger(store.db);
    if (ledger.differences.length > 0) {
      const first = ledger.differences[0];
      throw new SqliteFileError(
        `the backup's ledger does not balance (${ledger.differences.length} difference(s); ` +
          `first: organisation ${first?.organisationId}: ${first?.message})`,
      );
    }
    const [organisation] = await listOrganisations(store.db);
    const apiKeyEnc =
      organisation === undefined ? undefined : await findEncryptedApiKey(store.db, organisation.id);
    if (apiKeyEnc !== undefined) {
      const cipher = createKeyCipher(existingMasterKey(config));
      try {
        cipher.decrypt(apiKeyEnc);
      } catch {
        throw new SqliteFileError(
          'the backup was made under another master key: its API keys do not decrypt with this ' +
            'MASTER_KEY (or the master.key of DATA_DIR); configure the key it was made with',
        );
      }
    }
    return { applied, organisations: ledger.organisations, entries: ledger.entries };
  } finally {
    await store.close();
  }
}

/** The master key, without generating one: a new key could never open the backup's API keys. */
function existingMasterKey(config: Config): Buffer {
  if (config.masterKey === undefined && !existsSync(join(config.dataDir, MASTER_KEY_FILE))) {
    throw new SqliteFileError(
      `no master key: set MASTER_KEY, or put the ${MASTER_KEY_FILE} the backup was made with ` +
        `into ${config.dataDir}`,
    );
  }
  return resolveMasterKey(config);
}
