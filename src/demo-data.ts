import type { AppDeps } from './deps.js';
import { createOutboxSink } from './domain/callbacks/outbox.js';
import { updateCustomerRef } from './domain/esims/esim-actions.js';
import type { OrderRequest } from './domain/orders/validation.js';
import { orderingOrganisation, placeOrder } from './domain/orders/placement.js';
import { updateOrganisationSettings } from './domain/organisations/organisation-changes.js';
import { runWrite } from './domain/runner/use-case-runner.js';
import { createSimulatedEvents } from './network/simulated-events.js';
import type { RandomSource } from './random.js';
import { seededRandom } from './random.js';
import { findBundleByName } from './store/repositories/catalogue-repository.js';
import { findOrganisationById } from './store/repositories/organisation-repository.js';

// What the demo organisation holds besides its balance and admin: an eSIM in use and the orders
// behind it, drawn from fixed seeds, so the same identifiers exist on every fresh simulator
// database and the documentation page's examples (src/http/openapi-request-examples.ts) can name
// them: "Try it out" then works unedited, from the top of each version's page down.
//
// - An inventory order of DEMO_BUNDLE x 5 (batch DEMO_USAGE_ID), for refunds and applies.
// - DEMO_ORDER_REFERENCE: the order that issued eSIM DEMO_ICCID with one DEMO_BUNDLE, then an
//   order of two more onto it (DEMO_QUEUED_ASSIGNMENTS, Queued), for the revokes by id.
// - The eSIM's customer reference DEMO_CUSTOMER_REF; installed, attached in France, 150 MB used
//   (the first bundle Active), numbered, so location, history and SMS answer.
// - The usage callbacks of that attach and use, recorded before the organisation had a callback
//   URL (undeliverable, DEMO_CALLBACK_ID the first), then the callback URL: the simulator's own
//   receiver, so a resend is delivered without a receiver of yours.
// - Consumption billing, so the organisation may read v2.5's consumption prices.
//
// The identifiers are what the seeds draw today: test/openapi-request-examples.test.ts fails
// when a change to how the service draws them moves them, and names the constant to update.

export const DEMO_BUNDLE = 'esim_1GB_7D_FR_V2';
export const DEMO_CUSTOMER_REF = 'fleet-7';
export const DEMO_COUNTRY = 'FR';
/** The inventory batch of the demo's first order: the first batch of a fresh database. */
export const DEMO_USAGE_ID = 1;
export const DEMO_INVENTORY_UNITS = 5;
export const DEMO_INVENTORY_ORDER = '0b6f4c1e-5a2d-4e8b-9c37-1d2e3f4a5b60';
export const DEMO_ORDER_REFERENCE = '7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71';
export const DEMO_TOP_UP_ORDER = 'e41d8a5c-9f27-4b3e-8c6d-2a7b1f0e9d82';
export const DEMO_ICCID = '8966975007124231762';
/** The eSIM's first assignment, Active. */
export const DEMO_ACTIVE_ASSIGNMENT = '00000000-0001-723e-8a50-16840c58e1d2';
/** The two Queued assignments of DEMO_BUNDLE on the eSIM, oldest first. */
export const DEMO_QUEUED_ASSIGNMENTS: readonly [string, string] = [
  '00000000-0002-773c-be45-c3fcd7fcd027',
  '00000000-0003-76c1-a036-e27c14aa0f17',
];
/** The demo's first usage callback (FirstAttachment). */
export const DEMO_CALLBACK_ID = '005412e2-9223-4d60-8298-fe90a31e5d1d';
/** Data the demo eSIM has used, bytes. */
export const DEMO_USED_BYTES = 150_000_000;
/** Units the demo's orders buy, all of DEMO_BUNDLE. */
const DEMO_UNITS = DEMO_INVENTORY_UNITS + 1 + 2;

/** Where the simulator's callback receiver answers, under the server's base URL. */
export const CALLBACK_RECEIVER_PATH = '/_sim/callback-receiver';

const SEED = 0x0de0_2026;

/**
 * The demo's random source: eSIM digits, assignment ids and any other UUID each from a sequence
 * of its own, so one more draw of one kind does not move the identifiers of another.
 */
function demoRandom(): RandomSource {
  const digits = seededRandom(SEED);
  const ordered = seededRandom(SEED + 1);
  const plain = seededRandom(SEED + 2);
  return {
    seeded: true,
    int: (max) => digits.int(max),
    float: () => digits.float(),
    uuid: () => plain.uuid(),
    orderedUuid: () => ordered.orderedUuid(),
  };
}

/** What the demo's orders cost, minor units: the opening balance adds it to what is left. */
export async function demoDataCost(deps: AppDeps): Promise<number> {
  if (deps.simulator === undefined) return 0;
  const bundle = await findBundleByName(deps.store.db, DEMO_BUNDLE);
  return bundle === undefined ? 0 : bundle.price * DEMO_UNITS;
}

/**
 * Adds the demo data to the freshly created demo organisation (simulator mode only: its eSIM is
 * played on the simulated network). `baseUrl` is where the server answers, for the callback URL.
 */
export async function addDemoData(
  deps: AppDeps,
  organisationId: string,
  baseUrl: string,
): Promise<void> {
  if (deps.simulator === undefined) return;
  const data = { ...deps, random: demoRandom() };
  const order = async (reference: string, request: OrderRequest) => {
    const org = await findOrganisationById(deps.store.db, organisationId);
    if (org === undefined) throw new Error(`demo organisation ${organisationId} not found`);
    return runWrite(data, placeOrder, { org: orderingOrganisation(org), request, reference });
  };
  const bundle = (quantity: number, iccids?: string[]) => ({
    type: 'bundle' as const,
    item: DEMO_BUNDLE,
    quantity,
    ...(iccids === undefined ? {} : { iccids }),
  });
  await order(DEMO_INVENTORY_ORDER, {
    type: 'transaction',
    assign: false,
    order: [bundle(DEMO_INVENTORY_UNITS)],
  });
  const issued = await order(DEMO_ORDER_REFERENCE, {
    type: 'transaction',
    assign: true,
    order: [bundle(1)],
  });
  const iccid = issued.order.items[0]?.iccids[0];
  if (iccid === undefined) throw new Error('the demo order issued no eSIM');
  await order(DEMO_TOP_UP_ORDER, {
    type: 'transaction',
    assign: true,
    order: [bundle(2, [iccid, iccid])],
  });
  await updateCustomerRef(data, organisationId, iccid, DEMO_CUSTOMER_REF);
  // The phone: its own sequences for the operator and the callback ids.
  const events = createSimulatedEvents(
    {
      store: deps.store,
      clock: deps.clock,
      networkEvents: createOutboxSink({
        random: seededRandom(SEED + 3),
        maxPending: deps.config.callbackMaxPending,
      }),
    },
    seededRandom(SEED + 4),
    deps.network,
  );
  await events.installProfile(iccid, 'Installed');
  await events.attach(iccid, { country: DEMO_COUNTRY });
  await events.reportUsage(iccid, DEMO_USED_BYTES);
  await updateOrganisationSettings(
    {
      db: deps.store.db,
      clock: deps.clock,
      random: deps.random,
      cipher: deps.cipher,
      apiKeys: deps.apiKeys,
    },
    organisationId,
    {
      billingType: 'Consumption',
      callbackUrl: `${baseUrl.replace(/\/$/, '')}${CALLBACK_RECEIVER_PATH}`,
      callbackVersion: 'V3',
    },
    deps.checkCallbackUrl,
  );
}
