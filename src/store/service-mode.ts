import { ConfigError } from '../config.js';
import type { Mode } from '../config.js';
import type { Executor } from './database.js';
import { readSimState, writeSimState } from './repositories/sim-repository.js';

// A database a production service has run on records it (a setting row, read when a service or
// command opens the database), and the simulator never opens it: forgetting MODE (whose default
// is the simulator) in a shell pointed at the production database would otherwise write a master
// key of its own, a simulator test card and every built-in group into real organisations, or
// serve the simulator's unauthenticated /_sim routes on real data. A database the simulator
// made may be taken over by production: the record is written then.

const KEY = 'service_mode';

export async function checkServiceMode(db: Executor, mode: Mode): Promise<void> {
  const recorded = await readSimState(db, KEY);
  if (mode === 'production') {
    if (recorded !== 'production') await writeSimState(db, KEY, 'production');
    return;
  }
  if (recorded === 'production') {
    throw new ConfigError(
      'MODE',
      "this database is a production service's (it has run in production mode), and the simulator never opens it: set MODE=production and the service's MASTER_KEY",
    );
  }
}
