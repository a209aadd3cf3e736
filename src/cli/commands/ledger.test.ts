import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DATABASES } from '../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../test/harness.js';
import type { FileBackedApp } from '../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
} from '../../../test/fixtures/orders.js';
import { addDays } from '../../clock.js';
import { expireTestCredit, grantTestCredit } from '../../domain/money/ledger.js';

const BUNDLE = 'test_ledger_bundle';

for (const kind of DATABASES) {
  describe(`esim ledger [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await addBundles(t, [fixtureBundle(BUNDLE, 300)]);
    });
    after(() => f.close());

    const order = (org: TestOrg, quantity: number) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item: BUNDLE, quantity }] },
      });
    const organisation = async (org: TestOrg) =>
      (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' })).json()
        .organisations[0];
    const grant = (org: TestOrg, amount: number, days: number) =>
      t.deps.store.db.transaction().execute((trx) =>
        grantTestCredit(trx, {
          organisationId: org.id,
          amount,
          expiresAt: addDays(t.clock.now(), days),
          description: 'trial credit',
          at: t.clock.now(),
        }),
      );

    it('show prints the journal newest first; verify passes on untouched books', async () => {
      const org = await t.createOrg({ balance: 1000 });
      assert.equal((await order(org, 2)).statusCode, 200);
      const shown = await runCli(['ledger', 'show', org.id, '--json'], f.env);
      assert.equal(shown.code, 0, shown.err);
      const entries = JSON.parse(shown.out);
      assert.deepEqual(
        entries.map((e: { kind: string; balanceDelta: number; balanceAfter: number }) => [
          e.kind,
          e.balanceDelta,
          e.balanceAfter,
        ]),
        [
          ['order', -600, 400],
          ['opening', 1000, 1000],
        ],
      );
      const text = await runCli(['ledger', 'show', org.id], f.env);
      // Major units, as org list prints them: the header with the currency, the lines without.
      assert.match(text.out, /^Test Org \d+: balance 4\.00 USD, test credit 0\.00 USD$/m);
      assert.match(
        text.out,
        / {2}order +balance -6\.00 -> 4\.00 {2}test credit \+0\.00 -> 0\.00 {2}/,
      );
      const missing = await runCli(['ledger', 'show', 'no-such-org'], f.env);
      assert.equal(missing.code, 1);
      const verify = await runCli(['ledger', 'verify', '--json'], f.env);
      assert.equal(verify.code, 0, verify.err);
      assert.equal(JSON.parse(verify.out).ok, true);
    });

    it('spends unexpired test credit first and never spends expired credit', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await grant(org, 500, 1);
      assert.equal((await order(org, 1)).statusCode, 200);
      let o = await organisation(org);
      assert.equal(o.testCredit, 200);
      assert.equal(o.balance, 1000);
      assert.match(o.testCreditExpiry, /Z$/);

      t.clock.advance(2 * 86_400);
      assert.equal((await order(org, 1)).statusCode, 200);
      o = await organisation(org);
      assert.equal(o.testCredit, 0);
      assert.equal(o.balance, 700);
      assert.equal(o.testCreditExpiry, '');

      // Expired credit does not count towards what an order may cost either.
      const poor = await t.createOrg({ balance: 100 });
      await grant(poor, 500, 1);
      t.clock.advance(2 * 86_400);
      const refused = await order(poor, 1);
      assert.equal(refused.statusCode, 400);
      assert.match(refused.json().message, /only 100 is available/);

      // The sweep writes expired credit off without waiting for an order.
      const idle = await t.createOrg({ balance: 0 });
      await grant(idle, 250, 1);
      t.clock.advance(2 * 86_400);
      assert.ok((await expireTestCredit(t.deps.store.db, t.clock.now())) >= 1);
      assert.equal((await organisation(idle)).testCredit, 0);

      const shown = JSON.parse((await runCli(['ledger', 'show', org.id, '--json'], f.env)).out);
      assert.deepEqual(
        shown.map((e: { kind: string; testCreditDelta: number }) => [e.kind, e.testCreditDelta]),
        [
          ['order', 0],
          ['test_credit_expiry', -200],
          ['order', -300],
          ['test_credit_grant', 500],
          ['opening', 0],
        ],
      );
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });

    it('verify exits 1 and names the organisation when books and journal disagree', async () => {
      const org = await t.createOrg({ balance: 1000 });
      const db = t.deps.store.db;
      await db
        .updateTable('organisations')
        .set({ balance: sql<number>`balance + 5` })
        .where('id', '=', org.id)
        .execute();
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 1);
      assert.match(
        verify.err,
        new RegExp(`${org.id}: balance is 1005 but the journal sums to 1000`),
      );
      assert.match(verify.out, /1 difference/);

      await db
        .updateTable('organisations')
        .set({ balance: sql<number>`balance - 5` })
        .where('id', '=', org.id)
        .execute();
      await db
        .updateTable('ledger_entries')
        .set({ balance_after: 999 })
        .where('organisation_id', '=', org.id)
        .execute();
      const chain = await runCli(['ledger', 'verify'], f.env);
      assert.equal(chain.code, 1);
      assert.match(chain.err, /records balance 999/);
      await db
        .updateTable('ledger_entries')
        .set({ balance_after: 1000 })
        .where('organisation_id', '=', org.id)
        .execute();
      assert.equal((await runCli(['ledger', 'verify'], f.env)).code, 0);
    });
  });
}
