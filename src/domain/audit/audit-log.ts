import { iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import { insertAuditEntry, listAuditTrail } from '../../store/repositories/audit-repository.js';
import type { AuditEntry } from './audit-entry.js';

// The audit log: who did what, when and from where, for sensitive operator and organisation
// actions. A row is written in the transaction of the change it records where there is one, so
// a change never happens without its row.

/** Who acts and from where. */
export interface AuditActor {
  /**
   * `operator:<user>` (the CLI), `api-key:<organisation id>` (the HTTP API), `user:<email>` (a
   * portal user), `system`.
   */
  readonly actor: string;
  /** `cli@<host>`, the client's IP address, or `service`. */
  readonly source: string;
}

export const AUDIT_ACTIONS = [
  'organisation.created',
  'organisation.updated',
  'callback.settings_changed',
  'api_key.rotated',
  'callback.test_sent',
  'callback.resent',
  'callback.resumed',
  'card.saved',
  'user.added',
  'user.removed',
  'user.role_changed',
  'user.password_set',
  'portal.signed_in',
  'portal.sign_in_failed',
  'portal.signed_out',
  'api_key.revealed',
  'api_key.address_refused',
  'topup.succeeded',
  'topup.failed',
  'topup.unknown',
  'catalogue.imported',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const systemActor: AuditActor = { actor: 'system', source: 'service' };

export function apiActor(organisationId: string, ip: string): AuditActor {
  return { actor: `api-key:${organisationId}`, source: ip };
}

/** A portal user acting from a client address. */
export function userActor(user: { readonly email: string }, ip: string): AuditActor {
  return { actor: `user:${user.email}`, source: ip };
}

export async function audit(
  db: Executor,
  who: AuditActor,
  entry: {
    action: AuditAction;
    organisationId: string | null;
    at: Date;
    details?: Readonly<Record<string, unknown>>;
  },
): Promise<void> {
  await insertAuditEntry(db, {
    at: iso(entry.at),
    organisationId: entry.organisationId,
    actor: who.actor,
    source: who.source,
    action: entry.action,
    details: entry.details ?? {},
  });
}

export type { AuditEntry } from './audit-entry.js';

/** The newest entries first, of every organisation or one (the operator's `esim audit list`). */
export { listAuditTrail };

/**
 * One page of an organisation's audit trail, newest first: `limit` rows older than row
 * `beforeId` (the id of the last row of the previous page), and whether older rows remain.
 */
export async function auditTrail(
  db: Executor,
  organisationId: string,
  page: { beforeId?: number; limit: number },
): Promise<{ entries: AuditEntry[]; more: boolean }> {
  const found = await listAuditTrail(db, {
    organisationId,
    beforeId: page.beforeId,
    limit: page.limit + 1,
  });
  return { entries: found.slice(0, page.limit), more: found.length > page.limit };
}
