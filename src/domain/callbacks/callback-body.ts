import type { AssignmentSnapshot } from '../esims/lifecycle/network-events.js';
import type { DueAlert } from './usage-alerts.js';

// The body of a usage callback (spec part 6), as the outbox stores it: the full (V3) event. The
// reduced V2 body is derived from it at send time (src/callbacks/delivery.ts), so one stored event
// serves either version and an organisation that switches version gets the new shape on its next
// delivery. The wire schemas that document these bodies are the HTTP layer's
// (src/http/schemas/usage-callback.ts), which checks at compile time that they describe exactly
// these types.
//
// V3 carries three optional extra fields (the decisions page allows additions): `threshold` on
// Utilisation (which of 1/50/80/100 % was passed: one report can pass several), and `country` /
// `previousCountry` on FirstAttachment and CountryChange. `bundle` is absent only when an eSIM
// attaches while it has no bundle in use or queued.

export const ALERT_TYPES = ['Utilisation', 'FirstUse', 'FirstAttachment', 'CountryChange'] as const;

export type AlertType = (typeof ALERT_TYPES)[number];

/** The bundle of a full (V3) body. */
export interface BundleV3 {
  id: string;
  reference: string;
  name: string;
  description: string;
  initialQuantity: number;
  remainingQuantity: number;
  startTime: string;
  endTime: string;
  unlimited: boolean;
}

/** The full (V3) body. */
export interface CallbackV3 {
  iccid: string;
  alertType: AlertType;
  bundle?: BundleV3;
  threshold?: number;
  country?: string;
  previousCountry?: string;
}

/** The reduced (V2) body: only the fields the spec lists for it. */
export interface CallbackV2 {
  iccid: string;
  alertType: AlertType;
  bundle?: Pick<
    BundleV3,
    'id' | 'name' | 'initialQuantity' | 'remainingQuantity' | 'startTime' | 'endTime'
  >;
}

function bundleOf(a: AssignmentSnapshot): BundleV3 {
  return {
    id: a.id,
    reference: a.reference,
    name: a.bundleName,
    description: a.description,
    initialQuantity: a.unlimited ? -1 : a.initialBytes,
    remainingQuantity: a.unlimited ? -1 : a.remainingBytes,
    startTime: a.startTime ?? '',
    endTime: a.endTime ?? '',
    unlimited: a.unlimited,
  };
}

export interface EventFacts {
  readonly iccid: string;
  readonly assignment: AssignmentSnapshot | undefined;
  readonly country?: string;
  readonly previousCountry?: string | null;
}

/** The full (V3) event for one due alert; property order is fixed so bodies are predictable. */
export function buildV3(alert: DueAlert, facts: EventFacts): CallbackV3 {
  const body: CallbackV3 = { iccid: facts.iccid, alertType: alert.type };
  if (facts.assignment !== undefined) body.bundle = bundleOf(facts.assignment);
  if (alert.type === 'Utilisation') body.threshold = alert.threshold;
  if (alert.type === 'FirstAttachment' || alert.type === 'CountryChange') {
    if (facts.country !== undefined) body.country = facts.country;
    if (alert.type === 'CountryChange' && typeof facts.previousCountry === 'string') {
      body.previousCountry = facts.previousCountry;
    }
  }
  return body;
}

/** The reduced V2 shape of a stored V3 event: only the fields the spec lists for it. */
export function toV2(event: CallbackV3): CallbackV2 {
  const body: CallbackV2 = { iccid: event.iccid, alertType: event.alertType };
  const b = event.bundle;
  if (b !== undefined) {
    body.bundle = {
      id: b.id,
      name: b.name,
      initialQuantity: b.initialQuantity,
      remainingQuantity: b.remainingQuantity,
      startTime: b.startTime,
      endTime: b.endTime,
    };
  }
  return body;
}
