import { iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import { findEsim, setProfileStatus } from '../../store/repositories/esim-repository.js';
import { insertHistory } from '../../store/repositories/history-repository.js';
import { readUsageView } from '../../store/repositories/network-repository.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { refuseDeactivated } from '../esims/esim-state.js';
import type { InboundNetworkDeps } from './inbound-deps.js';
import { runWrite } from '../runner/use-case-runner.js';

// Inbound event: the device downloaded, installed or deleted the eSIM profile.

export const PROFILE_STATUSES = ['Released', 'Downloaded', 'Installed', 'Unavailable'] as const;
export type ProfileStatus = (typeof PROFILE_STATUSES)[number];

export interface ProfileResult {
  readonly iccid: string;
  readonly profileStatus: ProfileStatus;
  readonly firstInstalledDateTime: string;
}

const PROFILE_HISTORY: Partial<Record<ProfileStatus, string>> = {
  Downloaded: 'eSIM Downloaded',
  Installed: 'eSIM Installed',
  Unavailable: 'eSIM Deleted',
};

/**
 * Records the profile status the device reports, in the caller's transaction: the eSIM row, the
 * first install time and one history row naming the bundle in use, only when the status changes.
 */
export async function applyProfileStatus(
  trx: Executor,
  deps: InboundNetworkDeps,
  iccid: string,
  status: ProfileStatus,
  at: Date,
): Promise<ProfileResult> {
  if (status === 'Released') throw badRequest('status Released cannot be set by the device');
  const when = iso(at);
  const esim = await findEsim(trx, iccid);
  if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
  refuseDeactivated(esim, 'its profile can no longer change');
  const firstInstalled = esim.firstInstalledAt ?? (status === 'Installed' ? when : null);
  if (esim.profileStatus !== status) {
    await setProfileStatus(trx, iccid, status, firstInstalled);
    const view = await readUsageView(trx, iccid, deps.store.dialect);
    const current = view?.live.find((a) => a.assignment.state === 'Active') ?? view?.live[0];
    await insertHistory(trx, {
      iccid,
      name: PROFILE_HISTORY[status] ?? `eSIM ${status}`,
      bundle: current?.assignment.bundleName ?? '',
      bundleState: current?.assignment.state ?? '',
      alertType: '',
      at: when,
    });
  }
  return { iccid, profileStatus: status, firstInstalledDateTime: firstInstalled ?? '' };
}

/** The profile-status event in its own transaction, at the service clock's time. */
export async function recordProfileStatus(
  deps: InboundNetworkDeps,
  iccid: string,
  status: ProfileStatus,
): Promise<ProfileResult> {
  const at = deps.clock.now();
  return runWrite(deps, (trx) => applyProfileStatus(trx, deps, iccid, status, at), undefined);
}
