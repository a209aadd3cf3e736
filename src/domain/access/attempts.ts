import { iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { PortalDeps } from './access-deps.js';
import {
  recordAttempt,
  lockAttempts,
  setAttempts,
} from '../../store/repositories/portal-repository.js';

// Attempts counted before they are checked. A sign-in, a current-password check or a
// forgot-password request first counts itself under each of its keys (the account, the client
// address) in the database, in one statement per key; only an attempt within every key's limit
// goes on to the password check (or the mail). However many arrive at once, no more than the
// limit of a key are ever checked in its window. Past the limit the key locks for `lockMs`;
// refusals while it is locked are counted in the same row, not written one audit row each: the
// first refusal of a lock is reported (`firstRefusal`) and, when the next attempt after the lock
// finds it over, the number refused during it (`refusedDuringLock`).

export interface AttemptKey {
  readonly key: string;
  /** Attempts allowed per window. */
  readonly limit: number;
}

export interface AttemptRules {
  readonly windowMs: number;
  readonly lockMs: number;
}

export type AttemptVerdict =
  | {
      readonly allowed: true;
      /** Attempts counted under each key, this one included, in key order. */
      readonly counts: readonly number[];
      /** Refusals under a key whose lock this attempt found over, for the audit summary. */
      readonly refusedDuringLock: number;
    }
  | {
      readonly allowed: false;
      /** This is the first attempt refused under the lock (the one that set it, or the next). */
      readonly firstRefusal: boolean;
      readonly refusedDuringLock: number;
    };

/** Counts the attempt under every key; call in its own short transaction, before the check. */
export async function takeAttempt(
  tx: Executor,
  keys: readonly AttemptKey[],
  rules: AttemptRules,
  now: Date,
): Promise<AttemptVerdict> {
  const at = iso(now);
  const windowStart = iso(new Date(now.getTime() - rules.windowMs));
  const lockUntil = iso(new Date(now.getTime() + rules.lockMs));
  const counts: number[] = [];
  let refused: { firstRefusal: boolean } | undefined;
  let refusedDuringLock = 0;
  for (const { key, limit } of keys) {
    const row = await recordAttempt(tx, key, at);
    if (row.lockedUntil !== undefined && row.lockedUntil > at) {
      // Locked: the count is the refusals since the lock began, this one included.
      refused ??= { firstRefusal: row.attempts === 1 };
      continue;
    }
    let attempts = row.attempts;
    if (row.lockedUntil !== undefined || row.windowStartedAt < windowStart) {
      if (row.lockedUntil !== undefined) refusedDuringLock += row.attempts - 1;
      attempts = 1;
      await setAttempts(tx, key, { attempts, windowStartedAt: at, lockedUntil: undefined });
    }
    if (attempts > limit) {
      await setAttempts(tx, key, { attempts: 1, windowStartedAt: at, lockedUntil: lockUntil });
      refused ??= { firstRefusal: true };
      continue;
    }
    counts.push(attempts);
  }
  if (refused !== undefined) return { allowed: false, ...refused, refusedDuringLock };
  return { allowed: true, counts, refusedDuringLock };
}

/** Locks `key` now (an attempt that used the last of its limit failed). */
export async function lockKey(
  tx: Executor,
  key: string,
  rules: AttemptRules,
  now: Date,
): Promise<void> {
  await lockAttempts(tx, key, iso(new Date(now.getTime() + rules.lockMs)), iso(now));
}

/** Runs `write` in its own transaction through the runner. */
export function inTransaction<R>(
  deps: PortalDeps,
  write: (tx: Executor) => Promise<R>,
): Promise<R> {
  return runWrite(deps, write, undefined);
}
