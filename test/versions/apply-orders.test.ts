import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeferredRequests } from '../../src/domain/deferred/process.js';
import { FR_1MB, FR_2MB, buy, getJson, inventoryUnits, seedTestBundles } from '../esim-fixtures.js';
import { runCli, startFileBackedApp } from '../fixtures/orders.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { DATABASES } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// An apply on v2.2 and later is also an order (type bundleAssignment, nothing charged: the units
// were paid when bought); `bundles[]` applies several bundles at once; v2.4 accepts
// `allowReassign`; the deprecated POST /esims/{iccid}/bundles is the same apply.

interface OrderLine {
  type: string;
  item: string;
  quantity: number;
  subTotal: number;
  pricePerUnit: number;
  iccids?: string[];
  esims?: { iccid: string }[];
}
interface Order {
  orderReference: string;
  total: number;
  status: string;
  assigned: boolean;
  order: OrderLine[];
}
interface Applied {
  applyReference: string;
  esims: { iccid: string; bundle: string }[];
}

for (const kind of DATABASES) {
  describe(`applies recorded as orders, bundles[], the deprecated apply route [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await seedTestBundles(t);
    });
    after(() => f.close());

    const apply = (org: TestOrg, version: string, payload: object, url = '/esims/apply') =>
      t.request(org.apiKey, { method: 'POST', url: `/v${version}${url}`, payload });
    const applied = async (org: TestOrg, version: string, payload: object, url?: string) => {
      const res = await apply(org, version, payload, url);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<Applied>();
    };
    const balanceOf = async (org: TestOrg): Promise<number> => {
      const body = (await getJson(t, org, '/v2.1/organisation')) as {
        organisations: { balance: number }[];
      };
      return body.organisations[0]?.balance ?? NaN;
    };

    it('v2.2: the apply is an order of bundleAssignment lines, listed and read by its reference, charged once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const bought = await buy(t, org, FR_1MB.name, { quantity: 2, assign: false });
      const a = await applied(org, '2.2', { name: FR_1MB.name, repeat: 2 });
      const ref = a.applyReference;
      const iccid = a.esims[0]?.iccid ?? '';
      const order = (await getJson(t, org, `/v2.2/orders/${ref}`)) as Order & {
        currency: string;
        createDate: string;
        statusMessage: string;
      };
      assert.deepEqual(
        order.order.map((l) => [l.type, l.item, l.quantity, l.subTotal, l.pricePerUnit, l.iccids]),
        [
          ['bundleAssignment', `${ref}-0`, 0, 0, 0, [iccid]],
          ['bundleAssignment', `${ref}-1`, 0, 0, 0, [iccid]],
        ],
      );
      assert.equal(order.total, 0);
      assert.equal(order.status, 'completed');
      assert.equal(order.assigned, true);
      assert.equal(order.orderReference, ref);
      // Newest first, after the purchase it drew from.
      const list = (await getJson(t, org, '/v2.2/orders')) as { orders: Order[] };
      assert.deepEqual(
        list.orders.map((o) => o.orderReference),
        [ref, bought.orderReference],
      );
      // v2.4: money in major units, the line's eSIM.
      const v24 = (await getJson(t, org, `/v2.4/orders/${ref}`)) as Order;
      assert.equal(v24.total, 0);
      assert.deepEqual(
        v24.order[0]?.esims?.map((e) => e.iccid),
        [iccid],
      );
      // Charged once: the purchase; one order entry in the journal, and the books balance.
      assert.equal(await balanceOf(org), 10_000 - 200);
      const shown = await runCli(['ledger', 'show', org.id, '--json'], f.env);
      assert.equal(shown.code, 0, shown.err);
      const entries = JSON.parse(shown.out) as { kind: string; reference: string }[];
      assert.deepEqual(
        entries.filter((e) => e.kind === 'order').map((e) => e.reference),
        [bought.orderReference],
      );
      const verified = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verified.code, 0, verified.out + verified.err);
    });

    it('v2.1 applies are not orders; another organisation reads none of them', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const other = await t.createOrg({ balance: 10_000 });
      await buy(t, org, FR_1MB.name, { quantity: 2, assign: false });
      const old = await applied(org, '2.1', { name: FR_1MB.name });
      for (const v of ['2.1', '2.5']) {
        const res = await t.request(org.apiKey, { url: `/v${v}/orders/${old.applyReference}` });
        assert.equal(res.statusCode, 404, `v${v}`);
      }
      const fresh = await applied(org, '2.5', { name: FR_1MB.name });
      const theirs = await t.request(other.apiKey, {
        url: `/v2.5/orders/${fresh.applyReference}`,
      });
      assert.equal(theirs.statusCode, 404);
      const list = (await getJson(t, other, '/v2.5/orders')) as { orders: Order[] };
      assert.deepEqual(list.orders, []);
    });

    it('bundles[]: one new eSIM per entry, or all on the iccid given; one reference, all or nothing', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(t, org, FR_1MB.name, { quantity: 3, assign: false });
      await buy(t, org, FR_2MB.name, { quantity: 1, assign: false });
      const two = await applied(org, '2.2', {
        bundles: [{ name: FR_1MB.name, repeat: 2 }, { name: FR_2MB.name }],
      });
      assert.deepEqual(
        two.esims.map((e) => e.bundle),
        [FR_1MB.name, FR_1MB.name, FR_2MB.name],
      );
      const [first, , third] = two.esims;
      assert.equal(two.esims[1]?.iccid, first?.iccid);
      assert.notEqual(third?.iccid, first?.iccid);
      const order = (await getJson(t, org, `/v2.3/orders/${two.applyReference}`)) as Order;
      assert.deepEqual(
        order.order.map((l) => l.iccids),
        two.esims.map((e) => [e.iccid]),
      );

      // Short of inventory for the second entry: a 400, and the first entry's unit stays.
      const short = await apply(org, '2.2', {
        bundles: [{ name: FR_1MB.name }, { name: FR_2MB.name }],
      });
      assert.equal(short.statusCode, 400, short.body);
      assert.equal(short.json<{ code: string }>().code, 'insufficient_inventory');
      assert.equal(await inventoryUnits(t, org, FR_1MB.name), 1);

      await buy(t, org, FR_2MB.name, { quantity: 1, assign: false });
      const onto = await applied(org, '2.2', {
        iccid: third?.iccid,
        bundles: [{ name: FR_1MB.name }, { name: FR_2MB.name }],
      });
      assert.deepEqual(
        onto.esims.map((e) => e.iccid),
        [third?.iccid, third?.iccid],
      );
    });

    it('name and bundles together, or neither, is a 400 naming the fields', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const both = await apply(org, '2.2', { name: FR_1MB.name, bundles: [{ name: FR_1MB.name }] });
      assert.equal(both.statusCode, 400);
      assert.match(both.json<{ message: string }>().message, /name.*bundles/);
      const neither = await apply(org, '2.2', { repeat: 1 });
      assert.equal(neither.statusCode, 400);
      assert.match(neither.json<{ message: string }>().message, /name is required/);
      const v21 = await apply(org, '2.1', { bundles: [{ name: FR_1MB.name }] });
      assert.equal(v21.statusCode, 400, 'v2.1 has no bundles[]: name is missing');
    });

    it('v2.4: allowReassign on the apply and on each entry is accepted', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(t, org, FR_1MB.name, { quantity: 2, assign: false });
      await applied(org, '2.4', { name: FR_1MB.name, allowReassign: true });
      const b = await applied(org, '2.4', {
        bundles: [{ name: FR_1MB.name, allowReassign: true }],
      });
      assert.equal(b.esims.length, 1);
      const wrong = await apply(org, '2.4', { name: FR_1MB.name, allowReassign: 'yes' });
      assert.equal(wrong.statusCode, 400);
    });

    it('the deprecated POST /esims/{iccid}/bundles applies to that eSIM on v2.2+, and is an order', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const other = await t.createOrg({ balance: 10_000 });
      const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
      await buy(t, org, FR_1MB.name, { quantity: 2, assign: false });
      const url = `/esims/${iccid ?? ''}/bundles`;
      const a = await applied(org, '2.5', { name: FR_1MB.name, startTime: '', repeat: 2 }, url);
      assert.deepEqual(
        a.esims.map((e) => e.iccid),
        [iccid, iccid],
      );
      const order = (await getJson(t, org, `/v2.5/orders/${a.applyReference}`)) as Order;
      assert.equal(order.order.length, 2);
      assert.equal((await apply(org, '2.1', { name: FR_1MB.name }, url)).statusCode, 404);
      assert.equal((await apply(other, '2.2', { name: FR_1MB.name }, url)).statusCode, 404);
      const bad = await apply(org, '2.2', { name: FR_1MB.name }, '/esims/123/bundles');
      assert.equal(bad.statusCode, 400);
      const empty = await apply(org, '2.2', { name: FR_1MB.name }, url);
      assert.equal(empty.json<{ code: string }>().code, 'insufficient_inventory');
    });

    it('more than five bundles: 503 naming the reference, polled through GET /orders', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
      await buy(t, org, FR_1MB.name, { quantity: 7, assign: false });
      const first = await apply(
        org,
        '2.3',
        { name: FR_1MB.name, repeat: 6 },
        `/esims/${iccid ?? ''}/bundles`,
      );
      assert.equal(first.statusCode, 503, first.body);
      assert.equal(first.headers['retry-after'], '2');
      const ref = first.json<{ orderReference: string }>().orderReference;
      const poll = () => t.request(org.apiKey, { url: `/v2.3/orders/${ref}` });
      assert.equal((await poll()).statusCode, 503);
      assert.equal((await runDeferredRequests(t.deps, 'test-worker')).done, 1);
      const done = await poll();
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json<Order>().order.length, 6);
      assert.equal(await inventoryUnits(t, org, FR_1MB.name), 1);
      const many = await apply(org, '2.2', {
        bundles: [{ name: FR_1MB.name }, { name: FR_1MB.name, repeat: 5 }],
      });
      assert.equal(many.statusCode, 503, 'six units over two entries');
    });
  });
}
