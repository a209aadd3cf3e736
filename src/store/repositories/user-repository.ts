import { sql } from 'kysely';
import type { PortalUser, Role } from '../domain-types.js';
import type { Executor } from '../database.js';
import type { UserRow } from '../schema.js';

// The organisation's users as the portal reads and changes them (insertUser and listUsers of
// organisation-repository.ts add and list them for the CLI and the API).

export function portalUserFromRow(row: UserRow): PortalUser {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    firstName: row.first_name,
    lastName: row.last_name,
    // The column only ever holds a role: addUser checks it against the same list.
    role: row.role as Role,
    email: row.email_address,
    phoneNumber: row.phone_number,
    timeZone: row.time_zone,
    createdAt: row.created_at,
  };
}

export async function findUserById(db: Executor, id: string): Promise<PortalUser | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : portalUserFromRow(row);
}

/** Users with this email address in any organisation, whatever its case; oldest first. */
export async function findUsersByEmail(db: Executor, email: string): Promise<PortalUser[]> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email_address)`, '=', email.toLowerCase())
    .orderBy('created_at')
    .orderBy('id')
    .limit(10)
    .execute();
  return rows.map(portalUserFromRow);
}

export async function listPortalUsers(db: Executor, organisationId: string): Promise<PortalUser[]> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('last_name')
    .orderBy('first_name')
    .orderBy('id')
    .execute();
  return rows.map(portalUserFromRow);
}

/** The organisation's Admins, locked against concurrent changes where the dialect can. */
export async function lockAdmins(
  db: Executor,
  organisationId: string,
  dialect: 'sqlite' | 'postgres',
): Promise<string[]> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('role', '=', 'Admin')
    .orderBy('id');
  if (dialect === 'postgres') query = query.forUpdate();
  return (await query.execute()).map((r) => r.id);
}

export async function updateUserRole(db: Executor, id: string, role: Role): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ role })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes a user with their password, sessions and links. */
export async function deleteUser(db: Executor, id: string): Promise<boolean> {
  await db.deleteFrom('portal_sessions').where('user_id', '=', id).execute();
  await db.deleteFrom('portal_tokens').where('user_id', '=', id).execute();
  await db.deleteFrom('portal_credentials').where('user_id', '=', id).execute();
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
