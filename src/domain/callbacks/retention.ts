import type { Clock } from '../../clock.js';
import { addSeconds, iso } from '../../clock.js';
import type { DialectName, Db } from '../../store/database.js';
import { deleteFinishedEvents } from '../../store/repositories/callback-repository.js';

// Retention of the delivery log: a delivered, failed or undeliverable callback and its attempts
// are deleted CALLBACK_RETENTION_DAYS (service time) after the delivery finished. Pending and
// in-flight callbacks are never pruned. Deleted a batch at a time, so a large backlog of old rows
// never holds a long transaction.

export interface RetentionDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
  readonly config: { readonly callbackRetentionDays: number };
}

const BATCH = 500;
/** Batches per run: the rest waits for the next run. */
const MAX_BATCHES = 20;

/** Deletes finished callbacks past the retention; how many. */
export async function pruneCallbackHistory(deps: RetentionDeps): Promise<number> {
  const before = iso(addSeconds(deps.clock.now(), -deps.config.callbackRetentionDays * 86_400));
  let pruned = 0;
  for (let i = 0; i < MAX_BATCHES; i += 1) {
    const n = await deleteFinishedEvents(deps.store.db, before, BATCH, deps.store.dialect);
    pruned += n;
    if (n < BATCH) break;
  }
  return pruned;
}
