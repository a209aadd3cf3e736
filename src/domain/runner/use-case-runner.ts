import type { Db, Executor } from '../../store/database.js';
import { rerunOnConflict } from '../../store/conflicts.js';
import type { GroupWriter } from '../../store/group-commit.js';
import { inSavepoint } from '../../store/savepoint.js';
import { DomainError } from '../errors/error-codes.js';
import type {
  ClaimLog,
  HeldClaim,
  IdempotencyDeps,
  IdempotencyRequest,
  Replay,
} from './idempotency.js';
import {
  claimKey,
  completeKey,
  failKey,
  findAnswer,
  handOverKey,
  isStoredOutcome,
  recordAnswer,
  storeAnswer,
  takenMeanwhile,
} from './idempotency.js';

// The use-case runner: the one place that opens a write transaction. A use case is a domain
// function of a transaction, `(tx, deps, input) => result`, so a writer may run several in one.
//
//   const outcome = await runUseCase(deps, placeOrder, input, { idempotency, present });
//
// With an Idempotency-Key (`idempotency`), the runner claims the key before the transaction,
// writes the answer (`present(result)`, the body a repeat gets) in the use case's transaction,
// stores a 4xx DomainError after a rollback, releases the claim on anything else, and answers a
// repeat with the stored outcome (`kind: 'replayed'`, or `'refused'` with the error stored)
// without running the use case.
// A use case committed by the group writer (`group`) needs no claim of its own, which would cost a
// transaction of its own: its record is read and written, finished, by the write itself
// (`runGroupedWithKey`).
//
// A process with effects outside the database (a card charge, an SMS handed to the network) is
// not one transaction: `runProcess` runs it with the same claim, and it opens its transactions
// through `runUseCase`. It may hand the claim over to whoever finishes it later (`handOver`);
// otherwise its answer is stored once it returns.

export type UseCase<D, I, R> = (tx: Executor, deps: D, input: I) => Promise<R>;

export type Outcome<B> = { readonly kind: 'done'; readonly body: B } | Replay<B>;

/**
 * The answer of an outcome, for a surface that shows a replay as it shows a first answer (the
 * portal): the body, whether the use case ran now or earlier; the refusal of an earlier run is
 * thrown again. A record stored in another form (an earlier release's) cannot be shown: a 409.
 */
export function answerOf<B>(outcome: Outcome<B>): B {
  switch (outcome.kind) {
    case 'done':
    case 'replayed':
      return outcome.body;
    case 'refused':
      throw outcome.error;
    case 'stored':
      throw new DomainError('conflict', 'the key was used by a request this release cannot show');
  }
}

export interface RunOptions<R, B> {
  /** The request's Idempotency-Key, when it carries one. */
  readonly idempotency?: IdempotencyRequest | undefined;
  /** The answer to return (and store for a repeat), e.g. the body of an HTTP reply. */
  readonly present: (result: R) => B;
  /**
   * Commit this write together with others of its kind arriving at the same time (group
   * commit, store/group-commit.ts), grouped by this key: the organisation whose balance it moves.
   * Without it the use case has a transaction of its own.
   */
  readonly group?: string;
}

/** What a process may do with the claim of its request. */
export interface ProcessClaim {
  /** The Idempotency-Key presented, if any. */
  readonly key: string | undefined;
  /** Passes the claim to `owner`, who must complete or release it within leaseSeconds. */
  handOver(owner: string, leaseSeconds: number): Promise<void>;
}

export type Process<D, I, R> = (deps: D, input: I, claim: ProcessClaim) => Promise<R>;

/** What opening a transaction needs; the group writer where writes may be committed together. */
export interface WriteDeps {
  readonly store: { readonly db: Db; readonly writer?: GroupWriter };
}

/**
 * Opens the write transaction of one use case. With a `group`, the store's group writer runs it,
 * possibly in one transaction with other writes that arrive together; it resolves only after that
 * transaction has committed, and a use case that throws is rolled back alone.
 */
