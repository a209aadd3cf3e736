import type { Db, Executor } from '../../store/database.js';
import type { HeldClaim, IdempotencyDeps, IdempotencyRequest, Replay } from './idempotency.js';
import { claimKey, completeKey, failKey, handOverKey, storeAnswer } from './idempotency.js';

// The use-case runner: the one place that opens a write transaction. A use case is a domain
// function of a transaction, `(tx, deps, input) => result`, so a writer may run several in one.
//
//   const outcome = await runUseCase(deps, placeOrder, input, { idempotency, present });
//
// With an Idempotency-Key (`idempotency`), the runner claims the key before the transaction,
// writes the answer (`present(result)`, the body a repeat gets) in the use case's transaction,
// stores a 4xx DomainError after a rollback, releases the claim on anything else, and answers a
// repeat with the stored outcome (`kind: 'replayed'`) without running the use case.
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

/** What opening a transaction needs. */
export interface WriteDeps {
  readonly store: { readonly db: Db };
}

/** Opens the write transaction of one use case. */
export function inTransaction<D extends WriteDeps, R>(
  deps: D,
  work: (tx: Executor) => Promise<R>,
): Promise<R> {
  return deps.store.db.transaction().execute(work);
}

/** Runs one use case in its own transaction (a request without Idempotency-Key, a worker). */
export function runWrite<D extends WriteDeps, I, R>(
  deps: D,
  useCase: UseCase<D, I, R>,
  input: I,
): Promise<R> {
  return inTransaction(deps, (tx) => useCase(tx, deps, input));
}

/** Runs one use case in its own transaction, with the request's idempotency record in it. */
export async function runUseCase<D extends IdempotencyDeps, I, R, B>(
  deps: D,
  useCase: UseCase<D, I, R>,
  input: I,
  options: RunOptions<R, B>,
): Promise<Outcome<B>> {
  const { present } = options;
  if (options.idempotency === undefined) {
    return { kind: 'done', body: present(await runWrite(deps, useCase, input)) };
  }
  const held = await claimKey(deps, options.idempotency);
  if (held.kind === 'replayed') return held;
  return guarded(deps, held, () =>
    inTransaction(deps, async (tx) => {
      const body = present(await useCase(tx, deps, input));
      await completeKey(tx, held, body, statusOf(options));
      return body;
    }),
  );
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
