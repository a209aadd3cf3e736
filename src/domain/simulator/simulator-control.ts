import type { Clock, OffsetClock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { Db, Executor } from '../../store/database.js';
import type { SimFault } from './fault.js';
import {
  SIM_KEYS,
  consumeFault,
  deleteFaults,
  deleteSimState,
  insertFault,
  writeSimState,
} from '../../store/repositories/sim-repository.js';
import { deleteAllSms } from '../../store/repositories/sms-repository.js';
import { badRequest } from '../errors/error-codes.js';
import { runWrite } from '../runner/use-case-runner.js';

// What the simulator control plane (/_sim, simulator mode only) changes: simulated faults, the
// processing delay of new assignments, and a reset of both with the SMS outbox and the seed.
// Faults and settings live in rows; `faultsMayExist` only saves the fault check a query.

export interface SimulatorControlDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly random: RandomSource;
}

/** The parts of the running simulator the control plane resets. */
export interface SimulatorState {
  readonly network: { reseed(): void };
  faultsMayExist: boolean;
}

/** What a reset clears, in the order the answer names it. */
export const RESET_PARTS = ['faults', 'processing', 'sms', 'seed'] as const;

async function clearSimulatorRows(tx: Executor): Promise<void> {
  await deleteFaults(tx);
  await deleteSimState(tx, SIM_KEYS.processingDelaySeconds);
  await deleteAllSms(tx);
}

/** Removes every fault, the processing delay override and the SMS outbox; reseeds the network. */
export async function resetSimulator(
  deps: SimulatorControlDeps,
  simulator: SimulatorState,
): Promise<readonly string[]> {
  await runWrite(deps, (tx) => clearSimulatorRows(tx), undefined);
  restartNetwork(simulator);
  return RESET_PARTS;
}

/** What a reset changes beside rows: the network's sequence restarts, and no fault is left. */
export function restartNetwork(simulator: SimulatorState): void {
  simulator.network.reseed();
  simulator.faultsMayExist = false;
}

export interface FaultInput {
  /** The route pattern, already normalised. */
  readonly route: string;
  readonly method: string;
  readonly status: number | null;
  readonly count: number | null;
  readonly probability: number | null;
  readonly latencyMs: number;
}

/** Adds a fault (400 when it would do nothing). */
export async function addFault(
  deps: SimulatorControlDeps,
  simulator: SimulatorState,
  input: FaultInput,
): Promise<SimFault> {
  if (input.status === null && input.latencyMs === 0) {
    throw badRequest('body must set status, latencyMs or both');
  }
  const fault: SimFault = {
    id: deps.random.uuid(),
    route: input.route,
    method: input.method.toUpperCase(),
    status: input.status,
    remaining: input.count,
    probability: input.probability,
    latencyMs: input.latencyMs,
    createdAt: iso(deps.clock.now()),
  };
  await insertFault(deps.store.db, fault);
  simulator.faultsMayExist = true;
  return fault;
}

/** Removes the fault `id`, or every fault; returns how many went. */
export function removeFaults(deps: SimulatorControlDeps, id?: string): Promise<number> {
  return deleteFaults(deps.store.db, id);
}

/** Takes one use of a counted fault; false when it has none left (another request took it). */
export function takeFault(
  deps: { readonly store: { readonly db: Db } },
  id: string,
): Promise<boolean> {
  return consumeFault(deps.store.db, id);
}

/** Sets the seconds a new assignment stays Processing, overriding PROCESSING_DELAY_SECONDS. */
export async function setProcessingDelay(
  deps: { readonly store: { readonly db: Db } },
  seconds: number,
): Promise<void> {
  await writeSimState(deps.store.db, SIM_KEYS.processingDelaySeconds, String(seconds));
}

/** Goes back to the configured processing delay. */
export async function clearProcessingDelay(deps: {
  readonly store: { readonly db: Db };
}): Promise<void> {
  await deleteSimState(deps.store.db, SIM_KEYS.processingDelaySeconds);
}

/**
 * Moves the simulator clock forward (never back: stored times would then lie in the future) and
 * records the offset so it survives a restart.
 */
export async function advanceSimulatorClock(
  deps: { readonly store: { readonly db: Db } },
  clock: OffsetClock,
  seconds: number,
): Promise<Date> {
  const now = clock.advance(seconds);
  await writeSimState(deps.store.db, SIM_KEYS.clockOffsetMs, String(clock.offset));
  return now;
}
