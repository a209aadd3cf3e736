import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { saveCard } from '../../src/domain/money/save-card.js';
import { VERSIONS } from '../../src/http/versions/index.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { FR_1MB, buy, seedTestBundles, sim } from '../esim-fixtures.js';

// A field has one JSON type per version across every route of that version, and money one type
// and one unit: checked on each version's OpenAPI document (every success answer's schema) and
// on real answers of every route that differs between versions, on both databases.

/**
 * Where the reference itself gives one field two types within a version. Only the operation
 * named is left out of the comparison of that field.
 */
const TWO_TYPES_IN_THE_REFERENCE: readonly { field: string; operation: string }[] = [
  // The v2.1 contract: an inventory batch's id is an integer (the usageId POST /inventory/refund
  // takes); a bundle assignment's id (and every other id) a string.
  { field: 'id', operation: 'getInventory' },
  // spec24/25: GET /esims/{iccid} gives firstInstalledDateTime in milliseconds (an integer), the
  // install data of GET /esims/assignments (eSIMDetailsInstallResponse) as a date-time.
  { field: 'firstInstalledDateTime', operation: 'getInstallData' },
  // spec25, GET /catalogue/prices: each price a string and each country {iso, name}, where the
  // catalogue's price is a number and a country elsewhere an ISO code.
  { field: 'price', operation: 'listConsumptionPrices' },
  { field: 'country', operation: 'listConsumptionPrices' },
];

const allowed = (field: string, operation: string): boolean =>
  TWO_TYPES_IN_THE_REFERENCE.some((a) => a.field === field && a.operation === operation);

/** Field name -> JSON type -> where it was seen. */
type Seen = Map<string, Map<string, Set<string>>>;

function note(seen: Seen, field: string, type: string, where: string): void {
  let types = seen.get(field);
  if (types === undefined) seen.set(field, (types = new Map()));
  let places = types.get(type);
  if (places === undefined) types.set(type, (places = new Set()));
  places.add(where);
}

/** Every field seen with more than one type, with where each type was seen. */
function conflicts(seen: Seen): string[] {
  const out: string[] = [];
  for (const [field, types] of seen) {
    if (types.size < 2) continue;
    const list = [...types].map(([type, places]) => `${type} in ${[...places].join(', ')}`);
    out.push(`${field}: ${list.join('; ')}`);
  }
  return out;
}

// --- the documents

type Json = Record<string, unknown>;

/** A schema's JSON type (integer is a JSON number); a union's types joined. */
function typeOf(schema: Json, refs: (s: Json) => Json): string {
  const s = refs(schema);
  const branches = (s['anyOf'] ?? s['oneOf']) as Json[] | undefined;
  if (branches !== undefined) return branches.map((b) => typeOf(b, refs)).join('|');
  const type = s['type'] ?? (s['properties'] === undefined ? 'unknown' : 'object');
  const named = type === 'integer' ? 'number' : String(type);
  return s['nullable'] === true ? `${named}|null` : named;
}

function walkSchema(
  schema: unknown,
  where: { operation: string; version: string },
  refs: (s: Json) => Json,
  seen: { types: Seen; money: Seen },
): void {
  if (typeof schema !== 'object' || schema === null) return;
  const s = refs(schema as Json);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const branch of (s[key] as unknown[] | undefined) ?? [])
      walkSchema(branch, where, refs, seen);
  }
  walkSchema(s['items'], where, refs, seen);
  for (const [field, property] of Object.entries((s['properties'] as Json | undefined) ?? {})) {
    const p = refs(property as Json);
    if (!allowed(field, where.operation)) {
      note(seen.types, field, typeOf(p, refs), where.operation);
      // Money says its unit in its description: one type and one unit per version.
      const unit = /\b(minor|major) units?\b/i.exec(String(p['description'] ?? ''))?.[1];
      if (unit !== undefined) {
        note(
          seen.money,
          'money',
          `${typeOf(p, refs)} in ${unit} units`,
          `${where.operation}.${field}`,
        );
      }
    }
    walkSchema(p, where, refs, seen);
  }
}

async function documentOf(t: TestApp, prefix: string): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: `${prefix}/openapi.json` });
  assert.equal(res.statusCode, 200);
  return res.json<Json>();
}

describe('one type per field in each version’s document', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  for (const version of VERSIONS) {
    it(`v${version.name}: a field and money have one type across its answers`, async () => {
      const document = await documentOf(t, version.prefix);
      const schemas = ((document['components'] as Json | undefined)?.['schemas'] ?? {}) as Json;
      const refs = (s: Json): Json => {
        const ref = s['$ref'];
        if (typeof ref !== 'string') return s;
        return (schemas[ref.split('/').pop() ?? ''] ?? {}) as Json;
      };
      const seen = { types: new Map(), money: new Map() } as { types: Seen; money: Seen };
      for (const [path, operations] of Object.entries(document['paths'] as Json)) {
        // The version's own routes (v2.1's document also shows the platform's and the simulator's).
        if (path !== version.prefix && !path.startsWith(`${version.prefix}/`)) continue;
        for (const operation of Object.values(operations as Json)) {
          const op = operation as { operationId?: string; responses?: Json };
          const where = { operation: op.operationId ?? '', version: version.name };
          for (const [status, response] of Object.entries(op.responses ?? {})) {
            if (!status.startsWith('2')) continue;
            const content = ((response as Json)['content'] ?? {}) as Json;
            walkSchema(
              (content['application/json'] as Json | undefined)?.['schema'],
              where,
              refs,
              seen,
            );
          }
        }
      }
      assert.deepEqual(
        { fields: conflicts(seen.types), money: conflicts(seen.money) },
        {
          fields: [],
          money: [],
        },
      );
    });
  }
});

