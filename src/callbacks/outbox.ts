import { iso } from '../clock.js';
import type { NetworkEvent, NetworkEventSink } from '../domain/network-events.js';
import type { DueAlert } from '../domain/usage-alerts.js';
import { crossedThresholds, dueAlerts } from '../domain/usage-alerts.js';
import type { RandomSource } from '../random.js';
import type { Executor } from '../store/database.js';
import { insertCallbackEvents } from './callback-repository.js';
import type { NewCallbackEvent } from './callback-repository.js';
import { buildV3 } from './payload.js';

// The outbox writer: the NetworkEventSink the lifecycle calls inside the transaction of the usage
// or attach it reports. Alerts become callback_events rows in that same transaction, so an event
// is stored exactly when its cause is, and the delivery worker can never lose it.

function parseThresholds(raw: string | undefined): number[] {
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((n): n is number => typeof n === 'number') : [];
  } catch {
    return [];
  }
}

/** Reads the assignment's alerted thresholds only when this report passes one (the rare case). */
async function alertsFor(trx: Executor, event: NetworkEvent): Promise<DueAlert[]> {
  if (event.type === 'attach') return dueAlerts(event);
  const a = event.assignment;
  const crossed = a.unlimited
    ? []
    : crossedThresholds(a.initialBytes, event.usedBefore, a.usedBytes);
  if (crossed.length === 0) return event.firstUse ? dueAlerts(event) : [];
  const row = await trx
    .selectFrom('assignments')
    .select('alerts_sent')
    .where('id', '=', a.id)
    .executeTakeFirst();
  const alreadySent = parseThresholds(row?.alerts_sent);
  const alerts = dueAlerts(event, alreadySent);
  const sent = alerts.flatMap((x) => (x.type === 'Utilisation' ? [x.threshold] : []));
  if (sent.length > 0) {
    await trx
      .updateTable('assignments')
      .set({ alerts_sent: JSON.stringify([...alreadySent, ...sent].sort((p, q) => p - q)) })
      .where('id', '=', a.id)
      .execute();
  }
  return alerts;
}

export function createOutboxSink(deps: { readonly random: RandomSource }): NetworkEventSink {
  return {
    async record(trx, event, at) {
      const alerts = await alertsFor(trx, event);
      if (alerts.length === 0) return;
      const org = await trx
        .selectFrom('organisations')
        .select('callback_url')
        .where('id', '=', event.organisationId)
        .executeTakeFirst();
      const deliverable = org !== undefined && org.callback_url !== '';
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
      const rows: NewCallbackEvent[] = alerts.map((alert) => ({
        id: deps.random.uuid(),
        organisation_id: event.organisationId,
        iccid: event.iccid,
        alert_type: alert.type,
        payload: JSON.stringify(buildV3(alert, facts)),
        status: deliverable ? 'pending' : 'undeliverable',
        attempts: 0,
        next_attempt_at: when,
        locked_until: null,
        locked_by: null,
        last_status: null,
        created_at: when,
        updated_at: when,
        delivered_at: null,
      }));
      await insertCallbackEvents(trx, rows);
      const utilisation = alerts.filter((x) => x.type === 'Utilisation');
      if (event.type === 'usage' && utilisation.length > 0) {
        await trx
          .insertInto('esim_history')
          .values(
            utilisation.map(() => ({
              iccid: event.iccid,
              name: 'Utilisation Alert',
              bundle: event.assignment.bundleName,
              bundle_state: event.assignment.state,
              alert_type: 'Utilisation',
              created_at: when,
            })),
          )
          .execute();
      }
    },
  };
}