function inTransaction<D extends WriteDeps, R>(
  deps: D,
  work: (tx: Executor) => Promise<R>,
  group?: string,
): Promise<R> {
  const writer = deps.store.writer;
  if (group !== undefined && writer !== undefined) return writer.run(group, work);
  // A transaction of its own that lost a deadlock to another instance is run again.
  return rerunOnConflict(() => deps.store.db.transaction().execute(work));
}

/** Runs one use case in its own transaction (a request without Idempotency-Key, a worker). */
export function runWrite<D extends WriteDeps, I, R>(
  deps: D,
  useCase: UseCase<D, I, R>,
  input: I,
  group?: string,
): Promise<R> {
  return inTransaction(deps, (tx) => useCase(tx, deps, input), group);
}

/** Runs one use case in its own transaction, with the request's idempotency record in it. */
export async function runUseCase<D extends IdempotencyDeps & WriteDeps, I, R, B>(
  deps: D,
  useCase: UseCase<D, I, R>,
  input: I,
  options: RunOptions<R, B>,
): Promise<Outcome<B>> {
  const { present } = options;
  if (options.idempotency === undefined) {
    return { kind: 'done', body: present(await runWrite(deps, useCase, input, options.group)) };
  }
  const writer = deps.store.writer;
  if (options.group !== undefined && writer !== undefined) {
    return runGroupedWithKey(writer, options.group, deps, useCase, input, {
      ...options,
      idempotency: options.idempotency,
    });
  }
  const held = await claimKey<B>(deps, options.idempotency);
  if (held.kind !== 'held') return held;
  return guarded(deps, held, options.idempotency.log, () =>
    inTransaction(
      deps,
      async (tx) => {
        const body = present(await useCase(tx, deps, input));
        await completeKey(tx, held, body);
        return body;
      },
      options.group,
    ),
  );
}

/**
 * What a keyed write's attempt ends with, answered once its batch has committed: an outcome, or
 * an error (a refusal stored with the record, or a 409 of the key, which wrote nothing).
 */
type Settled<B> =
  | { readonly kind: 'answered'; readonly outcome: Outcome<B> }
  | { readonly kind: 'failed'; readonly error: DomainError };

/** An attempt was refused, or found the key taken meanwhile: it is rolled back and run again. */
class AttemptAgain extends Error {}

/**
 * An Idempotency-Key inside the group writer's transaction, with no claim committed before it:
 * the write reads the key's record (findAnswer) and, when there is one, answers from it without
 * running the use case (a replay, or a 409; its batch goes on); otherwise it runs the use case and
 * inserts the record, finished (recordAnswer). Two statements more than the same write without a
 * key, in the same commit. A repeat in the same batch reads the record an earlier write of the
 * batch inserted, and one that arrives later reads the committed one: neither runs the use case
 * or costs its batch anything. Reading first costs less than the alternative of only inserting,
 * where every repeat would have run the use case and then made the writer roll its whole batch
 * back and run it again.
 * Rolled back and run again (the writer runs it again in a savepoint of its batch, or this runs
 * it again alone) are only: a 4xx from the use case, which the second attempt runs in a savepoint
 * of its own so that the refusal can be undone and stored in its place; and a record that
 * appeared while the use case ran (PostgreSQL: another instance's, its unique-index entry making
 * the insert wait for that commit), which the second attempt then answers from. Either way the
 * record commits with the effects it answers for, and the answer is given only after that commit.
 */
