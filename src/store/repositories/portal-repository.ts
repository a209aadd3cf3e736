import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from '../database.js';
import type { PortalTokenPurpose } from '../schema.js';

// Portal credentials, sessions, one-time links and the sign-in throttle. Session ids and link
// tokens arrive here already hashed.

export async function findPasswordHash(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('portal_credentials')
    .select('password_hash')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.password_hash;
}

export async function setPasswordHash(
  db: Executor,
  userId: string,
  passwordHash: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('portal_credentials')
    .values({ user_id: userId, password_hash: passwordHash, changed_at: at })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ password_hash: passwordHash, changed_at: at }),
    )
    .execute();
}

export interface SessionRecord {
  readonly idHash: string;
  readonly userId: string;
  readonly organisationId: string;
  readonly csrfToken: string;
  readonly source: string;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly expiresAt: string;
}

export async function insertSession(db: Executor, s: SessionRecord): Promise<void> {
  await db
    .insertInto('portal_sessions')
    .values({
      id_hash: s.idHash,
      user_id: s.userId,
      organisation_id: s.organisationId,
      csrf_token: s.csrfToken,
      source: s.source,
      created_at: s.createdAt,
      last_seen_at: s.lastSeenAt,
      expires_at: s.expiresAt,
    })
    .execute();
}