// --- real answers

function walkValue(value: unknown, operation: string, seen: Seen): void {
  if (Array.isArray(value)) {
    for (const item of value) walkValue(item, operation, seen);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [field, item] of Object.entries(value)) {
    const type = item === null ? 'null' : Array.isArray(item) ? 'array' : typeof item;
    if (!allowed(field, operation)) note(seen, field, type, operation);
    walkValue(item, operation, seen);
  }
}

for (const kind of DATABASES) {
  describe(`one type per field in each version’s answers [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let poor: TestOrg;
    let installed: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 1_000_000, groups: ['Standard eSIM Bundles'] });
      poor = await t.createOrg({ balance: 0, groups: ['Standard eSIM Bundles'] });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      [installed = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await sim(t, 'POST', `/_sim/esims/${installed}/install`, {});
    });
    after(() => t.close());

    for (const version of VERSIONS) {
      it(`v${version.name}: a field has one type across the answers of every route`, async () => {
        const seen: Seen = new Map();
        const p = version.prefix;
        const later = version.name !== '2.1';
        const call = async (operation: string, method: string, url: string, payload?: object) => {
          const res = await t.request(operation === 'refusal' ? poor.apiKey : org.apiKey, {
            method: method as 'GET',
            url: `${p}${url}`,
            ...(payload === undefined ? {} : { payload }),
            headers: { accept: 'application/json' },
          });
          assert.ok(res.statusCode < 300 || operation === 'refusal', `${url}: ${res.body}`);
          const body = res.json<unknown>();
          walkValue(body, operation, seen);
          return body as Json;
        };
        const line = (quantity: number) => [{ type: 'bundle', item: FR_1MB.name, quantity }];
        await call('getOrganisation', 'GET', '/organisation');
        await call('listCatalogue', 'GET', '/catalogue?perPage=2');
        await call('getCatalogueBundle', 'GET', `/catalogue/bundle/${FR_1MB.name}`);
        await call('placeOrder', 'POST', '/orders', { type: 'validate', order: line(1) });
        const placed = await call('placeOrder', 'POST', '/orders', {
          type: 'transaction',
          assign: true,
          order: line(1),
        });
        const reference = String(placed['orderReference']);
        const fresh = (placed['order'] as { iccids: string[] }[])[0]?.iccids[0] ?? '';
        await call('placeOrder', 'POST', '/orders', { type: 'transaction', order: line(2) });
        await call('getOrder', 'GET', `/orders/${reference}`);
        await call('listOrders', 'GET', '/orders?perPage=3');
        const inventory = await call('getInventory', 'GET', '/inventory');
        const [batch] = (
          inventory['bundles'] as { available: { id: number; remaining: number }[] }[]
        )
          .flatMap((b) => b.available)
          .filter((a) => a.remaining > 0);
        await call('refundInventory', 'POST', '/inventory/refund', {
          usageId: batch?.id,
          quantity: 1,
        });
        const amount = version.name >= '2.4' ? '10.00' : '1000';
        await call('topUpBalance', 'POST', `/organisation/balance?amount=${amount}`);
        await call('listEsims', 'GET', '/esims?perPage=5');
        await call('getEsim', 'GET', `/esims/${installed}?additionalFields=appleInstallUrl`);
        await call('getEsim', 'GET', `/esims/${fresh}`);
        await call('getEsimHistory', 'GET', `/esims/${installed}/history`);
        await call('listEsimBundles', 'GET', `/esims/${fresh}/bundles`);
        const bundle = await call('getEsimBundle', 'GET', `/esims/${fresh}/bundles/${FR_1MB.name}`);
        const id = (bundle['assignments'] as { id: string }[])[0]?.id ?? '';
        const revokes = `/esims/${fresh}/bundles/${FR_1MB.name}`;
        await call('revokeBundleByName', 'DELETE', `${revokes}?type=validate`);
        await call('revokeAssignment', 'DELETE', `${revokes}/assignments/${id}?type=validate`);
        if (later) {
          await call('checkEsimCompatibility', 'GET', `/esims/${fresh}/compatible/${FR_1MB.name}`);
          await call('getInstallData', 'GET', `/esims/assignments?reference=${reference}`);
        }
        await call('refusal', 'POST', '/orders', { type: 'transaction', order: line(1) });
        assert.deepEqual(conflicts(seen), []);
      });
    }
  });
}
