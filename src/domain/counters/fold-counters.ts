import type { Db, DialectName } from '../../store/database.js';
import { foldCountDeltas } from '../../store/repositories/count-repository.js';

// Counters that writers record as changes rather than move in place (035-count-deltas, on
// PostgreSQL: assignments by state, for /metrics) are brought up to date here, so the changes a
// scrape reads beside them stay the last interval's.

export interface FoldCountersDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
}

/** Folds the recorded changes into their counters; how many changes it folded. */
export async function foldCounters(deps: FoldCountersDeps): Promise<number> {
  return foldCountDeltas(deps.store.db, deps.store.dialect);
}
