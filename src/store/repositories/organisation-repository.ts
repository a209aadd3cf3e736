import type { Executor } from '../database.js';
import type { NewOrganisation, OrganisationRow, OrganisationUpdate, UserRow } from '../schema.js';

export async function insertOrganisation(db: Executor, row: NewOrganisation): Promise<void> {
  await db.insertInto('organisations').values(row).execute();
}

export async function findOrganisationById(
  db: Executor,
  id: string,
): Promise<OrganisationRow | undefined> {
  return db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The organisation's callback URL ('' when none is set), undefined when it does not exist. */
export async function findCallbackUrl(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('organisations')
    .select('callback_url')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.callback_url;
}

export async function findOrganisationByKeyHash(
  db: Executor,
  hash: string,
): Promise<OrganisationRow | undefined> {
  return db
    .selectFrom('organisations')
    .selectAll()
    .where('api_key_hash', '=', hash)
    .executeTakeFirst();
}

export async function listOrganisations(db: Executor): Promise<OrganisationRow[]> {
  return db.selectFrom('organisations').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function countOrganisations(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('organisations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateOrganisation(
  db: Executor,
  id: string,
  changes: OrganisationUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('organisations')
    .set(changes)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listUsers(db: Executor, organisationId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}
