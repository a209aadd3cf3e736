import type { Selectable } from 'kysely';
import type { Executor } from '../database.js';
import type { SmsMessagesTable } from '../schema.js';

export type SmsRow = Selectable<SmsMessagesTable>;

export async function insertSms(db: Executor, row: SmsRow): Promise<void> {
  await db.insertInto('sms_messages').values(row).execute();
}

/** The simulated network's outbox, newest first, optionally for one eSIM. */
export async function listSms(
  db: Executor,
  iccid: string | undefined,
  limit: number,
): Promise<SmsRow[]> {
  let query = db.selectFrom('sms_messages').selectAll();
  if (iccid !== undefined) query = query.where('iccid', '=', iccid);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function deleteAllSms(db: Executor): Promise<void> {
  await db.deleteFrom('sms_messages').execute();
}

/** One organisation's messages, newest first, through (organisation_id, created_at). */
export async function listOrganisationSms(
  db: Executor,
  organisationId: string,
  limit: number,
): Promise<SmsRow[]> {
  return db
    .selectFrom('sms_messages')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
