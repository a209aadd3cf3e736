import type { Db, Executor } from '../../store/database.js';
import type { GroupWriter } from '../../store/group-commit.js';
import { inSavepoint } from '../../store/savepoint.js';
import type { DomainError } from '../errors.js';
import type { HeldClaim, IdempotencyDeps, IdempotencyRequest, Replay } from './idempotency.js';
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
// repeat with the stored outcome (`kind: 'replayed'`) without running the use case.
// A use case committed by the group writer (`group`) needs no claim of its own, which would cost a
// transaction of its own: its record is written, finished, as one more statement of the write
// (`runGroupedWithKey`).
//
// A process with effects outside the database (a card charge, an SMS handed to the network) is
// not one transaction: `runProcess` runs it with the same claim, and it opens its transactions
// through `runUseCase`. It may hand the claim over to whoever finishes it later (`handOver`);
// otherwise its answer is stored once it returns.

export type UseCase<D, I, R> = (tx: Executor, deps: D, input: I) => Promise<R>;

export type Outcome<B> = { readonly kind: 'done'; readonly body: B } | Replay;

export interface RunOptions<R, B> {
  /** The request's Idempotency-Key, when it carries one. */
  readonly idempotency?: IdempotencyRequest | undefined;
  /** The answer to return (and store for a repeat), e.g. the body of an HTTP reply. */
  readonly present: (result: R) => B;
  /** The status stored with the answer for a repeat: 200 unless given (or read once it is done). */
  readonly status?: number | (() => number);
  /**
   * Commit this write together with others of its kind arriving at the same time (group
   * commit, store/group-commit.ts), grouped by this key: the organisation whose balance it moves.
   * Without it the use case has a transaction of its own.
   */
  readonly group?: string;
}

const statusOf = (options: { status?: number | (() => number) }): number =>
  typeof options.status === 'function' ? options.status() : (options.status ?? 200);

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
export function inTransaction<D extends WriteDeps, R>(
  deps: D,
  work: (tx: Executor) => Promise<R>,
  group?: string,
): Promise<R> {
  const writer = deps.store.writer;
  if (group !== undefined && writer !== undefined) return writer.run(group, work);
  return deps.store.db.transaction().execute(work);
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
  const held = await claimKey(deps, options.idempotency);
  if (held.kind === 'replayed') return held;
  return guarded(deps, held, () =>
    inTransaction(
      deps,
      async (tx) => {
        const body = present(await useCase(tx, deps, input));
        await completeKey(tx, held, body, statusOf(options));
        return body;
      },
      options.group,
    ),
  );
}

/** What a keyed write's transaction ends with: an answer to commit, or a 4xx to commit as one. */
type Settled<B> =
  | { readonly kind: 'answered'; readonly outcome: Outcome<B> }
  | { readonly kind: 'refused'; readonly error: DomainError };

/** A first attempt found the key taken or was refused: it is rolled back and run again, carefully. */
class AttemptAgain extends Error {}

/**
 * An Idempotency-Key inside the group writer's transaction. The record is written once, finished,
 * after the use case (recordAnswer: one statement), so a keyed write costs one statement more than
 * an unkeyed one, in the same commit. Most keys are new, so the first attempt does not look first.
 * When the record cannot be written (the key has a live record: a repeat, maybe an earlier write
 * of the same batch), or the use case is refused with a 4xx, the attempt throws: the writer rolls
 * it back (alone, the rest of its batch commits) and runs it again, or this runs it again. The
 * second attempt reads the record first and answers from it without running the use case; if the
 * key is free it runs the use case in a savepoint, so that a 4xx can be undone and stored in its
 * place. Either way the record commits with the effects it answers for, and the answer is given
 * only after that commit. Two requests with the same key thus behave as in two transactions one
 * after the other, in one batch or across instances sharing a PostgreSQL database (where the
 * record's unique index makes the second wait for the first's commit, then answer from it).
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
  let careful = false;

  const answered = async (tx: Executor, result: R): Promise<Settled<B>> => {
    const body = options.present(result);
    if (await recordAnswer(tx, deps, request, { status: statusOf(options), body })) {
      return { kind: 'answered', outcome: { kind: 'done', body } };
    }
    if (careful) throw takenMeanwhile(request.key);
    careful = true;
    throw new AttemptAgain();
  };

  const firstAttempt = async (tx: Executor): Promise<Settled<B>> => {
    let result: R;
    try {
      result = await useCase(tx, deps, input);
    } catch (error) {
      if (!isStoredOutcome(error)) throw error;
      careful = true;
      throw new AttemptAgain();
    }
    return answered(tx, result);
  };

  const carefulAttempt = async (tx: Executor): Promise<Settled<B>> => {
    const replay = await findAnswer(tx, deps, request);
    if (replay !== undefined) return { kind: 'answered', outcome: replay };
    const attempt = await inSavepoint(tx, () => useCase(tx, deps, input));
    if (attempt.ok) return answered(tx, attempt.value);
    if (!isStoredOutcome(attempt.error)) throw attempt.error;
    if (!(await recordAnswer(tx, deps, request, attempt.error))) {
      throw takenMeanwhile(request.key);
    }
    return { kind: 'refused', error: attempt.error };
  };

  const work = (tx: Executor) => (careful ? carefulAttempt(tx) : firstAttempt(tx));
  let settled: Settled<B>;
  try {
    settled = await writer.run(group, work);
  } catch (error) {
    // The writer ran the attempt alone (a batch of one): nothing of it stayed; run it again.
    if (!(error instanceof AttemptAgain)) throw error;
    settled = await writer.run(group, work);
  }
  if (settled.kind === 'refused') throw settled.error;
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
  const held = await claimKey(deps, options.idempotency);
  if (held.kind === 'replayed') return held;
  const claim: ProcessClaim = {
    key: held.key,
    handOver: (owner, leaseSeconds) => handOverKey(deps, held, owner, leaseSeconds),
  };
  return guarded(deps, held, async () => {
    const body = present(await process(deps, input, claim));
    // The effects have happened: a claim lost meanwhile does not turn them into an error.
    if (!held.handedOver) await storeAnswer(deps.store.db, held, body, statusOf(options));
    return body;
  });
}

async function guarded<D extends IdempotencyDeps, B>(
  deps: D,
  held: HeldClaim,
  work: () => Promise<B>,
): Promise<Outcome<B>> {
  try {
    return { kind: 'done', body: await work() };
  } catch (error) {
    await failKey(deps.store.db, held, error);
    throw error;
  }
}
