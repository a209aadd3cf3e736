import type { Clock } from '../../../clock.js';
import { addDays, addSeconds, iso } from '../../../clock.js';
import type { Config } from '../../../config.js';
import type { RandomSource } from '../../../random.js';
import type { Executor } from '../../../store/database.js';
import {
  insertAssignment,
  nextQueuePosition,
} from '../../../store/repositories/assignment-repository.js';
import { insertHistory } from '../../../store/repositories/history-repository.js';
import { readProcessingDelayOverride } from '../../../store/repositories/sim-repository.js';
import type { Assignment } from './assignment.js';
import type { Bundle } from '../../catalogue/bundle.js';
import { bundleBytes } from '../../catalogue/bundle.js';
import { HISTORY_NAME } from './states.js';

export interface AssignmentContext {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: Config;
}

export interface NewAssignmentInput {
  readonly organisationId: string;
  readonly iccid: string;
  readonly bundle: Bundle;
  /** The order or apply reference, shared by every assignment it created. */
  readonly reference: string;
  /** The inventory batch the unit came from (its provenance); null when there is none. */
  readonly batchId: number | null;
  /** The eSIM was issued in this transaction: nothing is queued on it yet. */
  readonly newEsim?: boolean;
}

/** Seconds provisioning takes: the simulator's runtime setting, else PROCESSING_DELAY_SECONDS. */
export async function processingDelaySeconds(trx: Executor, config: Config): Promise<number> {
  if (config.mode !== 'simulator') return config.processingDelaySeconds;
  return (await readProcessingDelayOverride(trx)) ?? config.processingDelaySeconds;
}

/**
 * Puts a bundle on an eSIM in the caller's transaction. Every assignment starts in Processing
 * with its "Bundle Applied" history entry. With no processing delay it is provisioned at once, in
 * the same transaction (so the history shows Processing, then Queued); otherwise it stays
 * Processing until the scheduler sees processingDueAt pass.
 */
export async function createAssignment(
  trx: Executor,
  ctx: AssignmentContext,
  input: NewAssignmentInput,
): Promise<Assignment> {
  const now = ctx.clock.now();
  const at = iso(now);
  const delay = await processingDelaySeconds(trx, ctx.config);
  const bytes = bundleBytes(input.bundle);
  const row: Assignment = {
    id: ctx.random.orderedUuid(),
    reference: input.reference,
    iccid: input.iccid,
    organisationId: input.organisationId,
    bundleName: input.bundle.name,
    batchId: input.batchId,
    state: 'Processing',
    initialBytes: bytes,
    remainingBytes: bytes,
    usedBytes: 0,
    unlimited: input.bundle.unlimited,
    durationDays: input.bundle.duration,
    queuePosition: input.newEsim === true ? 1 : await nextQueuePosition(trx, input.iccid),
    processingDueAt: iso(addSeconds(now, delay)),
    // A bundle that never starts lapses like an unapplied inventory unit would.
    validUntil: iso(addDays(now, ctx.config.inventoryValidityDays)),
    startTime: null,
    endTime: null,
    createdAt: at,
    updatedAt: at,
  };
  const applied = {
    iccid: row.iccid,
    name: HISTORY_NAME.Processing,
    bundle: row.bundleName,
    bundleState: 'Processing',
    alertType: '',
    at,
  };
  if (delay > 0) {
    await insertAssignment(trx, row);
    await insertHistory(trx, applied);
    return row;
  }
  // Provisioned at once: the row is written Queued and both history entries in one statement,
  // in their order, which is what the transition from Processing would leave (it cannot be
  // refused), without writing the row twice.
  const queued: Assignment = { ...row, state: 'Queued' };
  await insertAssignment(trx, queued);
  await insertHistory(trx, [
    applied,
    { ...applied, name: HISTORY_NAME.Queued, bundleState: 'Queued' },
  ]);
  return queued;
}
