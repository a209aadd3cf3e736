import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Db, DialectName, Executor } from '../../store/database.js';
import { listAssignmentsOfEsim } from '../../store/repositories/assignment-repository.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import { holdsBundle } from '../../store/repositories/inventory-repository.js';
import { lockOwnedEsim, setEsimState } from '../../store/repositories/esim-repository.js';
import { takeOutOfEsimList } from '../../store/repositories/esim-list-repository.js';
import type { Esim } from './esim.js';
import { badRequest, conflict } from '../errors/error-codes.js';
import { recordEsimEvent } from './esim-actions.js';
import { revokeAssignment } from './lifecycle/revoke-assignment.js';
import { checkIccid, esimNotFound, loadOwnedEsim } from './owned-esim.js';
import { runWrite } from '../runner/use-case-runner.js';

// The state of an eSIM on the account: active; suspended by the organisation (the network serves
// it no data and delivers it no SMS until it is unsuspended; its bundles keep their clocks); or
// deactivated, once the organisation deleted it: every bundle revoked without refund, its profile
// status Deactivated, gone from the eSIM lists for good. Surfaces decide whether they offer these
// (the live service's v2.5 does); the rules are the same whatever asks.

export type EsimState = 'active' | 'suspended' | 'deactivated';

export const HISTORY_SUSPENDED = 'eSIM Suspended';
export const HISTORY_UNSUSPENDED = 'eSIM Unsuspended';
export const HISTORY_DEACTIVATED = 'eSIM Deactivated';

/** 400 (esim_deactivated) when the eSIM was deleted; `why` ends "eSIM … is deactivated and …". */
export function refuseDeactivated(esim: Pick<Esim, 'iccid' | 'state'>, why: string): void {
  if (esim.state === 'deactivated') {
    throw badRequest(`eSIM ${esim.iccid} is deactivated and ${why}`, 'esim_deactivated');
  }
}

/** 400 (esim_suspended) while the eSIM is suspended; `why` ends "eSIM … is suspended and …". */
export function refuseSuspended(esim: Pick<Esim, 'iccid' | 'state'>, why: string): void {
  if (esim.state === 'suspended') {
    throw badRequest(
      `eSIM ${esim.iccid} is suspended and ${why}; unsuspend it first`,
      'esim_suspended',
    );
  }
}

export interface EsimStateDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
}

export interface SuspensionInput {
  readonly organisationId: string;
  readonly iccid: string;
  readonly suspend: boolean;
}

export interface SuspensionResult {
  readonly iccid: string;
  readonly state: EsimState;
  /** False when the eSIM already was in the state asked for (nothing was written). */
  readonly changed: boolean;
}

/** The caller's eSIM, locked for the transaction; 400 malformed, 404 unknown or another's. */
async function lockEsim(
  tx: Executor,
  deps: EsimStateDeps,
  organisationId: string,
  iccid: string,
): Promise<Esim> {
  checkIccid(iccid);
  const esim = await lockOwnedEsim(tx, deps.store.dialect, organisationId, iccid);
  if (esim === undefined) throw esimNotFound(iccid);
  return esim;
}

async function moveState(
  tx: Executor,
  esim: Esim,
  to: EsimState,
  at: string,
  profile?: 'Deactivated',
): Promise<void> {
  const moved = await setEsimState(tx, {
    iccid: esim.iccid,
    from: esim.state,
    to,
    at,
    ...(profile === undefined ? {} : { profileStatus: profile }),
  });
  if (!moved) throw conflict(`eSIM ${esim.iccid} changed concurrently; retry`);
}

/**
 * The use case: suspends or unsuspends the caller's eSIM, in the runner's transaction. Asking
 * for the state it is already in changes nothing and is no error; a deactivated eSIM is a 400.
 */
