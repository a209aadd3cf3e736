import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import type { Db, DialectName, Executor } from '../store/database.js';
import { setCustomerRef } from '../store/repositories/esim-repository.js';
import { insertHistory } from '../store/repositories/history-repository.js';
import {
  findNetwork,
  readUsageView,
  touchNetwork,
} from '../store/repositories/network-repository.js';
import { badRequest, notFound } from './errors.js';
import { inTransaction } from './use-cases/run.js';

// The live eSIM actions the contract leaves out: the organisation's own reference on an eSIM
// (PUT /esims) and a network refresh (GET /esims/{iccid}/refresh). Each is one transaction, opened
// by the use-case runner, and leaves an entry in the eSIM history, named as the live service
// names it.

export const HISTORY_UPDATED = 'eSIM Updated';
export const HISTORY_REFRESHED = 'eSIM Refreshed';
export const CUSTOMER_REF_MAX = 255;

export interface ActionDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
}

/** An eSIM event in the history, naming the bundle in use (or next in line), as eSIM events do. */
async function recordEsimEvent(
  trx: Executor,
  dialect: DialectName,
  iccid: string,
  name: string,
  at: string,
): Promise<void> {
  const view = await readUsageView(trx, iccid, dialect);
  const current = view?.live.find((a) => a.row.state === 'Active') ?? view?.live[0];
  await insertHistory(trx, {
    iccid,
    name,
    bundle: current?.row.bundle_name ?? '',
    bundle_state: current?.row.state ?? '',
    alert_type: '',
    created_at: at,
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
  await inTransaction(deps, async (trx) => {
    if (!(await setCustomerRef(trx, organisationId, iccid, customerRef))) {
      throw notFound(`eSIM ${iccid} not found`);
    }
    await recordEsimEvent(trx, deps.store.dialect, iccid, HISTORY_UPDATED, at);
  });
}

/**
 * A network refresh: the network cancels the eSIM's location and the device registers again on
 * the same network (the simulated network re-registers at once, so data use is not interrupted
 * beyond the refresh itself). An eSIM never seen on a network is refreshed all the same: the
 * next attach is a fresh one anyway.
 */
export async function refreshEsim(deps: ActionDeps, iccid: string): Promise<void> {
  const at = iso(deps.clock.now());
  await inTransaction(deps, async (trx) => {
    const network = await findNetwork(trx, iccid);
    if (network !== undefined && network.attached === 1) {
      await touchNetwork(trx, iccid, { last_seen: at });
    }
    await recordEsimEvent(trx, deps.store.dialect, iccid, HISTORY_REFRESHED, at);
  });
}