async function runGroupedWithKey<D extends IdempotencyDeps, I, R, B>(
  writer: GroupWriter,
  group: string,
  deps: D,
  useCase: UseCase<D, I, R>,
  input: I,
  options: RunOptions<R, B> & { readonly idempotency: IdempotencyRequest },
): Promise<Outcome<B>> {
  const request = options.idempotency;
  let again = false;

  /** The answer of the key's live record, read in `tx`; undefined when the key is free. */
  const recorded = async (tx: Executor): Promise<Settled<B> | undefined> => {
    let replay: Replay<B> | undefined;
    try {
      replay = await findAnswer<B>(tx, deps, request);
    } catch (error) {
      // A 409 of the key: nothing written, so the batch goes on without rolling back for it.
      if (error instanceof DomainError) return { kind: 'failed', error };
      throw error;
    }
    return replay === undefined ? undefined : { kind: 'answered', outcome: replay };
  };

  /** After the insert found a record: its answer (a 409 if it has gone again meanwhile). */
  const fromRecord = async (tx: Executor): Promise<Settled<B>> =>
    (await recorded(tx)) ?? { kind: 'failed', error: takenMeanwhile(request.key) };

  const written = async (tx: Executor, result: R): Promise<B> => {
    const body = options.present(result);
    if (!(await recordAnswer(tx, deps, request, { body }))) {
      throw new AttemptAgain();
    }
    return body;
  };

  const attempt = async (tx: Executor): Promise<Settled<B>> => {
    const found = await recorded(tx);
    if (found !== undefined) return found;
    if (!again) {
      try {
        const body = await written(tx, await useCase(tx, deps, input));
        return { kind: 'answered', outcome: { kind: 'done', body } };
      } catch (error) {
        // Refused, or the key's record appeared meanwhile: rolled back, it runs again carefully.
        if (!(error instanceof AttemptAgain) && !isStoredOutcome(error)) throw error;
        again = true;
        throw new AttemptAgain();
      }
    }
    // The second attempt: in a savepoint, so that a refusal, or a record that appeared meanwhile
    // (another instance's, whose commit the insert waited for), undoes only this use case.
    const tried = await inSavepoint(tx, async () => written(tx, await useCase(tx, deps, input)));
    if (tried.ok) return { kind: 'answered', outcome: { kind: 'done', body: tried.value } };
    if (tried.error instanceof AttemptAgain) return fromRecord(tx);
    if (!isStoredOutcome(tried.error)) throw tried.error;
    if (await recordAnswer(tx, deps, request, tried.error)) {
      return { kind: 'failed', error: tried.error };
    }
    return fromRecord(tx);
  };

  let settled: Settled<B>;
  try {
    settled = await writer.run(group, attempt);
  } catch (error) {
    // The writer ran the attempt alone (a batch of one): nothing of it stayed; run it again.
    if (!(error instanceof AttemptAgain)) throw error;
    settled = await writer.run(group, attempt);
  }
  if (settled.kind === 'failed') throw settled.error;
  return settled.outcome;
}

/** Runs a process that opens its own transactions (through runUseCase) under one claim. */
export async function runProcess<D extends IdempotencyDeps, I, R, B>(
  deps: D,
  process: Process<D, I, R>,
  input: I,
  options: RunOptions<R, B>,
): Promise<Outcome<B>> {
  const { present } = options;
  const unclaimed: ProcessClaim = { key: undefined, handOver: async () => undefined };
  if (options.idempotency === undefined) {
    return { kind: 'done', body: present(await process(deps, input, unclaimed)) };
  }
  const held = await claimKey<B>(deps, options.idempotency);
  if (held.kind !== 'held') return held;
  const claim: ProcessClaim = {
    key: held.key,
    handOver: (owner, leaseSeconds) => handOverKey(deps, held, owner, leaseSeconds),
  };
  return guarded(deps, held, options.idempotency.log, async () => {
    const body = present(await process(deps, input, claim));
    // The effects have happened: a claim lost meanwhile does not turn them into an error.
    if (!held.handedOver) await storeAnswer(deps.store.db, held, body);
    return body;
  });
}

async function guarded<D extends IdempotencyDeps, B>(
  deps: D,
  held: HeldClaim,
  log: ClaimLog | undefined,
  work: () => Promise<B>,
): Promise<Outcome<B>> {
  try {
    return { kind: 'done', body: await work() };
  } catch (error) {
    // The work's own error is the answer: one from releasing the claim (the database that lost
    // the work's connection is often still away) must not replace it. It is logged: the key
    // stays claimed, and a repeat is answered 409 idempotency_in_progress until the lease ends.
    await failKey(deps.store.db, held, error).catch((failure: unknown) => {
      log?.warn(
        { err: failure, organisationId: held.organisationId, idempotencyKey: held.key },
        'the Idempotency-Key could not be released after the request failed; it stays claimed until its lease ends',
      );
    });
    throw error;
  }
}
