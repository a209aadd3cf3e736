import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { SimFault } from '../domain-types.js';

// Simulator state that must survive a restart: the clock offset, runtime settings, faults.

export const SIM_KEYS = {
  clockOffsetMs: 'clock_offset_ms',
  processingDelaySeconds: 'processing_delay_seconds',
  seedGeneration: 'seed_generation',
  /** Set while a first start makes the demo organisation (src/demo.ts); removed once it is made. */
  demoPending: 'demo_pending',
} as const;

// Read with every eSIM an order provisions (the processing delay): compiled once.
const readSimStateStatement = compiledOnce((db, p: { key: string }) =>
  db.selectFrom('sim_state').select('value').where('key', '=', p.key),
);

export async function readSimState(db: Executor, key: string): Promise<string | undefined> {
  const { rows } = await readSimStateStatement.execute(db, { key });
  return rows[0]?.value;
}

export async function writeSimState(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('sim_state')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

export async function deleteSimState(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('sim_state').where('key', '=', key).execute();
}

export async function readProcessingDelayOverride(db: Executor): Promise<number | undefined> {
  const raw = await readSimState(db, SIM_KEYS.processingDelaySeconds);
  return raw === undefined ? undefined : Number(raw);
}

export async function insertFault(db: Executor, fault: SimFault): Promise<void> {
  await db
    .insertInto('sim_faults')
    .values({
      id: fault.id,
      route: fault.route,
      method: fault.method,
      status: fault.status,
      remaining: fault.remaining,
      probability: fault.probability,
      latency_ms: fault.latencyMs,
      created_at: fault.createdAt,
    })
    .execute();
}

export async function listFaults(db: Executor): Promise<SimFault[]> {
  const rows = await db
    .selectFrom('sim_faults')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    route: r.route,
    method: r.method,
    status: r.status === null ? null : Number(r.status),
    remaining: r.remaining === null ? null : Number(r.remaining),
    probability: r.probability === null ? null : Number(r.probability),
    latencyMs: Number(r.latency_ms),
    createdAt: r.created_at,
  }));
}

/** Takes one of a counted fault's remaining uses; false when another request took the last. */
export async function consumeFault(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .updateTable('sim_faults')
    .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
    .where('id', '=', id)
    .where('remaining', '>', 0)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await db.deleteFrom('sim_faults').where('id', '=', id).where('remaining', '<=', 0).execute();
  return true;
}

export async function deleteFaults(db: Executor, id?: string): Promise<number> {
  let query = db.deleteFrom('sim_faults');
  if (id !== undefined) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
