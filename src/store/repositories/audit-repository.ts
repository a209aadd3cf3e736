import type { Executor } from '../database.js';
import type { AuditEntry } from '../domain-types.js';
import type { AuditRow } from '../schema.js';

/** An entry to write: the log numbers it. */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

export async function insertAuditEntry(db: Executor, entry: NewAuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: entry.at,
      organisation_id: entry.organisationId,
      actor: entry.actor,
      source: entry.source,
      action: entry.action,
      details: JSON.stringify(entry.details),
    })
    .execute();
}

/** The newest audit rows first, optionally of one organisation and older than row `beforeId`. */
export async function listAuditEntries(
  db: Executor,
  filter: { organisationId?: string; limit: number; beforeId?: number },
): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.organisationId !== undefined) {
    query = query.where('organisation_id', '=', filter.organisationId);
  }
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

/** The same rows as the domain's audit entries (details parsed). */
export async function listAuditTrail(
  db: Executor,
  filter: { organisationId?: string; limit: number; beforeId?: number },
): Promise<AuditEntry[]> {
  const rows = await listAuditEntries(db, filter);
  return rows.map((r) => ({
    id: Number(r.id),
    at: r.at,
    organisationId: r.organisation_id,
    actor: r.actor,
    source: r.source,
    action: r.action,
    details: JSON.parse(r.details) as Record<string, unknown>,
  }));
}
