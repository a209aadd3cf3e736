import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { loadOwnedEsim as loadOwned } from '../../../domain/esims/owned-esim.js';
import type { EsimActivity, EsimDetailRow } from '../../../store/repositories/esim-repository.js';
import type { AssignmentRow, EsimRow } from '../../../store/schema.js';

// Shapes and lookups shared by the eSIM routes.

export const ICCID_DESCRIPTION =
  'ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.';

export const IccidParams = Type.Object({
  iccid: Type.String({ description: ICCID_DESCRIPTION }),
});

export const EsimSchema = Type.Object({
  iccid: Type.String({ description: 'ICCID, 19 digits.' }),
  matchingId: Type.String({
    description: 'Matching ID of the profile, e.g. ABCDE-FGHIJ-KLMNO-PQRST.',
  }),
  smdpAddress: Type.String({ description: 'SM-DP+ address the profile downloads from.' }),
  profileStatus: Type.String({
    description:
      'Released (not yet installed), Downloaded, Installed or Unavailable (deleted from the device).',
  }),
  pin: Type.String({ description: 'PIN, 4 digits.' }),
  puk: Type.String({ description: 'PUK, 8 digits.' }),
  firstInstalledDateTime: Type.String({
    description: 'When the profile was first installed, RFC 3339 UTC; empty when never.',
  }),
});
export type EsimBody = Static<typeof EsimSchema>;

/** Live fields of an eSIM in the list and the details (later live versions' names). */
export const EsimLiveFields = Type.Object({
  customerRef: Type.String({
    description:
      'The organisation\u2019s own reference for the eSIM, set with PUT /esims; empty when unset.',
  }),
  lastAction: Type.String({
    description:
      'Newest entry of the eSIM history, e.g. Bundle Applied, eSIM Updated, eSIM Refreshed; empty when none.',
  }),
  actionDate: Type.String({
    description: 'When lastAction happened, RFC 3339 UTC; empty when none.',
  }),
  physical: Type.Boolean({ description: 'Whether this is a physical SIM: always false here.' }),
  assignedDate: Type.String({
    description: 'When a bundle was first assigned to the eSIM, RFC 3339 UTC; empty when never.',
  }),
});
export type EsimLiveBody = Static<typeof EsimLiveFields>;

export function esimLiveFields(row: EsimRow, activity: EsimActivity | undefined): EsimLiveBody {
  return {
    customerRef: row.customer_ref ?? '',
    lastAction: activity?.lastAction ?? '',
    actionDate: activity?.actionDate ?? '',
    physical: false,
    assignedDate: activity?.assignedDate ?? '',
  };
}

export { checkIccid, esimNotFound } from '../../../domain/esims/owned-esim.js';

/** The caller's eSIM, or 400 (malformed) / 404 (unknown or another organisation's). */
export function loadOwnedEsim(
  deps: AppDeps,
  organisationId: string,
  iccid: string,
): Promise<EsimRow> {
  return loadOwned(deps.store.db, organisationId, iccid);
}

export function esimBody(row: EsimRow): EsimBody {
  return {
    iccid: row.iccid,
    matchingId: row.matching_id,
    smdpAddress: row.smdp_address,
    profileStatus: row.profile_status,
    pin: row.pin,
    puk: row.puk,
    firstInstalledDateTime: row.first_installed_at ?? '',
  };
}

/**
 * GET /esims/{iccid}: the profile and its live fields, from one detail row in one object.
 * `state` (active, suspended, deactivated) is not in v2.1's answer schema, so v2.1 leaves it out;
 * v2.5 shows it.
 */
export type EsimDetailBody = EsimBody &
  EsimLiveBody & {
    appleInstallUrl?: string;
    androidInstallUrl?: string;
    state: 'active' | 'suspended' | 'deactivated';
    /** Not in v2.1's answer schema (left out there); v2.5 shows it. Empty when none. */
    msisdn: string;
  };

