// One entry of the audit log as the domain reads it; the store returns it in this shape
// (audit-repository.ts), its details parsed.

export interface AuditEntry {
  readonly id: number;
  readonly at: string;
  readonly organisationId: string | null;
  readonly actor: string;
  readonly source: string;
  readonly action: string;
  readonly details: Readonly<Record<string, unknown>>;
}
