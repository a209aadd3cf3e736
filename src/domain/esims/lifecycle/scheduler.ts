import type { Clock } from '../../../clock.js';
import { iso } from '../../../clock.js';
import type { Db } from '../../../store/database.js';
import type { DueKind } from '../../../store/repositories/assignment-repository.js';
import { listDueAssignments } from '../../../store/repositories/assignment-repository.js';
import { DomainError } from '../../errors/error-codes.js';
import { settle } from './settle.js';
import { runWrite } from '../../runner/use-case-runner.js';

export interface SchedulerDeps {
  readonly db: Db;
  readonly clock: Clock;
}

export interface SchedulerRun {
  readonly provisioned: number;
  readonly expired: number;
}

const BATCH = 200;
const KINDS: readonly DueKind[] = ['processing', 'ended', 'lapsed'];

/**
 * One pass of the lifecycle scheduler: reads the rows that time has made due (Processing past
 * processingDueAt, Active/Depleted past endTime, Queued past validUntil) and applies each
 * transition with its history entry in its own transaction. Several instances may run this at
 * once: a row another instance moved first is skipped.
 */
export async function runLifecycleScheduler(deps: SchedulerDeps): Promise<SchedulerRun> {
  const at = deps.clock.now();
  let provisioned = 0;
  let expired = 0;
  for (const kind of KINDS) {
    // Rows that fail to move are remembered so a persistent failure cannot loop forever.
    const skipped = new Set<string>();
    for (;;) {
      const limit = BATCH + skipped.size;
      const due = await listDueAssignments(deps.db, kind, iso(at), limit);
      const todo = due.filter((row) => !skipped.has(row.id));
      if (todo.length === 0) break;
      for (const row of todo) {
        try {
          const after = await runWrite(
            { store: { db: deps.db } },
            (trx) => settle(trx, row, at),
            undefined,
          );
          if (after.state === 'Queued') provisioned += 1;
          else if (after.state === 'Expired') expired += 1;
          else skipped.add(row.id);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          skipped.add(row.id); // moved by someone else meanwhile
        }
      }
      if (due.length < limit) break;
    }
  }
  return { provisioned, expired };
}
