import { iso } from '../clock.js';
import type { Executor } from '../store/database.js';
import { insertAuditEntry } from '../store/repositories/audit-repository.js';

// The audit log: who did what, when and from where, for sensitive operator and organisation
// actions. A row is written in the transaction of the change it records where there is one, so
// a change never happens without its row.

/** Who acts and from where. */
export interface AuditActor {
  /** `operator:<user>` (the CLI), `api-key:<organisation id>` (the HTTP API), `system`. */
  readonly actor: string;
  /** `cli@<host>`, the client's IP address, or `service`. */
  readonly source: string;
}

export const AUDIT_ACTIONS = [
  'organisation.created',
  'organisation.updated',
  'callback.settings_changed',
  'api_key.rotated',
  'api_key.revealed',
  'callback.test_sent',
  'callback.resent',
  'card.saved',
  'user.added',
  'topup.succeeded',
  'topup.failed',
  'catalogue.imported',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const systemActor: AuditActor = { actor: 'system', source: 'service' };

export function apiActor(organisationId: string, ip: string): AuditActor {
  return { actor: `api-key:${organisationId}`, source: ip };
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
