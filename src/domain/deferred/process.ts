import { addSeconds, iso } from '../../clock.js';
import type { Clock, WallClock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { RandomSource } from '../../random.js';
import type { Db, Executor } from '../../store/database.js';
import type { GroupWriter } from '../../store/group-commit.js';
import {
  claimDeferred,
  finishDeferred,
  listDueDeferred,
  postponeDeferred,
  purgeDeferred,
} from '../../store/repositories/deferred-repository.js';
import type { DeferredRequest } from '../../store/repositories/deferred-repository.js';
import { DomainError } from '../errors/error-codes.js';
import { placeOrder } from '../orders/placement.js';
import type { PlaceOrderInput } from '../orders/placement.js';
import { applyBundle } from '../esims/apply-bundle.js';
import type { ApplyBundleInput } from '../esims/apply-bundle.js';
import { isStoredOutcome } from '../runner/idempotency.js';
import { runWrite } from '../runner/use-case-runner.js';

// The background half of deferred requests (submit.ts): claim due rows with a lease, run each
// one's use case with its fixed reference, and mark the row done in the same transaction. A crash
// before the commit leaves the row queued and nothing written; once the lease lapses another
// turn (this process after a restart, or another instance) runs it again. Two workers that both
// think they hold a row cannot both commit: the row's `done` is conditional on the holder, and
// the order or apply reference is a primary key. A refusal (a 4xx, e.g. funds spent meanwhile) is
// stored for the client's next ask; anything else is tried again later, at most MAX_ATTEMPTS times.

export const DEFERRED_LEASE_SECONDS = 60;
export const MAX_ATTEMPTS = 5;
const BATCH = 10;

export interface DeferredWorkDeps {
  readonly store: { readonly db: Db; readonly writer?: GroupWriter };
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly random: RandomSource;
  readonly config: Config;
}

export interface DeferredTurn {
  readonly done: number;
  readonly failed: number;
  readonly postponed: number;
  readonly purged: number;
}

class LeaseLost extends Error {}

/** The work of one row, in the transaction that also marks it done. */
function work(tx: Executor, deps: DeferredWorkDeps, request: DeferredRequest): Promise<unknown> {
  switch (request.kind) {
    case 'order':
      return placeOrder(tx, deps, {
        ...(request.input as Omit<PlaceOrderInput, 'reference'>),
        reference: request.reference,
      });
    case 'apply':
      return applyBundle(tx, deps, {
        ...(request.input as Omit<ApplyBundleInput, 'reference'>),
        reference: request.reference,
      });
  }
}

/** The use case of one claimed row: its work, and the row marked done by its holder. */
async function processRow(
  tx: Executor,
  deps: DeferredWorkDeps,
  input: { readonly request: DeferredRequest; readonly owner: string },
): Promise<void> {
  const { request, owner } = input;
  await work(tx, deps, request);
  const at = iso(deps.clock.now());
  if (!(await finishDeferred(tx, { id: request.id, owner, at }))) throw new LeaseLost();
}

async function processOne(
  deps: DeferredWorkDeps,
  request: DeferredRequest,
  owner: string,
): Promise<'done' | 'failed' | 'postponed' | 'lost'> {
  const db = deps.store.db;
  const leaseNow = deps.wallClock.now();
  const claimed = await claimDeferred(db, {
    id: request.id,
    owner,
    leaseNow: iso(leaseNow),
    lockedUntil: iso(addSeconds(leaseNow, DEFERRED_LEASE_SECONDS)),
    at: iso(deps.clock.now()),
  });
  if (!claimed) return 'lost';
  const attempts = request.attempts + 1;
  try {
    await runWrite(deps, processRow, { request, owner }, request.organisationId);
    return 'done';
  } catch (error) {
    if (error instanceof LeaseLost) return 'lost';
    const at = iso(deps.clock.now());
    if (isStoredOutcome(error)) {
      const refusal = { code: error.code, message: error.message };
      return (await finishDeferred(db, { id: request.id, owner, at, error: refusal }))
        ? 'failed'
        : 'lost';
    }
    if (attempts >= MAX_ATTEMPTS) {
      const gaveUp = new DomainError(
        'unavailable',
        `the request could not be processed after ${attempts} attempts; nothing was charged`,
      );
      await finishDeferred(db, {
        id: request.id,
        owner,
        at,
        error: { code: gaveUp.code, message: gaveUp.message },
      });
      throw error;
    }
    // Tried again once the back-off has passed (2, 4, 8 … seconds of wall clock).
    const lockedUntil = iso(addSeconds(deps.wallClock.now(), 2 ** attempts));
    await postponeDeferred(db, { id: request.id, owner, lockedUntil, at });
    throw error;
  }
}

/**
 * One turn of the deferred-requests worker: up to a batch of due rows, one after another, and a
 * purge of finished rows past their retention. Errors other than refusals are reported through
 * `onError` after the row was handed back; the turn goes on with the next row.
 */
export async function runDeferredRequests(
  deps: DeferredWorkDeps,
  owner: string,
  onError: (error: unknown, request: DeferredRequest) => void = () => undefined,
): Promise<DeferredTurn> {
  const due = await listDueDeferred(deps.store.db, iso(deps.wallClock.now()), BATCH);
  let done = 0;
  let failed = 0;
  let postponed = 0;
  for (const request of due) {
    try {
      const outcome = await processOne(deps, request, owner);
      if (outcome === 'done') done += 1;
      if (outcome === 'failed') failed += 1;
    } catch (error) {
      postponed += 1;
      onError(error, request);
    }
  }
  const purged = await purgeDeferred(deps.store.db, iso(deps.clock.now()), 100);
  return { done, failed, postponed, purged };
}
