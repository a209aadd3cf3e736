import { iso } from '../../clock.js';
import { listenerUrl } from '../../server-address.js';
import {
  deleteSessionsOfUser,
  findPasswordHash,
  findToken,
  insertToken,
  retireUnusedTokens,
  releaseAttempt,
  setPasswordHash,
  consumeToken,
} from '../../store/repositories/portal-repository.js';
import { findUserById, findUsersByEmail } from '../../store/repositories/user-repository.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit, userActor } from '../audit/audit-log.js';
import { addressGroup } from './address-group.js';
import { badRequest } from '../errors/error-codes.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { PortalDeps } from './access-deps.js';
import { inTransaction, lockKey, takeAttempt } from './attempts.js';
import type { AttemptKey } from './attempts.js';
import { checkPasswordRules, hashPassword } from './passwords.js';
import { BUSY, checkPassword } from './sign-in.js';
import { newSecret, secretHash } from './secrets.js';
import type { PortalUser } from './portal-user.js';

// One-time set-password links: a new user's way in, and "forgot password". A link works once,
// for PORTAL_LINK_HOURS, and only the newest of a user works: issuing one ends the older ones.
// Setting a password through it ends every session of the user. "Forgot your password?" sends
// at most PORTAL_FORGOT_PER_HOUR mails per account per hour (five times as many requests per
// client address), and a signed-in user's current-password check is limited like a sign-in.

export const SET_PASSWORD_PATH = '/portal/set-password';
export const LINK_INVALID =
  'This link is not valid any more: it was used, it expired, or it was replaced. Ask for a new one.';

/**
 * The link's address starts with PUBLIC_BASE_URL, else with `running` (where a running server
 * was found, for a link made outside it: the CLI), else with the address HOST and PORT listen on
 * (http://127.0.0.1:8080 by default), so the CLI's links and the mailed ones agree; never with
 * the request's Host header, which whoever asks for a link could choose.
 */
export function setPasswordUrl(deps: PortalDeps, token: string, running?: string): string {
  const base =
    deps.config.publicBaseUrl !== ''
      ? deps.config.publicBaseUrl
      : (running ?? listenerUrl(deps.config.host, deps.config.port));
  return `${base}${SET_PASSWORD_PATH}?token=${token}`;
}

/** A new one-time link for the user; returns its URL (`running`: see setPasswordUrl). */
export async function issueSetPasswordLink(
  deps: PortalDeps,
  userId: string,
  running?: string,
): Promise<string> {
  const token = newSecret();
  const now = deps.wallClock.now();
  await inTransaction(deps, async (tx) => {
    await retireUnusedTokens(tx, userId, 'set_password', iso(now));
    await insertToken(tx, {
      tokenHash: secretHash(token),
      userId,
      purpose: 'set_password',
      createdAt: iso(now),
      expiresAt: iso(new Date(now.getTime() + deps.config.portal.linkHours * 3_600_000)),
      usedAt: null,
    });
  });
  return setPasswordUrl(deps, token, running);
}

/** The user a link is for, while it can still be used. */
export async function userOfLink(deps: PortalDeps, token: string): Promise<PortalUser | undefined> {
  const record = await findToken(deps.store.db, secretHash(token));
  if (record === undefined || record.usedAt !== null) return undefined;
  if (Date.parse(record.expiresAt) <= deps.wallClock.now().getTime()) return undefined;
  return findUserById(deps.store.db, record.userId);
}

/** Sets the password of the link's user, uses the link up and ends every session of the user. */
export async function setPasswordWithLink(
  deps: PortalDeps,
  token: string,
  password: string,
  source: string,
): Promise<PortalUser> {
  checkPasswordRules(password);
  const user = await userOfLink(deps, token);
  if (user === undefined) throw badRequest(LINK_INVALID);
  const hash = await hashPassword(password, deps.config.portal.passwordCost);
  const now = deps.wallClock.now();
  await runWrite(
    deps,
    async (trx) => {
      if (!(await consumeToken(trx, secretHash(token), iso(now)))) throw badRequest(LINK_INVALID);
      await setPasswordHash(trx, user.id, hash, iso(now));
      await deleteSessionsOfUser(trx, user.id);
      await audit(trx, userActor(user, source), {
        action: 'user.password_set',
        organisationId: user.organisationId,
        at: deps.clock.now(),
      });
    },
    undefined,
  );
  return user;
}

