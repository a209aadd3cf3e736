import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Db, DialectName, Executor } from '../../store/database.js';
import { findEsim, setCustomerRef } from '../../store/repositories/esim-repository.js';
import { insertHistory } from '../../store/repositories/history-repository.js';
import { readUsageView } from '../../store/repositories/network-repository.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { runWrite } from '../runner/use-case-runner.js';

// The live eSIM actions the contract leaves out: the organisation's own reference on an eSIM
// (PUT /esims) and a network refresh (GET /esims/{iccid}/refresh). Each leaves an entry in the
// eSIM history, named as the live service names it, in one transaction opened by the use-case
// runner.

export const HISTORY_UPDATED = 'eSIM Updated';
export const HISTORY_REFRESHED = 'eSIM Refreshed';
export const CUSTOMER_REF_MAX = 255;

export interface ActionDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
}

/** An eSIM event in the history, naming the bundle in use (or next in line), as eSIM events do. */
export async function recordEsimEvent(
  trx: Executor,
  dialect: DialectName,
  iccid: string,
  name: string,
  at: string,
): Promise<void> {
  const view = await readUsageView(trx, iccid, dialect);
  const current = view?.live.find((a) => a.assignment.state === 'Active') ?? view?.live[0];
  await insertHistory(trx, {
    iccid,
    name,
    bundle: current?.assignment.bundleName ?? '',
    bundleState: current?.assignment.state ?? '',
    alertType: '',
    at,
  });
}

export async function updateCustomerRef(
  deps: ActionDeps,
  organisationId: string,
  iccid: string,
  customerRef: string,
): Promise<void> {
  if ([...customerRef].length > CUSTOMER_REF_MAX) {
    throw badRequest(`body field customerRef must be at most ${CUSTOMER_REF_MAX} characters`);
  }
  const at = iso(deps.clock.now());
  await runWrite(
    deps,
    async (trx) => {
      const esim = await findEsim(trx, iccid);
      if (esim?.state === 'deactivated' && esim.organisationId === organisationId) {
        throw badRequest(`eSIM ${iccid} is deactivated and cannot be updated`, 'esim_deactivated');
      }
      if (!(await setCustomerRef(trx, organisationId, iccid, customerRef))) {
        throw notFound(`eSIM ${iccid} not found`);
      }
      await recordEsimEvent(trx, deps.store.dialect, iccid, HISTORY_UPDATED, at);
    },
    undefined,
  );
}

/** The outbound command a refresh needs; NetworkAdapter provides it. */
export interface RegistrationRefresher {
  refreshRegistration(input: { readonly iccid: string }): Promise<void>;
}

/**
 * A network refresh: the network is told to cancel the eSIM's location (an outbound command), and
 * the device registers again, which the network reports as an inbound event (the simulated
 * network re-registers at once, on the same network, so data use is not interrupted beyond the
 * refresh itself). An eSIM never seen on a network is refreshed all the same: the next attach is
 * a fresh one anyway. The history records the refresh once the network has taken the command.
 */
export async function refreshEsim(
  deps: ActionDeps & { readonly network: RegistrationRefresher },
  iccid: string,
): Promise<void> {
  const esim = await findEsim(deps.store.db, iccid);
  if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
  if (esim.state === 'deactivated') {
    throw badRequest(`eSIM ${iccid} is deactivated and cannot be refreshed`, 'esim_deactivated');
  }
  const at = iso(deps.clock.now());
  await deps.network.refreshRegistration({ iccid });
  await runWrite(
    deps,
    async (trx) => {
      await recordEsimEvent(trx, deps.store.dialect, iccid, HISTORY_REFRESHED, at);
    },
    undefined,
  );
}
