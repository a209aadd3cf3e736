import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// PUT /_sim/snapshot holds every value to the rules the API applies before it writes anything:
// a balance is whole minor units in range and what the ledger sums to, an allow-list and groups
// are what the API would store, every column of every table has its type; a bad value is a 400
// naming it, and the state is what it was. An organisation the import removes stops
// authenticating at once (403), however recently its key was used.

const MEDIA = 'application/vnd.esim.snapshot+json';

type Row = Record<string, unknown>;
interface Snapshot {
  apiKeys: Record<string, string>;
  tables: Record<string, Row[]>;
}

for (const kind of DATABASES) {
  describe(`snapshot import checks everything first [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let saved: Snapshot;

    before(async () => {
      // A long key cache: a removed organisation must not live on in it. Without the built-in
      // catalogue (thousands of rows), each import here is a few kilobytes, not megabytes.
      t = await startTestApp(kind, { apiKeyCacheMs: 600_000, catalogueSeed: false });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000 });
      await buy(t, org, FR_1MB.name);
      saved = (await t.app.inject({ url: '/_sim/snapshot' })).json<Snapshot>();
    });
    after(() => t.close());

    const put = (snapshot: unknown) =>
      t.app.inject({
        method: 'PUT',
        url: '/_sim/snapshot',
        headers: { 'content-type': MEDIA },
        payload: JSON.stringify(snapshot),
      });

    /** The saved snapshot with one value of one row changed. */
    const changed = (table: string, column: string, value: unknown, index = 0): Snapshot => {
      const copy = structuredClone(saved);
      const rows = copy.tables[table];
      assert.ok(rows?.[index] !== undefined, `the snapshot has ${table}[${index}]`);
      rows[index] = { ...rows[index], [column]: value };
      return copy;
    };

    const state = async (): Promise<string> => {
      const now = (await t.app.inject({ url: '/_sim/snapshot' })).json<Snapshot>();
      const { organisations, ledger_entries, esims, assignments, users } = now.tables;
      return JSON.stringify({ organisations, ledger_entries, esims, assignments, users });
    };

    it('refuses bad values with a 400 naming the field, and changes nothing', async () => {
      const before = await state();
      const cases: [Snapshot, RegExp][] = [
        [changed('organisations', 'balance', 'abc'), /tables\.organisations\[0\]\.balance: /],
        [changed('organisations', 'balance', 1e300), /tables\.organisations\[0\]\.balance: /],
        [changed('organisations', 'balance', -5), /tables\.organisations\[0\]\.balance: /],
        [changed('organisations', 'balance', 2.5), /tables\.organisations\[0\]\.balance: /],
        // Whole units in range, but not what the ledger sums to.
        [
          changed('organisations', 'balance', 1_000_000),
          /tables\.organisations\[0\]\.balance: the ledger does not hold/,
        ],
        [
          changed('organisations', 'ip_allow_list', 'garbage'),
          /tables\.organisations\[0\]\.ip_allow_list: /,
        ],
        [
          changed('organisations', 'ip_allow_list', '["not an address"]'),
          /tables\.organisations\[0\]\.ip_allow_list: .*not an IP address/,
        ],
        [changed('organisations', 'groups', '[]'), /tables\.organisations\[0\]\.groups: /],
        [changed('organisations', 'groups', '{"a":1}'), /tables\.organisations\[0\]\.groups: /],
        [
          changed('organisations', 'callback_version', 'V9'),
          /tables\.organisations\[0\]\.callback_version: must be one of V2, V3/,
        ],
        [changed('organisations', 'created_at', 'yesterday'), /organisations\[0\]\.created_at: /],
        [changed('esims', 'pin', 'abcd'), /tables\.esims\[0\]\.pin: must be 4 digits/],
        [changed('esims', 'state', 'gone'), /tables\.esims\[0\]\.state: /],
        [changed('assignments', 'state', 'Bogus'), /tables\.assignments\[0\]\.state: /],
        [changed('assignments', 'used_bytes', 'lots'), /tables\.assignments\[0\]\.used_bytes: /],
        [
          changed('ledger_entries', 'balance_delta', 0.5),
          /tables\.ledger_entries\[0\]\.balance_delta: /,
        ],
        [changed('order_items', 'quantity', 0), /tables\.order_items\[0\]\.quantity: /],
        [changed('organisations', 'colour', 'blue'), /organisations\[0\]\.colour: .*no column/],
        [{ ...saved, tables: { ...saved.tables, kysely_migration: [] } }, /kysely_migration: /],
        [{ ...saved, apiKeys: { [org.id]: 'not-a-key' } }, new RegExp(`apiKeys\\.${org.id}: `)],
      ];
      for (const [snapshot, message] of cases) {
        const res = await put(snapshot);
        assert.equal(res.statusCode, 400, `${String(message)}: ${res.body}`);
        assert.match(res.json<{ message: string }>().message, message);
      }
      assert.equal(await state(), before, 'nothing changed');
      const read = await t.request(org.apiKey, { url: '/v2.1/organisation' });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(
        read.json<{ organisations: { balance: number }[] }>().organisations[0]?.balance,
        10_000 - FR_1MB.price,
      );
      const good = await put(saved);
      assert.equal(good.statusCode, 200, good.body);
    });

    it('stops authenticating an organisation the import removes at once (403)', async () => {
      const gone = await t.createOrg({ balance: 500 });
      const seen = await t.request(gone.apiKey, { url: '/v2.1/organisation' });
      assert.equal(seen.statusCode, 200, 'the key is held in memory now');
      const restored = await put(saved);
      assert.equal(restored.statusCode, 200, restored.body);
      for (const url of ['/v2.1/organisation', '/v2.5/esims']) {
        const res = await t.request(gone.apiKey, { url });
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      }
      const order = await t.request(gone.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1 }],
        },
      });
      assert.equal(order.statusCode, 403, order.body);
      assert.equal((await t.request(org.apiKey, { url: '/v2.1/organisation' })).statusCode, 200);
    });
  });
}