/** Sets a password directly (the CLI's --password-stdin); ends every session of the user. */
export async function setPassword(
  deps: PortalDeps,
  who: AuditActor,
  user: PortalUser,
  password: string,
): Promise<void> {
  checkPasswordRules(password);
  const hash = await hashPassword(password, deps.config.portal.passwordCost);
  await runWrite(
    deps,
    async (trx) => {
      await setPasswordHash(trx, user.id, hash, iso(deps.wallClock.now()));
      await deleteSessionsOfUser(trx, user.id);
      await audit(trx, who, {
        action: 'user.password_set',
        organisationId: user.organisationId,
        at: deps.clock.now(),
      });
    },
    undefined,
  );
}

export const FORGOT_PASSWORD_SENT =
  'If an account has this email address, a link to set a new password is on its way.';

/** A link's mail that the mail server did not take: whose link, and why. */
export interface UnsentMail {
  readonly userId: string;
  readonly error: unknown;
}

/**
 * Mails a set-password link to every user with this email address. Answers the same whether or
 * not one exists, so the form tells nobody which addresses have accounts: a mail the server does
 * not take (SMTP down) is returned for the caller to log, never thrown, since an error only
 * known addresses could meet would tell them apart.
 */
export async function forgotPassword(
  deps: PortalDeps,
  email: string,
  source: string,
): Promise<readonly UnsentMail[]> {
  const address = email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) {
    throw badRequest('email must be an email address');
  }
  const limit = deps.config.portal.forgotPerHour;
  const keys: AttemptKey[] = [
    { key: `forgot:account:${address.toLowerCase()}`, limit },
    {
      key: `forgot:address:${addressGroup(source, deps.config.rateLimitIpv6Prefix)}`,
      limit: limit * 5,
    },
  ];
  const rules = { windowMs: 3_600_000, lockMs: 3_600_000 };
  const verdict = await inTransaction(deps, (tx) =>
    takeAttempt(tx, keys, rules, deps.wallClock.now()),
  );
  // Over the limit the answer is the same, so it tells nobody whether a mail went.
  if (!verdict.allowed) return [];
  const unsent: UnsentMail[] = [];
  for (const user of await findUsersByEmail(deps.store.db, address)) {
    const url = await issueSetPasswordLink(deps, user.id);
    try {
      await deps.mailer.send({
        to: user.email,
        subject: 'Set your eSIM portal password',
        text: `Hello ${user.firstName},\n\nSomeone (hopefully you) asked to set a new password for the eSIM portal.\nOpen this link within ${deps.config.portal.linkHours} hours to choose one; it works once:\n\n${url}\n\nIf you did not ask, ignore this mail: your password stays as it is.\n`,
      });
    } catch (error) {
      unsent.push({ userId: user.id, error });
    }
  }
  return unsent;
}

export const WRONG_CURRENT_PASSWORD = 'current password is not correct';

export function currentLockedMessage(minutes: number): string {
  return `current password: too many wrong attempts; try again in ${minutes} minutes`;
}

/** A signed-in user's own change: needs the current password; ends every session of the user. */
export async function changeOwnPassword(
  deps: PortalDeps,
  user: PortalUser,
  change: { current: string; next: string; source: string },
): Promise<void> {
  const limit = deps.config.portal.lockFailures;
  const keys: AttemptKey[] = [
    { key: `current:user:${user.id}`, limit },
    {
      key: `current:address:${addressGroup(change.source, deps.config.rateLimitIpv6Prefix)}`,
      limit: limit * 5,
    },
  ];
  const rules = { windowMs: 3_600_000, lockMs: deps.config.portal.lockMinutes * 60_000 };
  const verdict = await inTransaction(deps, (tx) =>
    takeAttempt(tx, keys, rules, deps.wallClock.now()),
  );
  if (!verdict.allowed) throw badRequest(currentLockedMessage(deps.config.portal.lockMinutes));
  const stored = await findPasswordHash(deps.store.db, user.id);
  const right = stored === undefined ? false : await checkPassword(deps, change.current, stored);
  if (right !== true) {
    await inTransaction(deps, async (tx) => {
      if (right === undefined) {
        for (const { key } of keys) await releaseAttempt(tx, key);
        return;
      }
      for (const [index, { key, limit: keyLimit }] of keys.entries()) {
        if ((verdict.counts[index] ?? 0) >= keyLimit) {
          await lockKey(tx, key, rules, deps.wallClock.now());
        }
      }
    });
    throw badRequest(right === undefined ? BUSY : WRONG_CURRENT_PASSWORD);
  }
  await inTransaction(deps, async (tx) => {
    for (const { key } of keys) await releaseAttempt(tx, key);
  });
  await setPassword(deps, userActor(user, change.source), user, change.next);
}
