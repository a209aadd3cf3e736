import type { OffsetClock } from '../../clock.js';
import type { Db } from '../../store/database.js';
import { SIM_KEYS, writeSimState } from '../../store/repositories/sim-repository.js';

// The simulator's clock as the control plane moves it (POST /_sim/clock/advance). Only forward:
// stored times would otherwise lie in the future.

/** Moves the simulator clock forward and records the offset so it survives a restart. */
export async function advanceSimulatorClock(
  deps: { readonly store: { readonly db: Db } },
  clock: OffsetClock,
  seconds: number,
): Promise<Date> {
  const now = clock.advance(seconds);
  await writeSimState(deps.store.db, SIM_KEYS.clockOffsetMs, String(clock.offset));
  return now;
}
