import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { parseExposition } from '../prometheus-text.js';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { HttpSession, PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import type { ApiCaller } from './shop-fixtures.js';
import { GB_1GB, balanceOf, buyOntoNewEsims, orderCount } from './shop-fixtures.js';

// Orders: every role reads the list and an order; only an Admin buys, through the same use case
// and rules as POST /v2.1/orders, and a confirmed order is placed once however often it is sent.

type BuyFields = Record<string, string>;

/** Reviews the order and returns the key its confirm form carries. */
/** The key with its character at `at` changed. */
function altered(key: string, at: number): string {
  assert.match(key.slice(0, 3 + 16), /^v1:[A-Za-z0-9+/]{16}$/, 'a sealed key: v1, then its nonce');
  return key.slice(0, at) + (key[at] === 'A' ? 'B' : 'A') + key.slice(at + 1);
}

async function reviewed(session: HttpSession, fields: BuyFields): Promise<string> {
  const review = await session.post('/portal/orders/review', fields);
  const text = await review.text();
  assert.equal(review.status, 200, text);
  const key = /name="key" value="([^"]+)"/.exec(text)?.[1];
  assert.ok(key !== undefined, 'the review page carries its key');
  return key;
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Orders, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Orders (${kind})`, { ...browserOnly, concurrency: 1 }, () => {
      let server: PortalServer;
      let caller: ApiCaller;
      // axe-core reads the page's markup, which is the same whatever database the server reads:
      // it runs on SQLite (in Chromium, the dearest step of these tests), not again on PostgreSQL.
      const checkAccessible = (page: Page, label: string) =>
        kind === 'sqlite' ? assertAccessible(page, label) : Promise.resolve();

      before(async () => {
        ({ portal: server } = await openPortalWithBrowser(kind));
        caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
      });
      after(() => closePortal(server));

      test('an Admin buys bundles onto new eSIMs: validate, total, confirm', async () => {
        const before = await balanceOf(caller);
        const page = await portalPage(server);
        await signIn(page, 'Admin', {
          to: `/portal/catalogue?description=${encodeURIComponent('1GB, 7 Days, United Kingdom')}`,
        });
        await page.getByRole('link', { name: `Buy ${GB_1GB}` }).click();
        assert.equal(await page.getByLabel('Bundle').inputValue(), GB_1GB);
        await page.getByLabel('New eSIMs').check();
        await page.getByLabel('Quantity').fill('2');
        await page.getByRole('button', { name: 'Review order' }).click();
        const confirm = page.getByRole('button', { name: /^Confirm and pay \$/ });
        const label = await confirm.textContent();
        const total = /\$([\d,.]+)/.exec(label ?? '')?.[1] ?? '';
        await checkAccessible(page, 'order review');
        assert.equal(await orderCount(caller), 0, 'reviewing places nothing');
        await confirm.click();
        await page.waitForURL(/\/portal\/orders\/[0-9a-f-]{36}$/);
        assert.match(await page.locator('.flash').innerText(), /Order .* placed/);
        assert.equal(await page.locator('a[href^="/portal/esims/89"]').count(), 2);
        const paid = Math.round(Number(total.replace(/,/g, '')) * 100);
        assert.ok(paid > 0);
        assert.equal(await balanceOf(caller), before - paid, 'the total shown is what was taken');
        await checkAccessible(page, 'order detail');
        await page.goto('/portal/orders');
        assert.equal(await page.locator('tbody tr').count(), 1);
        await checkAccessible(page, 'orders list');
      });

      test('a refused order shows the rule next to its field and changes nothing', async () => {
        const session = await signInHttp(server.baseUrl, 'Admin');
        const count = await orderCount(caller);
        const fields = { item: GB_1GB, quantity: 'x', destination: 'inventory', iccids: '' };
        const badQuantity = await session.post('/portal/orders/review', fields);
        assert.equal(badQuantity.status, 400);
        assert.match(
          await badQuantity.text(),
          /id="quantity-error"[^>]*>Quantity must be a whole number/,
        );
        const unknown = await session.post('/portal/orders/review', {
          ...fields,
          item: 'no_such_bundle',
          quantity: '1',
        });
        assert.equal(unknown.status, 400);
        assert.match(
          await unknown.text(),
          /id="item-error"[^>]*>Bundle &quot;no_such_bundle&quot;/,
        );
        const broke = await session.post('/portal/orders/review', {
          ...fields,
          quantity: '100000',
        });
        assert.equal(broke.status, 400);
        assert.match(await broke.text(), /id="quantity-error"[^>]*>Quantity must be at most/);
        const poor = await session.post('/portal/orders/review', { ...fields, quantity: '1000' });
        assert.equal(poor.status, 400);
        // Money as money, not minor units.
        assert.match(
          await poor.text(),
          /Not enough funds: this order costs \$[\d,]+\.\d\d and \$[\d,]+\.\d\d is available/,
        );
        const iccids = await session.post('/portal/orders/review', {
          ...fields,
          destination: 'existing',
          iccids: '8900000000000000000',
        });
        assert.equal(iccids.status, 400);
        assert.match(await iccids.text(), /id="iccids-error"/);
        assert.equal(await orderCount(caller), count);
      });

      test('a confirmation sent twice, even at once, places one order and charges once', async () => {
        const session = await signInHttp(server.baseUrl, 'Admin');
        const fields = { item: GB_1GB, quantity: '2', destination: 'inventory', iccids: '' };
        const review = await session.post('/portal/orders/review', fields);
        assert.equal(review.status, 200);
        const key = /name="key" value="([^"]+)"/.exec(await review.text())?.[1] ?? '';
        const count = await orderCount(caller);
        const balance = await balanceOf(caller);
        const confirm = { ...fields, key };
        const [first, second] = await Promise.all([
          session.post('/portal/orders', confirm),
          session.post('/portal/orders', confirm),
        ]);
        const again = await session.post('/portal/orders', confirm);
        for (const answer of [first, second, again]) assert.equal(answer.status, 303);
        const location = first.headers.get('location');
        assert.match(location ?? '', /^\/portal\/orders\/[0-9a-f-]{36}$/);
        assert.equal(second.headers.get('location'), location);
        assert.equal(again.headers.get('location'), location);
        assert.equal(await orderCount(caller), count + 1);
        const order = await session.get(location ?? '');
        const total = /<dt>Total<\/dt>\s*<dd>\$([\d,.]+)<\/dd>/.exec(await order.text())?.[1] ?? '';
        assert.equal(await balanceOf(caller), balance - Math.round(Number(total) * 100));
        const unreviewed = await session.post('/portal/orders', { ...fields, key: 'not-a-key' });
        assert.equal(unreviewed.status, 400);
        assert.equal(await orderCount(caller), count + 1);
      });

      test('a confirmation whose key did not come from the review of that order places nothing', async () => {
        const session = await signInHttp(server.baseUrl, 'Admin');
        const other = await signInHttp(server.baseUrl, 'Admin', 'other');
        const fields = { item: GB_1GB, quantity: '1', destination: 'inventory', iccids: '' };
        const count = await orderCount(caller);
        const balance = await balanceOf(caller);
        const key = await reviewed(session, fields);
        const forged = [
          // A well-formed id that no review issued.
          '3f1c2a9e-8d7b-4c6a-9e5f-1a2b3c4d5e6f',
          // A sealed key altered by one character: one of its nonce's, each of which carries six
          // bits (a last character before `=` padding may differ in unused bits and decode alike).
          altered(key, 5),
          // Another organisation's review of the same order.
          await reviewed(other, fields),
        ];
        for (const bad of forged) {
          const answer = await session.post('/portal/orders', { ...fields, key: bad });
          assert.equal(answer.status, 400);
          assert.match(await answer.text(), /the order was not reviewed/i);
        }
        // The reviewed key, with another quantity than the one reviewed.
        const changed = await session.post('/portal/orders', { ...fields, quantity: '3', key });
        assert.equal(changed.status, 400);
        assert.match(await changed.text(), /the order changed after its review/i);
        assert.equal(await orderCount(caller), count);
        assert.equal(await balanceOf(caller), balance);
        const placed = await session.post('/portal/orders', { ...fields, key });
        assert.equal(placed.status, 303);
        assert.equal(await orderCount(caller), count + 1);
      });

      test('a confirmed order is committed by the group writer, journaled, and placed once', async () => {
        // Orders carried by the group writer's batches, as /metrics counts them (the API's orders
        // go the same way: store/group-commit.ts).
        const batchedWrites = async () =>
          parseExposition(await (await fetch(`${server.baseUrl}/metrics`)).text()).value(
            'esim_group_commit_batch_writes_sum',
          );
        const session = await signInHttp(server.baseUrl, 'Admin');
        const fields = { item: GB_1GB, quantity: '1', destination: 'inventory', iccids: '' };
        const review = await session.post('/portal/orders/review', fields);
        const key = /name="key" value="([^"]+)"/.exec(await review.text())?.[1] ?? '';
        const count = await orderCount(caller);
        const balance = await balanceOf(caller);
        const batched = await batchedWrites();
        const placed = await session.post('/portal/orders', { ...fields, key });
        assert.equal(placed.status, 303);
        // At least one write more: a batch the writer retried after a busy database counts its
        // writes again, so a loaded machine may show more than one for this one order.
        assert.ok(
          (await batchedWrites()) >= batched + 1,
          'the order went through the group writer',
        );
        const reference = /[0-9a-f-]{36}$/.exec(placed.headers.get('location') ?? '')?.[0] ?? '';
        assert.equal(await orderCount(caller), count + 1);
        const paid = balance - (await balanceOf(caller));
        assert.ok(paid > 0);
        // Journaled: one ledger entry of the order, for what it cost.
        const csv = await (await session.get('/portal/billing/ledger.csv')).text();
        const entries = csv.split('\n').filter((line) => line.includes(reference));
        assert.equal(entries.length, 1, csv);
        assert.match(entries[0] ?? '', new RegExp(`,order,.*,-${(paid / 100).toFixed(2)},`));

        // The same confirmation again answers the same order and buys nothing more.
        const again = await session.post('/portal/orders', { ...fields, key });
        assert.equal(again.status, 303);
        assert.equal(again.headers.get('location'), placed.headers.get('location'));
        assert.equal(await orderCount(caller), count + 1);
        assert.equal(await balanceOf(caller), balance - paid);
      });

      test('an order onto existing eSIMs puts one unit on each listed', async () => {
        const bought = await buyOntoNewEsims(caller, GB_1GB, 2);
        const session = await signInHttp(server.baseUrl, 'Admin');
        const fields = {
          item: GB_1GB,
          quantity: '',
          destination: 'existing',
          iccids: bought.iccids.join('\n'),
        };
        const key = await reviewed(session, fields);
        const placed = await session.post('/portal/orders', { ...fields, key });
        assert.equal(placed.status, 303);
        const detail = await session.get(placed.headers.get('location') ?? '');
        const text = await detail.text();
        for (const iccid of bought.iccids) assert.ok(text.includes(`/portal/esims/${iccid}`));
      });

      test('every role reads orders; only an Admin may buy', async () => {
        const { reference } = await buyOntoNewEsims(caller, GB_1GB, 1);
        for (const role of ROLES) {
          const session = await signInHttp(server.baseUrl, role);
          const list = await session.get('/portal/orders');
          assert.equal(list.status, 200, role);
          const listText = await list.text();
          assert.ok(listText.includes(reference), role);
          assert.equal((await session.get(`/portal/orders/${reference}`)).status, 200, role);
          const admin = role === 'Admin';
          assert.equal(listText.includes('href="/portal/orders/new"'), admin, `${role} buy link`);
          assert.equal((await session.get('/portal/orders/new')).status, admin ? 200 : 403, role);
          const count = await orderCount(caller);
          const fields = { item: GB_1GB, quantity: '1', destination: 'inventory', iccids: '' };
          const key = admin ? await reviewed(session, fields) : 'never-reviewed';
          const buy = await session.post('/portal/orders', { ...fields, key });
          assert.equal(buy.status, admin ? 303 : 403, role);
          assert.equal(await orderCount(caller), count + (admin ? 1 : 0), role);
        }
      });

      test("another organisation's order is not found", async () => {
        const other = { baseUrl: server.baseUrl, apiKey: server.otherOrganisationApiKey };
        const { reference } = await buyOntoNewEsims(other, GB_1GB, 1);
        const session = await signInHttp(server.baseUrl, 'Admin');
        assert.equal((await session.get(`/portal/orders/${reference}`)).status, 404);
        assert.equal((await session.get('/portal/orders/not-an-order')).status, 404);
      });

      test('a buy without the CSRF token is refused', async () => {
        const session = await signInHttp(server.baseUrl, 'Admin');
        const count = await orderCount(caller);
        const fields = { item: GB_1GB, quantity: '1', destination: 'inventory', iccids: '' };
        const refused = await session.post('/portal/orders', fields, { csrf: false });
        assert.equal(refused.status, 403);
        assert.equal(await orderCount(caller), count);
      });
    });
  }
});
