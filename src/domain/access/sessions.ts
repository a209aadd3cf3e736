import { iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import {
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
  touchSession,
} from '../../store/repositories/portal-repository.js';
import { findUserById } from '../../store/repositories/user-repository.js';
import { audit, userActor } from '../audit/audit-log.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { PortalDeps } from './access-deps.js';
import { newSecret, secretHash } from './secrets.js';
import type { PortalUser } from './portal-user.js';

// Server-side sessions: the cookie holds a random id, the database its SHA-256 with the user,
// the CSRF token and both expiries, so every instance sees every session and a restart keeps
// them. A session ends at sign-out, after PORTAL_SESSION_IDLE_MINUTES without a request, at
// PORTAL_SESSION_MAX_HOURS after sign-in, and when its user's password changes or the user is
// removed.

export interface PortalSession {
  readonly idHash: string;
  readonly user: PortalUser;
  readonly csrfToken: string;
}

/** A session's last-seen time is written at most this often, so reading pages costs no write each time. */
const TOUCH_EVERY_MS = 60_000;

/** Starts a session for the user, in the caller's transaction (sign-in's). */
export async function startSession(
  tx: Executor,
  deps: PortalDeps,
  user: PortalUser,
  source: string,
): Promise<{ token: string; session: PortalSession }> {
  const token = newSecret();
  const now = deps.wallClock.now();
  const expires = new Date(now.getTime() + deps.config.portal.sessionMaxHours * 3_600_000);
  const session = { idHash: secretHash(token), user, csrfToken: newSecret() };
  // Ended sessions are deleted when next seen; those never seen again go at the next sign-in.
  const idleBefore = new Date(now.getTime() - deps.config.portal.sessionIdleMinutes * 60_000);
  await deleteExpiredSessions(tx, iso(now), iso(idleBefore));
  await insertSession(tx, {
    idHash: session.idHash,
    userId: user.id,
    organisationId: user.organisationId,
    csrfToken: session.csrfToken,
    source,
    createdAt: iso(now),
    lastSeenAt: iso(now),
    expiresAt: iso(expires),
  });
  return { token, session };
}

/** The live session the cookie value names, or undefined (an ended one is deleted). */
export async function resumeSession(
  deps: PortalDeps,
  token: string,
): Promise<PortalSession | undefined> {
  const idHash = secretHash(token);
  const record = await findSession(deps.store.db, idHash);
  if (record === undefined) return undefined;
  const now = deps.wallClock.now().getTime();
  const idleMs = deps.config.portal.sessionIdleMinutes * 60_000;
  const lastSeen = Date.parse(record.lastSeenAt);
  if (Date.parse(record.expiresAt) <= now || lastSeen + idleMs <= now) {
    await deleteSession(deps.store.db, idHash);
    return undefined;
  }
  const user = await findUserById(deps.store.db, record.userId);
  if (user === undefined) return undefined;
  if (now - lastSeen >= TOUCH_EVERY_MS) {
    await touchSession(deps.store.db, idHash, iso(new Date(now)));
  }
  return { idHash, user, csrfToken: record.csrfToken };
}

/** Sign-out: ends the session and records it for the organisation's Activity. */
export async function signOut(
  deps: PortalDeps,
  token: string,
  user: PortalUser,
  source: string,
): Promise<void> {
  await runWrite(
    deps,
    async (tx) => {
      await deleteSession(tx, secretHash(token));
      await audit(tx, userActor(user, source), {
        action: 'portal.signed_out',
        organisationId: user.organisationId,
        at: deps.clock.now(),
      });
    },
    undefined,
  );
}
