import { iso } from '../../clock.js';
import {
  deleteSignInFailures,
  recordSignInFailure,
  findLockedUntil,
  findPasswordHash,
  lockSignIn,
} from '../../store/repositories/portal-repository.js';
import { findUsersByEmail } from '../../store/repositories/user-repository.js';
import { audit, userActor } from '../audit/audit-log.js';
import type { Executor } from '../../store/database.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { PortalDeps } from './access-deps.js';
import { decoyHash, verifyPassword } from './passwords.js';
import type { PortalSession } from './sessions.js';
import { startSession } from './sessions.js';
import type { PortalUser } from './portal-user.js';

// Sign-in with an email address and a password. Failures are counted per account (the email
// address as typed, whether or not a user has it) and per client address; PORTAL_LOCK_FAILURES
// in a row within an hour lock that key for PORTAL_LOCK_MINUTES (an address gets five times as
// many, since an office shares one). The answers for an unknown email, a wrong password and a
// locked key do not tell whether the account exists, and an unknown email costs the same scrypt
// time as a known one.

export const WRONG_CREDENTIALS = 'The email address or password is not correct.';
const FAILURE_WINDOW_MS = 3_600_000;
const ADDRESS_FACTOR = 5;

export type SignInResult =
  | { readonly ok: true; readonly token: string; readonly session: PortalSession }
  | { readonly ok: false; readonly message: string };

export function lockedMessage(minutes: number): string {
  return `Too many failed sign-ins. Sign-in is locked for ${minutes} minutes; try again later or reset your password.`;
}

interface Attempt {
  readonly email: string;
  readonly password: string;
  /** The client address. */
  readonly source: string;
}

function throttleKeys(attempt: Attempt): { key: string; limit: number }[] {
  return [
    { key: `account:${attempt.email.trim().toLowerCase()}`, limit: 1 },
    { key: `address:${attempt.source}`, limit: ADDRESS_FACTOR },
  ];
}

async function findMatch(deps: PortalDeps, attempt: Attempt): Promise<PortalUser | undefined> {
  const candidates = await findUsersByEmail(deps.store.db, attempt.email.trim());
  let checked = 0;
  for (const user of candidates) {
    const hash = await findPasswordHash(deps.store.db, user.id);
    if (hash === undefined) continue;
    checked += 1;
    if (await verifyPassword(attempt.password, hash)) return user;
  }
  if (checked === 0) await verifyPassword(attempt.password, await decoyHash());
  return undefined;
}

async function isLocked(deps: PortalDeps, attempt: Attempt): Promise<boolean> {
  const now = iso(deps.wallClock.now());
  for (const { key } of throttleKeys(attempt)) {
    const until = await findLockedUntil(deps.store.db, key);
    if (until !== undefined && until > now) return true;
  }
  return false;
}

/** Counts the failure under each key; true when one of them is now locked. */
async function recordFailure(tx: Executor, deps: PortalDeps, attempt: Attempt): Promise<boolean> {
  const settings = deps.config.portal;
  const now = deps.wallClock.now();
  const windowStart = iso(new Date(now.getTime() - FAILURE_WINDOW_MS));
  const until = iso(new Date(now.getTime() + settings.lockMinutes * 60_000));
  let locked = false;
  for (const { key, limit } of throttleKeys(attempt)) {
    const failures = await recordSignInFailure(tx, key, iso(now), windowStart);
    if (failures >= settings.lockFailures * limit) {
      await lockSignIn(tx, key, until, iso(now));
      locked = true;
    }
  }
  return locked;
}

async function auditFailure(
  tx: Executor,
  deps: PortalDeps,
  attempt: Attempt,
  reason: string,
): Promise<void> {
  const [known] = await findUsersByEmail(tx, attempt.email.trim());
  await audit(
    tx,
    { actor: `user:${attempt.email.trim().toLowerCase()}`, source: attempt.source },
    {
      action: 'portal.sign_in_failed',
      organisationId: known?.organisationId ?? null,
      at: deps.clock.now(),
      details: { reason },
    },
  );
}

export async function signIn(deps: PortalDeps, attempt: Attempt): Promise<SignInResult> {
  const lockMinutes = deps.config.portal.lockMinutes;
  if (await isLocked(deps, attempt)) {
    await runWrite(deps, (tx) => auditFailure(tx, deps, attempt, 'locked'), undefined);
    return { ok: false, message: lockedMessage(lockMinutes) };
  }
  const user = await findMatch(deps, attempt);
  if (user === undefined) {
    const locked = await runWrite(
      deps,
      async (tx) => {
        const nowLocked = await recordFailure(tx, deps, attempt);
        const reason = nowLocked ? 'wrong password; now locked' : 'wrong password';
        await auditFailure(tx, deps, attempt, reason);
        return nowLocked;
      },
      undefined,
    );
    return { ok: false, message: locked ? lockedMessage(lockMinutes) : WRONG_CREDENTIALS };
  }
  const started = await runWrite(
    deps,
    async (tx) => {
      await deleteSignInFailures(tx, throttleKeys(attempt)[0]?.key ?? '');
      const session = await startSession(tx, deps, user, attempt.source);
      await audit(tx, userActor(user, attempt.source), {
        action: 'portal.signed_in',
        organisationId: user.organisationId,
        at: deps.clock.now(),
      });
      return session;
    },
    undefined,
  );
  return { ok: true, ...started };
}