export async function findSession(
  db: Executor,
  idHash: string,
): Promise<SessionRecord | undefined> {
  const row = await db
    .selectFrom('portal_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    organisationId: row.organisation_id,
    csrfToken: row.csrf_token,
    source: row.source,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}

export async function touchSession(db: Executor, idHash: string, at: string): Promise<void> {
  await db
    .updateTable('portal_sessions')
    .set({ last_seen_at: at })
    .where('id_hash', '=', idHash)
    .execute();
}

export async function deleteSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('portal_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteSessionsOfUser(db: Executor, userId: string): Promise<number> {
  const result = await db
    .deleteFrom('portal_sessions')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sessions whose absolute expiry has passed or that have been idle since before `idleBefore`. */
export async function deleteExpiredSessions(
  db: Executor,
  now: string,
  idleBefore: string,
): Promise<number> {
  const result = await db
    .deleteFrom('portal_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface TokenRecord {
  readonly tokenHash: string;
  readonly userId: string;
  readonly purpose: PortalTokenPurpose;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly usedAt: string | null;
}

export async function insertToken(db: Executor, t: TokenRecord): Promise<void> {
  await db
    .insertInto('portal_tokens')
    .values({
      token_hash: t.tokenHash,
      user_id: t.userId,
      purpose: t.purpose,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      used_at: t.usedAt,
    })
    .execute();
}

export async function findToken(db: Executor, tokenHash: string): Promise<TokenRecord | undefined> {
  const row = await db
    .selectFrom('portal_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    purpose: row.purpose,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

/** Marks an unused link used; false when it was used already (by a concurrent request too). */
export async function consumeToken(db: Executor, tokenHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('portal_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** When sign-in under `key` is locked until, if it is. */
export async function findLockedUntil(db: Executor, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('portal_sign_in_failures')
    .select('locked_until')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.locked_until ?? undefined;
}

/**
 * Counts one failed sign-in under `key` (a window older than `windowStart` starts again) and
 * returns the failures in the current window. Atomic: concurrent failures are all counted.
 */
export async function recordSignInFailure(
  db: Executor,
  key: string,
  now: string,
  windowStart: string,
): Promise<number> {
  await db
    .updateTable('portal_sign_in_failures')
    .set({ failures: 0, window_started_at: now })
    .where('key', '=', key)
    .where('window_started_at', '<', windowStart)
    .execute();
  const row = await db
    .insertInto('portal_sign_in_failures')
    .values({ key, failures: 1, window_started_at: now, locked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({ failures: sql<number>`portal_sign_in_failures.failures + 1` }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Locks sign-in under `key` until `until` and starts a new count. */
export async function lockSignIn(
  db: Executor,
  key: string,
  until: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('portal_sign_in_failures')
    .set({ failures: 0, window_started_at: now, locked_until: until })
    .where('key', '=', key)
    .execute();
}

export async function deleteSignInFailures(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('portal_sign_in_failures').where('key', '=', key).execute();
}

export interface MailRecord {
  readonly id: number;
  readonly at: string;
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}

export async function insertMail(db: Executor, mail: Omit<MailRecord, 'id'>): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({ at: mail.at, to_address: mail.to, subject: mail.subject, body: mail.body })
    .execute();
}

/** The newest mails first. */
export async function listMail(
  db: Executor,
  filter: { to?: string; limit: number },
): Promise<MailRecord[]> {
  let query = db.selectFrom('mail_outbox').selectAll();
  if (filter.to !== undefined) query = query.where('to_address', '=', filter.to);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    to: r.to_address,
    subject: r.subject,
    body: r.body,
  }));
}

/** The newest mails to the organisation's users first (mail_outbox by (to_address, id)). */
export async function listOrganisationMail(
  db: Executor,
  organisationId: string,
  limit: number,
): Promise<MailRecord[]> {
  const rows = await db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_address', 'in', (eb) =>
      eb.selectFrom('users').select('email_address').where('organisation_id', '=', organisationId),
    )
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    to: r.to_address,
    subject: r.subject,
    body: r.body,
  }));
}

export interface AttemptRow {
  /** Attempts counted in the window (while locked: refusals since the lock began). */
  readonly attempts: number;
  readonly windowStartedAt: string;
  readonly lockedUntil: string | undefined;
}

/**
 * Counts one attempt under `key` and returns the row as it now stands. One statement, so
 * concurrent attempts are each counted once; on PostgreSQL the row stays locked until the
 * transaction ends, so the caller's decision and its follow-up write are not raced.
 */
export async function recordAttempt(db: Executor, key: string, now: string): Promise<AttemptRow> {
  const row = await db
    .insertInto('portal_sign_in_failures')
    .values({ key, failures: 1, window_started_at: now, locked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({ failures: sql<number>`portal_sign_in_failures.failures + 1` }),
    )
    .returning(['failures', 'window_started_at', 'locked_until'])
    .executeTakeFirstOrThrow();
  return {
    attempts: row.failures,
    windowStartedAt: row.window_started_at,
    lockedUntil: row.locked_until ?? undefined,
  };
}

/** Sets the row of `key`: its count, window start and lock. */
export async function setAttempts(
  db: Executor,
  key: string,
  row: { attempts: number; windowStartedAt: string; lockedUntil: string | undefined },
): Promise<void> {
  await db
    .updateTable('portal_sign_in_failures')
    .set({
      failures: row.attempts,
      window_started_at: row.windowStartedAt,
      locked_until: row.lockedUntil ?? null,
    })
    .where('key', '=', key)
    .execute();
}

/** Locks `key` until `until`, unless a lock is already running (its refusal count stays). */
export async function lockAttempts(
  db: Executor,
  key: string,
  until: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('portal_sign_in_failures')
    .set({ failures: 0, window_started_at: now, locked_until: until })
    .where('key', '=', key)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .execute();
}

/** Gives back one attempt counted under `key` (one that turned out to be right). */
export async function releaseAttempt(db: Executor, key: string): Promise<void> {
  await db
    .updateTable('portal_sign_in_failures')
    .set({ failures: sql<number>`failures - 1` })
    .where('key', '=', key)
    .where('failures', '>', 0)
    .where('locked_until', 'is', null)
    .execute();
}

/**
 * Ends every unused link of a user for `purpose`: a new link replaces the older ones. Locks the
 * user's row first (PostgreSQL), so two links issued at once cannot both stay alive.
 */
export async function retireUnusedTokens(
  db: Executor,
  userId: string,
  purpose: PortalTokenPurpose,
  now: string,
): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(postgres, (q) => q.forUpdate())
    .execute();
  await db
    .updateTable('portal_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}