export function esimDetailBody(row: EsimDetailRow): EsimDetailBody {
  return {
    iccid: row.iccid,
    matchingId: row.matching_id,
    smdpAddress: row.smdp_address,
    profileStatus: row.profile_status,
    pin: row.pin,
    puk: row.puk,
    firstInstalledDateTime: row.first_installed_at ?? '',
    customerRef: row.customer_ref ?? '',
    lastAction: row.last_action ?? '',
    actionDate: row.action_date ?? '',
    physical: false,
    assignedDate: row.assigned_date ?? '',
    state: row.state,
    msisdn: row.msisdn ?? '',
  };
}

export function activationCode(row: Pick<EsimRow, 'smdp_address' | 'matching_id'>): string {
  return `LPA:1$${row.smdp_address}$${row.matching_id}`;
}

export const AssignmentSchema = Type.Object({
  id: Type.String({ description: 'Id of the assignment (used to revoke it).' }),
  reference: Type.String({ description: 'The order or apply reference that created it.' }),
  assignmentReference: Type.String({
    description:
      'Live field name of the same reference (the order or apply reference); usable with the install-data routes.',
  }),
  callTypeGroup: Type.String({
    description: 'What the assignment carries, as the live service names it: data.',
  }),
  bundleState: Type.String({
    description: 'Processing, Queued, Active, Depleted, Expired or Revoked.',
  }),
  initialQuantity: Type.Integer({ description: 'Data at the start, bytes; -1 when unlimited.' }),
  remainingQuantity: Type.Integer({ description: 'Data left, bytes; -1 when unlimited.' }),
  usedQuantity: Type.Integer({ description: 'Data used so far, bytes.' }),
  unlimited: Type.Boolean(),
  assignmentDateTime: Type.String({ description: 'When it was assigned, RFC 3339 UTC.' }),
  startTime: Type.String({
    description: 'When it became Active (first use), RFC 3339 UTC; empty until then.',
  }),
  endTime: Type.String({
    description: 'When it expires (start + duration), RFC 3339 UTC; empty until it starts.',
  }),
  validUntil: Type.String({
    description: 'An assignment that has not started by then expires unused, RFC 3339 UTC.',
  }),
});
export type AssignmentBody = Static<typeof AssignmentSchema>;

export function assignmentBody(row: AssignmentRow): AssignmentBody {
  return {
    id: row.id,
    reference: row.reference,
    assignmentReference: row.reference,
    callTypeGroup: 'data',
    bundleState: row.state,
    initialQuantity: Number(row.initial_bytes),
    remainingQuantity: Number(row.remaining_bytes),
    usedQuantity: Number(row.used_bytes),
    unlimited: Number(row.unlimited) === 1,
    assignmentDateTime: row.created_at,
    startTime: row.start_time ?? '',
    endTime: row.end_time ?? '',
    validUntil: row.valid_until,
  };
}

export const EsimBundleSchema = Type.Object({
  name: Type.String({ description: 'Bundle name (case-sensitive), as in the catalogue.' }),
  description: Type.String(),
  assignments: Type.Array(AssignmentSchema, { description: 'In the order they were assigned.' }),
});
export type EsimBundleBody = Static<typeof EsimBundleSchema>;

/** Groups assignments by bundle, keeping the order in which each bundle was first assigned. */
export function groupByBundle(
  rows: readonly AssignmentRow[],
  descriptions: ReadonlyMap<string, string>,
): EsimBundleBody[] {
  const byName = new Map<string, EsimBundleBody>();
  for (const row of rows) {
    let entry = byName.get(row.bundle_name);
    if (entry === undefined) {
      entry = {
        name: row.bundle_name,
        description: descriptions.get(row.bundle_name) ?? '',
        assignments: [],
      };
      byName.set(row.bundle_name, entry);
    }
    entry.assignments.push(assignmentBody(row));
  }
  return [...byName.values()];
}
