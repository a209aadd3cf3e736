import { iso } from '../../src/clock.js';
import type { AppDeps } from '../../src/deps.js';
import { luhnCheckDigit } from '../../src/domain/esims/esim-issuer.js';
import type { EsimRow } from '../../src/store/schema.js';

// Bulk fixtures for the portal's timing test: thousands of eSIMs written straight into the store
// in large statements (issuing them one order at a time would take minutes on PostgreSQL). The
// rows are what issuing writes; the pages only read them.

const CHUNK = 500;

/** A valid ICCID (prefix 89, Luhn check digit) numbered `n` within the series `series`. */
export function fixtureIccid(series: number, n: number): string {
  const body = `8944${String(series).padStart(4, '0')}${String(n).padStart(10, '0')}`;
  return body + String(luhnCheckDigit(body));
}

/** Writes `count` eSIMs of the organisation, issued one second apart, and returns their ICCIDs. */
export async function seedEsims(
  deps: AppDeps,
  organisationId: string,
  count: number,
  series = 1,
): Promise<string[]> {
  const start = deps.clock.now().getTime() - count * 1000;
  const rows: EsimRow[] = [];
  for (let n = 0; n < count; n += 1) {
    rows.push({
      iccid: fixtureIccid(series, n),
      organisation_id: organisationId,
      matching_id: `FIXTR-${String(n).padStart(5, '0')}-${String(series).padStart(5, '0')}-AAAAA`,
      smdp_address: 'smdp.esim-bundle.example',
      profile_status: n % 3 === 0 ? 'Installed' : 'Released',
      pin: '1234',
      puk: '12345678',
      msisdn:
        n % 2 === 0 ? `44770${String(series).padStart(2, '0')}${String(n).padStart(5, '0')}` : null,
      first_installed_at: n % 3 === 0 ? iso(new Date(start + n * 1000 + 500)) : null,
      order_reference: null,
      created_at: iso(new Date(start + n * 1000)),
      customer_ref: null,
    });
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    await deps.store.db
      .insertInto('esims')
      .values(rows.slice(i, i + CHUNK))
      .execute();
  }
  return rows.map((r) => r.iccid);
}

/** A bundle of the built-in catalogue that every organisation's default group holds. */
export const GB_1GB = 'esim_1GB_7D_GB_V2';

export interface ApiCaller {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** A call to the organisation's API (or the simulator's control routes) with its key. */
export async function api(
  caller: ApiCaller,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(caller.baseUrl + path, {
    method,
    headers: {
      'x-api-key': caller.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text === '' ? undefined : JSON.parse(text),
    headers: response.headers,
  };
}

/** Buys `quantity` units of a bundle through POST /v2.1/orders onto new eSIMs; their ICCIDs. */
export async function buyOntoNewEsims(
  caller: ApiCaller,
  bundle: string,
  quantity: number,
): Promise<{ reference: string; iccids: string[] }> {
  const placed = await api(caller, 'POST', '/v2.1/orders', {
    type: 'transaction',
    assign: true,
    order: [{ type: 'bundle', item: bundle, quantity }],
  });
  if (placed.status !== 200) throw new Error(`order failed: ${JSON.stringify(placed.json)}`);
  const body = placed.json as { orderReference: string; order: { iccids: string[] }[] };
  return { reference: body.orderReference, iccids: body.order.flatMap((l) => l.iccids) };
}

/** Number of orders of the organisation, as the API counts them. */
export async function orderCount(caller: ApiCaller): Promise<number> {
  const listed = await api(caller, 'GET', '/v2.1/orders?perPage=1');
  return Number(listed.headers.get('x-total-count'));
}

/** The organisation's balance in minor units, as the API reports it. */
export async function balanceOf(caller: ApiCaller): Promise<number> {
  const org = await api(caller, 'GET', '/v2.1/organisation');
  return (org.json as { organisations: { balance: number }[] }).organisations[0]?.balance ?? NaN;
}