export async function applySuspension(
  tx: Executor,
  deps: EsimStateDeps,
  input: SuspensionInput,
): Promise<SuspensionResult> {
  const esim = await lockEsim(tx, deps, input.organisationId, input.iccid);
  refuseDeactivated(esim, 'cannot be suspended or unsuspended');
  const to: EsimState = input.suspend ? 'suspended' : 'active';
  if (esim.state === to) return { iccid: esim.iccid, state: to, changed: false };
  const at = iso(deps.clock.now());
  await moveState(tx, esim, to, at);
  const name = input.suspend ? HISTORY_SUSPENDED : HISTORY_UNSUSPENDED;
  await recordEsimEvent(tx, deps.store.dialect, esim.iccid, name, at);
  return { iccid: esim.iccid, state: to, changed: true };
}

/** Suspends or unsuspends an eSIM in a transaction of its own. */
export function setSuspension(
  deps: EsimStateDeps,
  input: SuspensionInput,
): Promise<SuspensionResult> {
  return runWrite(deps, applySuspension, input);
}

/** Whether the caller's eSIM is suspended (400 malformed, 404 unknown or another's). */
export async function readSuspension(
  db: Db,
  organisationId: string,
  iccid: string,
): Promise<{ readonly suspended: boolean; readonly state: EsimState }> {
  const esim = await loadOwnedEsim(db, organisationId, iccid);
  return { suspended: esim.state === 'suspended', state: esim.state };
}

export interface DeleteEsimInput {
  readonly organisationId: string;
  readonly iccid: string;
}

export interface DeleteEsimResult {
  readonly iccid: string;
  /** How many bundle assignments (Processing, Queued or Active) were revoked, without refund. */
  readonly revokedAssignments: number;
}

/**
 * The use case: deletes the caller's eSIM from the account, in the runner's transaction. Every
 * live assignment is revoked without refund, the eSIM becomes deactivated and its profile status
 * Deactivated, and the history records it. Irreversible; deleting it again is a 400.
 */
export async function applyDeleteEsim(
  tx: Executor,
  deps: EsimStateDeps,
  input: DeleteEsimInput,
): Promise<DeleteEsimResult> {
  const esim = await lockEsim(tx, deps, input.organisationId, input.iccid);
  refuseDeactivated(esim, 'was already deleted');
  // Out of the list first, before any counter of the eSIMs' profile statuses is taken. It touches
  // no other eSIM's row and not the organisation's eSIM total, so issuing goes on meanwhile.
  await takeOutOfEsimList(tx, input.organisationId, esim.iccid);
  const at = iso(deps.clock.now());
  let revoked = 0;
  for (const assignment of await listAssignmentsOfEsim(tx, esim.iccid)) {
    if (!LIVE.has(assignment.state)) continue;
    await revokeAssignment(tx, deps, assignment, 'none');
    revoked += 1;
  }
  await moveState(tx, esim, 'deactivated', at, 'Deactivated');
  await recordEsimEvent(tx, deps.store.dialect, esim.iccid, HISTORY_DEACTIVATED, at);
  return { iccid: esim.iccid, revokedAssignments: revoked };
}

const LIVE = new Set(['Processing', 'Queued', 'Active']);

/** Deletes an eSIM in a transaction of its own. */
export function deleteEsim(deps: EsimStateDeps, input: DeleteEsimInput): Promise<DeleteEsimResult> {
  return runWrite(deps, applyDeleteEsim, input);
}

/**
 * Whether a bundle can go onto the caller's eSIM (GET /esims/{iccid}/compatible/{bundle}): the
 * eSIM is still on the account (not deleted) and the bundle is one the organisation may apply
 * (of its groups, or one it holds). Every bundle of this service fits every profile it issues,
 * so nothing else can make them incompatible. 400 malformed, 404 unknown or another's eSIM.
 */
export async function checkCompatibility(
  db: Db,
  organisation: { readonly id: string; readonly groups: readonly string[] },
  iccid: string,
  bundleName: string,
): Promise<boolean> {
  const esim = await loadOwnedEsim(db, organisation.id, iccid);
  if (esim.state === 'deactivated') return false;
  const bundle = await findBundleByName(db, bundleName);
  if (bundle === undefined) return false;
  return (
    bundle.groups.some((g) => organisation.groups.includes(g)) ||
    holdsBundle(db, organisation.id, bundle.name)
  );
}
