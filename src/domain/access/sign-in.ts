import {
  deleteSignInFailures,
  findPasswordHash,
} from '../../store/repositories/portal-repository.js';
import { releaseAttempt } from '../../store/repositories/portal-repository.js';
import { findUsersByEmail } from '../../store/repositories/user-repository.js';
import { audit, userActor } from '../audit/audit-log.js';
import type { Executor } from '../../store/database.js';
import { addressGroup } from './address-group.js';
import { inTransaction, lockKey, takeAttempt } from './attempts.js';
import type { AttemptKey, AttemptRules } from './attempts.js';
import type { PortalDeps } from './access-deps.js';
import { decoyHash, verifyPassword } from './passwords.js';
import type { PortalSession } from './sessions.js';
import { startSession } from './sessions.js';
import type { PortalUser } from './portal-user.js';

// Sign-in with an email address and a password. Attempts are counted per account (the email
// address as typed, whether or not a user has it) and per client address before the password is
// checked (attempts.ts), so a burst of any size checks no more than PORTAL_LOCK_FAILURES
// passwords of an account (an address gets five times as many, since an office shares one); a
// key that used them up is locked for PORTAL_LOCK_MINUTES. The password check itself waits for
// a slot of the password gate (password-gate.ts). The answers for an unknown email, a wrong
// password and a locked key do not tell whether the account exists, and an unknown email costs
// the same scrypt time as a known one.

export const WRONG_CREDENTIALS = 'The email address or password is not correct.';
export const BUSY = 'Too many sign-ins are being checked right now. Try again in a moment.';
const FAILURE_WINDOW_MS = 3_600_000;
const ADDRESS_FACTOR = 5;

export type SignInResult =
  | { readonly ok: true; readonly token: string; readonly session: PortalSession }
  | { readonly ok: false; readonly message: string; readonly busy?: true };

export function lockedMessage(minutes: number): string {
  return `Too many failed sign-ins. Sign-in is locked for ${minutes} minutes; try again later or reset your password.`;
}

interface Attempt {
  readonly email: string;
  readonly password: string;
  /** The client address. */
  readonly source: string;
}

function throttleKeys(deps: PortalDeps, attempt: Attempt): AttemptKey[] {
  const limit = deps.config.portal.lockFailures;
  return [
    { key: `account:${attempt.email.trim().toLowerCase()}`, limit },
    {
      key: `address:${addressGroup(attempt.source, deps.config.rateLimitIpv6Prefix)}`,
      limit: limit * ADDRESS_FACTOR,
    },
  ];
}

function rules(deps: PortalDeps): AttemptRules {
  return { windowMs: FAILURE_WINDOW_MS, lockMs: deps.config.portal.lockMinutes * 60_000 };
}

/** A password check through the gate; undefined when the gate is full. */
export function checkPassword(
  deps: PortalDeps,
  password: string,
  hash: string,
): Promise<boolean | undefined> {
  const check = () => verifyPassword(password, hash);
  return deps.passwordGate === undefined ? check() : deps.passwordGate.run(check);
}

async function findMatch(
  deps: PortalDeps,
  attempt: Attempt,
): Promise<PortalUser | 'busy' | undefined> {
  const candidates = await findUsersByEmail(deps.store.db, attempt.email.trim());
  let checked = 0;
  for (const user of candidates) {
    const hash = await findPasswordHash(deps.store.db, user.id);
    if (hash === undefined) continue;
    checked += 1;
    const right = await checkPassword(deps, attempt.password, hash);
    if (right === undefined) return 'busy';
    if (right) return user;
  }
  if (checked === 0) {
    if (
      (await checkPassword(
        deps,
        attempt.password,
        await decoyHash(deps.config.portal.passwordCost),
      )) === undefined
    ) {
      return 'busy';
    }
  }
  return undefined;
}

async function auditFailure(
  tx: Executor,
  deps: PortalDeps,
  attempt: Attempt,
  details: Record<string, unknown>,
): Promise<void> {
  const [known] = await findUsersByEmail(tx, attempt.email.trim());
  await audit(
    tx,
    { actor: `user:${attempt.email.trim().toLowerCase()}`, source: attempt.source },
    {
      action: 'portal.sign_in_failed',
      organisationId: known?.organisationId ?? null,
      at: deps.clock.now(),
      details,
    },
  );
}

/** Gives the attempt back under every key: it was not a guess (right, or never checked). */
async function uncount(tx: Executor, keys: readonly AttemptKey[]): Promise<void> {
  for (const { key } of keys) await releaseAttempt(tx, key);
}

export async function signIn(deps: PortalDeps, attempt: Attempt): Promise<SignInResult> {
  const lockMinutes = deps.config.portal.lockMinutes;
  const keys = throttleKeys(deps, attempt);
  const verdict = await inTransaction(deps, async (tx) => {
    const taken = await takeAttempt(tx, keys, rules(deps), deps.wallClock.now());
    if (taken.refusedDuringLock > 0) {
      await auditFailure(tx, deps, attempt, {
        reason: 'locked',
        refusedDuringLock: taken.refusedDuringLock,
      });
    }
    // One row per lock, not one per refusal: the rest are summed up when the lock is over.
    if (!taken.allowed && taken.firstRefusal) {
      await auditFailure(tx, deps, attempt, {
        reason: 'locked',
        note: 'further refusals during this lock are counted and summed up once it is over',
      });
    }
    return taken;
  });
  if (!verdict.allowed) return { ok: false, message: lockedMessage(lockMinutes) };

  const user = await findMatch(deps, attempt);
  if (user === 'busy') {
    await inTransaction(deps, (tx) => uncount(tx, keys));
    return { ok: false, message: BUSY, busy: true };
  }
  if (user === undefined) {
    const locked = await inTransaction(deps, async (tx) => {
      const now = deps.wallClock.now();
      let nowLocked = false;
      for (const [index, { key, limit }] of keys.entries()) {
        if ((verdict.counts[index] ?? 0) >= limit) {
          await lockKey(tx, key, rules(deps), now);
          nowLocked = true;
        }
      }
      const reason = nowLocked ? 'wrong password; now locked' : 'wrong password';
      await auditFailure(tx, deps, attempt, { reason });
      return nowLocked;
    });
    return { ok: false, message: locked ? lockedMessage(lockMinutes) : WRONG_CREDENTIALS };
  }
  const started = await inTransaction(deps, async (tx) => {
    await deleteSignInFailures(tx, keys[0]?.key ?? '');
    await uncount(tx, keys.slice(1));
    const session = await startSession(tx, deps, user, attempt.source);
    await audit(tx, userActor(user, attempt.source), {
      action: 'portal.signed_in',
      organisationId: user.organisationId,
      at: deps.clock.now(),
    });
    return session;
  });
  return { ok: true, ...started };
}
