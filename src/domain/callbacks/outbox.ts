import { buildV3 } from './callback-body.js';
import { iso } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { Executor } from '../../store/database.js';
import {
  findAlertsSent,
  updateAlertsSent,
} from '../../store/repositories/assignment-repository.js';
import { queueCallbackEvents } from '../../store/repositories/callback-repository.js';
import { insertHistory } from '../../store/repositories/history-repository.js';
import { findCallbackUrl } from '../../store/repositories/organisation-repository.js';
import type { NetworkEvent, NetworkEventSink } from '../esims/lifecycle/network-events.js';
import { queueRoom } from './endpoint-health.js';
import type { DueAlert } from './usage-alerts.js';
import { crossedThresholds, dueAlerts } from './usage-alerts.js';

// The outbox writer: the NetworkEventSink the lifecycle calls inside the transaction of the usage
// or attach it reports. Alerts become outbox events in that same transaction, so an event
// is stored exactly when its cause is, and the delivery worker can never lose it.

/** Reads the assignment's alerted thresholds only when this report passes one (the rare case). */
async function alertsFor(trx: Executor, event: NetworkEvent): Promise<DueAlert[]> {
  if (event.type === 'attach') return dueAlerts(event);
  const a = event.assignment;
  const crossed = a.unlimited
    ? []
    : crossedThresholds(a.initialBytes, event.usedBefore, a.usedBytes);
  if (crossed.length === 0) return event.firstUse ? dueAlerts(event) : [];
  const alreadySent = await findAlertsSent(trx, a.id);
  const alerts = dueAlerts(event, alreadySent);
  const sent = alerts.flatMap((x) => (x.type === 'Utilisation' ? [x.threshold] : []));
  if (sent.length > 0) await updateAlertsSent(trx, a.id, [...alreadySent, ...sent]);
  return alerts;
}

/**
 * The outbox writer. An organisation has at most `maxPending` open callbacks (pending or being
 * delivered); one past that bound is stored `failed` without an attempt, so it shows in the
 * delivery log and may be resent once the queue has drained, and the usage it reports is never
 * refused for it.
 */
export function createOutboxSink(deps: {
  readonly random: RandomSource;
  readonly maxPending: number;
}): NetworkEventSink {
  return {
    async record(trx, event, at) {
      const alerts = await alertsFor(trx, event);
      if (alerts.length === 0) return;
      const callbackUrl = await findCallbackUrl(trx, event.organisationId);
      const deliverable = callbackUrl !== undefined && callbackUrl !== '';
      const room = deliverable ? await queueRoom(trx, event.organisationId, deps.maxPending) : 0;
      const when = iso(at);
      const facts =
        event.type === 'attach'
          ? {
              iccid: event.iccid,
              assignment: event.assignment,
              country: event.country,
              previousCountry: event.previousCountry,
            }
          : { iccid: event.iccid, assignment: event.assignment };
      await queueCallbackEvents(
        trx,
        alerts.map((alert, i) => ({
          id: deps.random.uuid(),
          organisationId: event.organisationId,
          iccid: event.iccid,
          alertType: alert.type,
          body: buildV3(alert, facts),
          deliverable,
          queueFull: i >= room,
        })),
        when,
      );
      const utilisation = alerts.filter((x) => x.type === 'Utilisation');
      if (event.type !== 'usage') return;
      await insertHistory(
        trx,
        utilisation.map(() => ({
          iccid: event.iccid,
          name: 'Utilisation Alert',
          bundle: event.assignment.bundleName,
          bundleState: event.assignment.state,
          alertType: 'Utilisation',
          at: when,
        })),
      );
    },
  };
}
