import type { SimulatorDeps } from './simulator-deps.js';
import { iso } from '../../clock.js';
import { SIM_KEYS, readSimState } from '../../store/repositories/sim-repository.js';
import type { SnapshotTables } from '../../store/snapshot.js';
import { readSnapshot } from '../../store/read-snapshot.js';
import {
  appliedMigrations,
  dumpTables,
  replaceTables,
  snapshotColumns,
} from '../../store/snapshot.js';
import { DomainError, badRequest, conflict } from '../errors/error-codes.js';
import { verifyLedger } from '../money/ledger.js';
import { hashApiKey, readableKey } from '../../security/api-keys.js';
import type { Executor } from '../../store/database.js';
import { checkSnapshotContent } from './snapshot-check.js';
import { checkFixtureAgainstStore } from './fixture-check.js';
import { runWrite } from '../runner/use-case-runner.js';
import { restartNetwork } from './simulator-control.js';
import { carryOn, drawAside, firstStartIdentifiers } from './seeded-identifiers.js';
import type { LoadedOrganisation } from './fixture-load.js';
import { loadFixtureInto } from './fixture-load.js';
import { FixtureError, readFixtureFile } from './fixture-file.js';

// Snapshots of the whole simulator: every organisation, key, balance, journal entry, order,
// eSIM, bundle, callback, mail, fault and setting, and the clock. `esim sim export <file>`
// writes one, `esim sim import <file>` puts the simulator back in that state, in one
// transaction. API keys are stored in the snapshot in clear (they are test keys) and encrypted
// again on import with the importing simulator's master key, so a snapshot moves between
// machines.

// What a reset to the seed keeps: the catalogue, and the versions that tell every instance its
// cached catalogue and sign-ins are stale.
const CATALOGUE_TABLES = [
  'bundles',
  'bundle_countries',
  'bundle_groups',
  'catalogue_state',
  'auth_state',
] as const;

/**
 * Empties every table but `kept` (the catalogue's at least), inside the caller's transaction;
 * ids start again from 1, as on a new database.
 */
export async function emptyAllBut(
  trx: Executor,
  dialect: SimulatorDeps['store']['dialect'],
  kept: readonly string[],
): Promise<void> {
  const rows = await dumpTables(trx, dialect, new Set(kept));
  const tables: SnapshotTables = {};
  for (const name of kept) tables[name] = rows[name] ?? [];
  await replaceTables(trx, dialect, tables);
}

/** The catalogue's tables and the simulator's settings (clock, processing delay, seed). */
export const CATALOGUE_AND_SETTINGS: readonly string[] = [...CATALOGUE_TABLES, 'sim_state'];

export const SNAPSHOT_FORMAT = 'esim-simulator-snapshot';
export const SNAPSHOT_VERSION = 1;

export interface Snapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  readonly exportedAt: string;
  readonly clock: { readonly now: string; readonly offsetSeconds: number };
  readonly migrations: readonly string[];
  /** Each organisation's current API key, by organisation id. */
  readonly apiKeys: Readonly<Record<string, string>>;
  readonly tables: SnapshotTables;
}

export interface ImportSummary {
  readonly organisations: number;
  readonly esims: number;
  readonly clock: { readonly now: string; readonly offsetSeconds: number };
}

function clockOf(deps: SimulatorDeps): { now: string; offsetSeconds: number } {
  const offset = deps.simulator?.clock.offset ?? 0;
  return { now: iso(deps.clock.now()), offsetSeconds: Math.round(offset / 1000) };
}

function simulatorDeps(deps: SimulatorDeps): NonNullable<SimulatorDeps['simulator']> {
  if (deps.simulator === undefined) {
    throw badRequest('snapshots exist in simulator mode only');
  }
  return deps.simulator;
}

/**
 * A snapshot holds every key in clear, and an import needs each one: a key this MASTER_KEY
 * cannot read (a data directory moved without its master.key) is a 409 that names the
 * organisation and the way out, not a 500.
 */
function keyInClear(deps: SimulatorDeps, organisationId: string, encrypted: string): string {
  const key = readableKey(deps.cipher, encrypted);
  if (key === undefined) {
    throw conflict(
      `the API key of organisation ${organisationId} cannot be read with this simulator's ` +
        `MASTER_KEY, so no snapshot can hold it: rotate the key (esim org rotate-key ` +
        `${organisationId}) and export again`,
    );
  }
  return key;
}

export async function exportSnapshot(deps: SimulatorDeps): Promise<Snapshot> {
  simulatorDeps(deps);
  // The calls answered so far are in it, as in a read of the journal.
  await deps.journal?.flush();
  // One snapshot of the database: a consistent picture even while requests commit.
  return readSnapshot(deps.store.db, async (trx) => {
    const tables = await dumpTables(trx, deps.store.dialect);
    const apiKeys: Record<string, string> = {};
    for (const row of tables['organisations'] ?? []) {
      const id = String(row['id']);
      apiKeys[id] = keyInClear(deps, id, String(row['api_key_enc']));
      row['api_key_enc'] = '';
    }
    return {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      exportedAt: iso(deps.clock.now()),
      clock: clockOf(deps),
      migrations: await appliedMigrations(trx),
      apiKeys,
      tables,
    };
  });
}

