import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { DialectName } from '../../store/database.js';
import {
  SIM_KEYS,
  deleteSimState,
  readSimState,
  writeSimState,
} from '../../store/repositories/sim-repository.js';
import {
  countOrganisations,
  listOrganisations,
} from '../../store/repositories/organisation-repository.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { WriteDeps } from '../runner/use-case-runner.js';
import { CATALOGUE_AND_SETTINGS, emptyAllBut } from './snapshot.js';

// The demo organisation of a first start (src/demo.ts) is made in several transactions: orders,
// the phone's events, settings. A mark in sim_state, set before the first and removed after the
// last, tells the next start that a start stopped (a crash, a kill) while it made the demo.

export interface DemoMarkDeps extends WriteDeps {
  readonly store: WriteDeps['store'] & { readonly dialect: DialectName };
  readonly clock: Clock;
  readonly apiKeys: { forgetAll(): void };
}

/**
 * Whether to make the demo, `name` being its organisation's: on an empty database, yes. After a
 * start that stopped while it made the demo (its mark is still there), what that start made is
 * removed (every table but the catalogue and the simulator's settings emptied, ids from 1 again,
 * as the demo's fixed identifiers need) and the answer is yes, unless an organisation other
 * than the demo was added since: that database is left alone.
 */
export async function demoWanted(deps: DemoMarkDeps, name: string): Promise<boolean> {
  const db = deps.store.db;
  if ((await readSimState(db, SIM_KEYS.demoPending)) === undefined) {
    return (await countOrganisations(db)) === 0;
  }
  if ((await listOrganisations(db)).some((o) => o.name !== name)) {
    await deleteSimState(db, SIM_KEYS.demoPending);
    return false;
  }
  await runWrite(
    deps,
    async (trx) => {
      await emptyAllBut(trx, deps.store.dialect, CATALOGUE_AND_SETTINGS);
    },
    undefined,
  );
  deps.apiKeys.forgetAll();
  return true;
}

/** Set before the demo's first transaction. */
export async function markDemoStarted(deps: DemoMarkDeps): Promise<void> {
  await writeSimState(deps.store.db, SIM_KEYS.demoPending, iso(deps.clock.now()));
}

/** Removed after the demo's last transaction. */
export async function markDemoMade(deps: DemoMarkDeps): Promise<void> {
  await deleteSimState(deps.store.db, SIM_KEYS.demoPending);
}
