import { ConfigError } from '../config.js';
import type { Mode } from '../config.js';
import type { Executor } from './database.js';
import { readSimState, writeSimState } from './repositories/sim-repository.js';

// A database a production service has run on records it (a setting row), and the simulator never
// opens it: forgetting MODE (whose default is the simulator) in a shell pointed at the production
// database would otherwise migrate it with whatever checkout the shell has, write a master key
// of its own, a simulator test card and every built-in group into real organisations, or serve
// the simulator's unauthenticated /_sim routes on real data. The record is read before the
// migrations and written after them. A database the simulator made may be taken over by
// production: the record is written then.

/** The setting row's key; snapshots refuse it (domain/simulator/snapshot-check.ts). */
export const SERVICE_MODE_KEY = 'service_mode';

/**
 * Throws (MODE) when the simulator opens a database production has run on. A database with no
 * tables yet (the read fails) has run on nothing.
 */
export async function refuseProductionDatabase(db: Executor, mode: Mode): Promise<void> {
  if (mode !== 'simulator') return;
  const recorded = await readSimState(db, SERVICE_MODE_KEY).catch(() => undefined);
  if (recorded === 'production') {
    throw new ConfigError(
      'MODE',
      "this database is a production service's (it has run in production mode), and the simulator never opens it: set MODE=production and the service's MASTER_KEY",
    );
  }
}

/** Production: records that it runs on this database (after the migrations). */
export async function recordServiceMode(db: Executor, mode: Mode): Promise<void> {
  if (mode !== 'production') return;
  if ((await readSimState(db, SERVICE_MODE_KEY)) !== 'production') {
    await writeSimState(db, SERVICE_MODE_KEY, 'production');
  }
}