function checkSnapshot(value: unknown, migrations: readonly string[]): Snapshot {
  const s = value as Partial<Snapshot> | null;
  if (typeof s !== 'object' || s === null || s.format !== SNAPSHOT_FORMAT) {
    throw badRequest(`not a simulator snapshot: "format" must be "${SNAPSHOT_FORMAT}"`);
  }
  if (s.version !== SNAPSHOT_VERSION) {
    throw badRequest(
      `snapshot version ${String(s.version)} is not supported (expected ${SNAPSHOT_VERSION})`,
    );
  }
  if (typeof s.tables !== 'object' || s.tables === null || Array.isArray(s.tables)) {
    throw badRequest('snapshot "tables" must be an object of table names to rows');
  }
  for (const [name, rows] of Object.entries(s.tables)) {
    if (!Array.isArray(rows)) throw badRequest(`snapshot tables.${name} must be an array of rows`);
  }
  if (typeof s.apiKeys !== 'object' || s.apiKeys === null) {
    throw badRequest('snapshot "apiKeys" must be an object of organisation ids to keys');
  }
  const theirs = Array.isArray(s.migrations) ? s.migrations.join(', ') : '';
  if (theirs !== migrations.join(', ')) {
    throw badRequest(
      `the snapshot was taken at another schema version (migrations ${theirs || 'none'}; this simulator has ${migrations.join(', ')})`,
    );
  }
  return s as Snapshot;
}

/** The ledger's books after the rows are in: a difference refuses the import, naming the row. */
async function checkBooks(trx: Executor, tables: SnapshotTables): Promise<void> {
  const [difference] = (await verifyLedger(trx)).differences;
  if (difference === undefined) return;
  const index = (tables['organisations'] ?? []).findIndex(
    (row) => String(row['id']) === difference.organisationId,
  );
  throw new DomainError(
    'validation_failed',
    `snapshot tables.organisations[${index}].balance: the ledger does not hold: ${difference.message}`,
  );
}

/**
 * Puts the simulator in the snapshot's state, clock included. Every value is checked before
 * anything is written (snapshot-check.ts) and the rows go in in one transaction, so a refused
 * snapshot changes nothing.
 */
export async function importSnapshot(deps: SimulatorDeps, value: unknown): Promise<ImportSummary> {
  const simulator = simulatorDeps(deps);
  const snapshot = checkSnapshot(value, await appliedMigrations(deps.store.db));
  checkSnapshotContent(
    snapshot.tables,
    snapshot.apiKeys,
    await snapshotColumns(deps.store.db, deps.store.dialect),
  );
  const tables: SnapshotTables = { ...snapshot.tables };
  // The key's hash is made from the key itself, so the two can never disagree.
  tables['organisations'] = (snapshot.tables['organisations'] ?? []).map((row) => {
    const key = String(snapshot.apiKeys[String(row['id'])]);
    return { ...row, api_key_hash: hashApiKey(key), api_key_enc: deps.cipher.encrypt(key) };
  });
  // Calls answered before the import are written before it, not over the imported journal.
  await deps.journal?.flush();
  try {
    await runWrite(
      deps,
      (trx) =>
        replaceTables(trx, deps.store.dialect, tables, (written) => checkBooks(written, tables)),
      undefined,
    );
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw badRequest(`the snapshot could not be imported: ${(error as Error).message}`);
  } finally {
    // Every key this process holds, removed organisations' included, is read again: the import
    // moved the authentication version, which other instances see within API_KEY_CACHE_MS.
    deps.apiKeys.forgetAll();
  }
  const offset = Number((await readSimState(deps.store.db, SIM_KEYS.clockOffsetMs)) ?? 0);
  simulator.clock.setOffset(Number.isFinite(offset) ? offset : 0);
  simulator.faultsMayExist = true;
  return {
    organisations: tables['organisations'].length,
    esims: (snapshot.tables['esims'] ?? []).length,
    clock: clockOf(deps),
  };
}

/**
 * Back to the state SEED_FILE describes, in one transaction: everything but the catalogue
 * emptied and the fixture loaded again, the clock back to real time. No request sees the
 * database in between, and a fixture that fails changes nothing (the clock included).
 */
export async function resetToSeed(deps: SimulatorDeps): Promise<LoadedOrganisation[]> {
  const simulator = simulatorDeps(deps);
  const file = deps.config.seedFile;
  if (file === undefined)
    throw badRequest('SEED_FILE is not set: there is no seeded state to go back to');
  let fixture;
  try {
    fixture = readFixtureFile(file);
  } catch (error) {
    if (error instanceof FixtureError) throw badRequest(error.message);
    throw error;
  }
  // Checked against the catalogue before anything is emptied: a bad file changes nothing.
  try {
    await checkFixtureAgainstStore(deps.store.db, fixture);
  } catch (error) {
    if (error instanceof FixtureError) throw badRequest(error.message);
    throw error;
  }
  // Under SIM_SEED the fixture draws the sequence of a first start from a source of its own:
  // requests and background work drawing ids meanwhile cannot change its ICCIDs, ids or keys.
  const seeded = deps.config.seedIdentifiers;
  const random = seeded ? firstStartIdentifiers(deps.config.simSeed) : deps.random;
  if (seeded) drawAside(deps.random);
  const offset = simulator.clock.offset;
  // Calls answered before the reset are written before it, not into the seeded state.
  await deps.journal?.flush();
  simulator.clock.setOffset(0);
  try {
    const loaded = await runWrite(
      deps,
      async (trx) => {
        // The catalogue is read and put back in the transaction that empties everything else
        // (faults, settings, the SMS outbox and the stored clock with it).
        await emptyAllBut(trx, deps.store.dialect, CATALOGUE_TABLES);
        const organisations = await loadFixtureInto(trx, { ...deps, random }, fixture);
        if (seeded) await carryOn(trx, deps.random, random);
        return organisations ?? [];
      },
      undefined,
    );
    restartNetwork(simulator);
    return loaded;
  } catch (error) {
    simulator.clock.setOffset(offset);
    if (error instanceof FixtureError) throw badRequest(error.message);
    throw error;
  } finally {
    // Every key this process holds is read again: the reset moved the authentication version.
    deps.apiKeys.forgetAll();
  }
}
