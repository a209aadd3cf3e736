import assert from 'node:assert/strict';
import { iso } from '../src/clock.js';
import type { Bundle } from '../src/domain/catalogue/bundle.js';
import { saveBundles } from '../src/domain/catalogue/save-bundles.js';
import type { TestApp, TestOrg } from './harness.js';

// Fixtures for the eSIM and simulator suites: small bundles whose data runs out in a test, and
// buying through the public order endpoint.

export const FR_1MB: Bundle = {
  name: 'esim_test_1MB_30D_FR_V2',
  description: 'eSIM, 1MB, 30 Days, France, V2',
  groups: ['Standard eSIM Bundles'],
  countries: ['FR'],
  roaming: ['DE'],
  dataAmount: 1,
  duration: 30,
  speed: ['4G', '5G'],
  autostart: true,
  unlimited: false,
  price: 100,
};

export const FR_2MB: Bundle = {
  ...FR_1MB,
  name: 'esim_test_2MB_7D_FR_V2',
  description: 'eSIM, 2MB, 7 Days, France, V2',
  dataAmount: 2,
  duration: 7,
};

export const US_UNLIMITED: Bundle = {
  ...FR_1MB,
  name: 'esim_test_ULE_1D_US_V2',
  description: 'eSIM, Unlimited Essential, 1 Day, United States, V2',
  countries: ['US'],
  roaming: [],
  dataAmount: -1,
  duration: 1,
  unlimited: true,
};

export const MB = 1_000_000;

export async function seedTestBundles(t: TestApp): Promise<void> {
  await t.deps.store.db
    .transaction()
    .execute((trx) => saveBundles(trx, [FR_1MB, FR_2MB, US_UNLIMITED], iso(t.deps.clock.now())));
}

export interface Bought {
  orderReference: string;
  iccids: string[];
}

/** Buys through POST /v2.1/orders; with assign, onto the given eSIMs or new ones. */
export async function buy(
  t: TestApp,
  org: TestOrg,
  bundle: string,
  options: { quantity?: number; assign?: boolean; iccids?: string[] } = {},
): Promise<Bought> {
  const quantity = options.quantity ?? options.iccids?.length ?? 1;
  const res = await t.request(org.apiKey, {
    method: 'POST',
    url: '/v2.1/orders',
    payload: {
      type: 'transaction',
      assign: options.assign ?? true,
      order: [
        {
          type: 'bundle',
          item: bundle,
          quantity,
          ...(options.iccids === undefined ? {} : { iccids: options.iccids }),
        },
      ],
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  return { orderReference: body.orderReference, iccids: body.order[0].iccids ?? [] };
}

/** A control-plane call (simulator routes); asserts a 200 unless told otherwise. */
export async function sim(
  t: TestApp,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  payload?: unknown,
  expected = 200,
): Promise<Record<string, unknown>> {
  const res = await t.app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  assert.equal(res.statusCode, expected, `${method} ${url}: ${res.body}`);
  return res.json();
}

/** Installs the profile and attaches it in the country: ready to use data. */
export async function installAndAttach(t: TestApp, iccid: string, country = 'FR'): Promise<void> {
  await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
  await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country });
}

export async function use(
  t: TestApp,
  iccid: string,
  bytes: number,
): Promise<Record<string, unknown>> {
  return sim(t, 'POST', `/_sim/esims/${iccid}/usage`, { bytes });
}

export async function getJson(t: TestApp, org: TestOrg, url: string): Promise<unknown> {
  const res = await t.request(org.apiKey, { method: 'GET', url });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json();
}

/** Units of a bundle left in the organisation inventory, from GET /inventory. */
export async function inventoryUnits(t: TestApp, org: TestOrg, name: string): Promise<number> {
  const body = (await getJson(t, org, '/v2.1/inventory')) as {
    bundles: { name: string; available: { remaining: number }[] }[];
  };
  const bundle = body.bundles.find((b) => b.name === name);
  return bundle?.available.reduce((n, b) => n + b.remaining, 0) ?? 0;
}

export interface AssignmentView {
  id: string;
  reference: string;
  bundleState: string;
  initialQuantity: number;
  remainingQuantity: number;
  usedQuantity: number;
  startTime: string;
  endTime: string;
}

/** Every assignment of the eSIM by bundle name, from GET /esims/{iccid}/bundles. */
export async function assignmentsOf(
  t: TestApp,
  org: TestOrg,
  iccid: string,
): Promise<{ name: string; assignment: AssignmentView }[]> {
  const body = (await getJson(t, org, `/v2.1/esims/${iccid}/bundles`)) as {
    bundles: { name: string; assignments: AssignmentView[] }[];
  };
  return body.bundles.flatMap((b) => b.assignments.map((a) => ({ name: b.name, assignment: a })));
}

/** A saved snapshot of the whole state, as GET /_sim/snapshot answers it. */
export interface SavedSnapshot {
  readonly body: string;
  readonly contentType: string;
}

export async function saveSnapshot(t: TestApp): Promise<SavedSnapshot> {
  const res = await t.app.inject({ url: '/_sim/snapshot' });
  assert.equal(res.statusCode, 200, res.body);
  return { body: res.body, contentType: String(res.headers['content-type']) };
}

/** Puts a saved snapshot back (PUT /_sim/snapshot); fails unless it is taken. */
export async function restoreSnapshot(t: TestApp, saved: SavedSnapshot): Promise<void> {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/_sim/snapshot',
    headers: { 'content-type': saved.contentType },
    payload: saved.body,
  });
  assert.equal(res.statusCode, 200, res.body);
}
