import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { Db, Executor } from '../../store/database.js';
import {
  findNetwork,
  readUsageView,
  touchNetwork,
  upsertNetwork,
} from '../../store/repositories/network-repository.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { snapshotOf } from '../esims/lifecycle/snapshot.js';
import type { InboundNetworkDeps } from './inbound-deps.js';
import { runWrite } from '../runner/use-case-runner.js';

// Inbound event: the eSIM registered on a mobile network.

/** The network the eSIM registered on, as the network names it. */
export interface AttachedNetwork {
  readonly mcc: string;
  readonly mnc: string;
  readonly name: string;
  readonly country: string; // ISO2
}

export interface AttachResult {
  readonly iccid: string;
  readonly mobileNetworkCode: string;
  readonly mcc: string;
  readonly mnc: string;
  readonly networkName: string;
  readonly country: string;
  readonly lastSeen: string;
}

/**
 * Records an attachment in the caller's transaction: the location row, and the attach event
 * (first attachment, country change) for the callbacks, with the bundle in use or next in line.
 */
export async function applyAttach(
  trx: Executor,
  deps: InboundNetworkDeps,
  iccid: string,
  network: AttachedNetwork,
  at: Date,
): Promise<AttachResult> {
  const when = iso(at);
  const view = await readUsageView(trx, iccid, deps.store.dialect);
  if (view === undefined) throw notFound(`eSIM ${iccid} not found`);
  if (view.esim.state === 'deactivated') {
    throw badRequest(
      `eSIM ${iccid} is deactivated: the network no longer serves it`,
      'esim_deactivated',
    );
  }
  if (view.esim.profileStatus !== 'Installed') {
    throw badRequest(
      `eSIM ${iccid} profile is ${view.esim.profileStatus}; install it before attaching`,
    );
  }
  const previous = view.network;
  await upsertNetwork(trx, {
    iccid,
    mcc: network.mcc,
    mnc: network.mnc,
    networkName: network.name,
    country: network.country,
    attached: true,
    lastSeen: when,
    firstUsedAt: previous?.firstUsedAt ?? null,
  });
  const current =
    view.live.find((a) => a.assignment.state === 'Active') ??
    view.live.find((a) => a.assignment.state === 'Queued');
  await deps.networkEvents.record(
    trx,
    {
      type: 'attach',
      organisationId: view.esim.organisationId,
      iccid,
      country: network.country,
      previousCountry: previous?.country ?? null,
      firstAttachment: previous === undefined,
      assignment:
        current === undefined ? undefined : snapshotOf(current.assignment, current.description),
    },
    at,
  );
  return {
    iccid,
    mobileNetworkCode: network.mcc + network.mnc,
    mcc: network.mcc,
    mnc: network.mnc,
    networkName: network.name,
    country: network.country,
    lastSeen: when,
  };
}

/** The attach event in its own transaction, at the service clock's time. */
export async function recordAttach(
  deps: InboundNetworkDeps,
  iccid: string,
  network: AttachedNetwork,
): Promise<AttachResult> {
  const at = deps.clock.now();
  return runWrite(deps, (trx) => applyAttach(trx, deps, iccid, network, at), undefined);
}

/**
 * The eSIM registered again on the network it is attached to (after a refresh), in the caller's
 * transaction: only the time it was last seen moves. An eSIM not attached anywhere stays so.
 */
export async function applySeen(trx: Executor, iccid: string, at: Date): Promise<void> {
  const network = await findNetwork(trx, iccid);
  if (network !== undefined && network.attached) {
    await touchNetwork(trx, iccid, { lastSeen: iso(at) });
  }
}

/** The re-registration event in its own transaction, at the service clock's time. */
export async function recordSeen(
  deps: { readonly store: { readonly db: Db }; readonly clock: Clock },
  iccid: string,
): Promise<void> {
  const at = deps.clock.now();
  await runWrite(deps, (trx) => applySeen(trx, iccid, at), undefined);
}
