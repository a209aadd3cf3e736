import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { Esim, EsimActivity } from '../../../domain/esims/esim.js';
import type { Assignment } from '../../../domain/esims/lifecycle/assignment.js';
import { loadOwnedEsim as loadOwned } from '../../../domain/esims/owned-esim.js';
import type { EsimBundleRead } from '../../versions/results.js';

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

export function esimLiveFields(esim: Esim, activity: EsimActivity | undefined): EsimLiveBody {
  return {
    customerRef: esim.customerRef ?? '',
    lastAction: activity?.lastAction ?? '',
    actionDate: activity?.actionDate ?? '',
    physical: false,
    assignedDate: activity?.assignedDate ?? '',
  };
}

export { checkIccid, esimNotFound } from '../../../domain/esims/owned-esim.js';

/** The caller's eSIM, or 400 (malformed) / 404 (unknown or another organisation's). */
export function loadOwnedEsim(deps: AppDeps, organisationId: string, iccid: string): Promise<Esim> {
  return loadOwned(deps.store.db, organisationId, iccid);
}

export function esimBody(esim: Esim): EsimBody {
  // A deleted eSIM keeps no install secrets: its matching ID, PIN and PUK are not shown again.
  const deleted = esim.state === 'deactivated';
  return {
    iccid: esim.iccid,
    matchingId: deleted ? '' : esim.matchingId,
    smdpAddress: esim.smdpAddress,
    profileStatus: esim.profileStatus,
    pin: deleted ? '' : esim.pin,
    puk: deleted ? '' : esim.puk,
    firstInstalledDateTime: esim.firstInstalledAt ?? '',
  };
}

export function activationCode(esim: Pick<Esim, 'smdpAddress' | 'matchingId'>): string {
  return `LPA:1$${esim.smdpAddress}$${esim.matchingId}`;
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

export const EsimBundleSchema = Type.Object({
  name: Type.String({ description: 'Bundle name (case-sensitive), as in the catalogue.' }),
  description: Type.String(),
  assignments: Type.Array(AssignmentSchema, { description: 'In the order they were assigned.' }),
});
export type EsimBundleBody = Static<typeof EsimBundleSchema>;

/** Groups assignments by bundle, keeping the order in which each bundle was first assigned. */
export function groupByBundle(
  assignments: readonly Assignment[],
  descriptions: ReadonlyMap<string, string>,
): EsimBundleRead[] {
  const byName = new Map<
    string,
    { name: string; description: string; assignments: Assignment[] }
  >();
  for (const assignment of assignments) {
    let entry = byName.get(assignment.bundleName);
    if (entry === undefined) {
      entry = {
        name: assignment.bundleName,
        description: descriptions.get(assignment.bundleName) ?? '',
        assignments: [],
      };
      byName.set(assignment.bundleName, entry);
    }
    entry.assignments.push(assignment);
  }
  return [...byName.values()];
}
