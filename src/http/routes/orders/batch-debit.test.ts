import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
} from '../../../../test/fixtures/orders.js';

// Orders of one organisation that arrive together are debited against the funds held for their
// batch, and the balance row is written once before the commit (store/group-commit.ts,
// ledger-repository.ts). Seen from outside: exactly the orders the funds cover succeed, the
// others get the same 400 as a lone order would, the balances are exact to the unit, and every
// debit is journaled with the running balances the ledger check recomputes.

const UNIT = 'test_batch_debit_unit';
const PRICE = 100;
const ORDER = {
  type: 'transaction',
  assign: false,
  order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
};

interface Answer {
  status: number;
  code?: string;
  message?: string;
}

for (const kind of DATABASES) {
  describe(`orders debited once per batch [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await addBundles(t, [fixtureBundle(UNIT, PRICE)]);
    });
    after(() => f.close());

    const place = async (org: TestOrg, payload: object = ORDER): Promise<Answer> => {
      const res = await t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload });
      const body = res.json() as { code?: string; message?: string };
      return { status: res.statusCode, code: body.code, message: body.message };
    };
    const funds = async (org: TestOrg): Promise<{ balance: number; testCredit: number }> => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      const [own] = res.json().organisations as { balance: number; testCredit: number }[];
      assert.ok(own !== undefined);
      return { balance: own.balance, testCredit: own.testCredit };
    };
    const orderEntries = async (org: TestOrg): Promise<number> => {
      const rows = await t.deps.store.db
        .selectFrom('ledger_entries')
        .select('id')
        .where('organisation_id', '=', org.id)
        .where('kind', '=', 'order')
        .execute();
      return rows.length;
    };
    const ledgerVerifies = async (): Promise<void> => {
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
      assert.match(verify.out, /the ledger balances/);
    };
    const refusedForFunds = (answers: readonly Answer[]): number => {
      const refused = answers.filter((a) => a.status !== 200);
      for (const a of refused) {
        assert.equal(a.status, 400, JSON.stringify(a));
        assert.equal(a.code, 'insufficient_balance');
        assert.match(a.message ?? '', /^insufficient balance: /);
      }
      return refused.length;
    };

    it('120 orders at once against funds for 37 and a half: exactly 37 succeed, 50 left', async () => {
      const org = await t.createOrg({ balance: 37 * PRICE + 50 });
      const answers = await Promise.all(Array.from({ length: 120 }, () => place(org)));
      assert.equal(answers.filter((a) => a.status === 200).length, 37);
      assert.equal(refusedForFunds(answers), 83);
      assert.deepEqual(await funds(org), { balance: 50, testCredit: 0 });
      assert.equal(await orderEntries(org), 37);
      await ledgerVerifies();
    });

    it('test credit is spent first, then the balance, across the orders of one batch', async () => {
      // 10.3 orders of test credit, 20 of balance: the 11th order takes the last 30 of test
      // credit and 70 of balance; 30 orders in all, and 30 of balance left.
      const org = await t.createOrg({ balance: 20 * PRICE, testCredit: 10 * PRICE + 30 });
      const answers = await Promise.all(Array.from({ length: 60 }, () => place(org)));
      assert.equal(answers.filter((a) => a.status === 200).length, 30);
      assert.equal(refusedForFunds(answers), 30);
      assert.deepEqual(await funds(org), { balance: 30, testCredit: 0 });
      assert.equal(await orderEntries(org), 30);
      await ledgerVerifies();
    });

    it('orders failing for another reason in the same batch fail alone; the debits stay exact', async () => {
      const org = await t.createOrg({ balance: 25 * PRICE });
      const unknown = {
        ...ORDER,
        order: [{ type: 'bundle', item: 'no_such_bundle', quantity: 1 }],
      };
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => place(org, i % 3 === 2 ? unknown : ORDER)),
      );
      const wrongBundle = answers.filter((_, i) => i % 3 === 2);
      for (const a of wrongBundle) {
        assert.equal(a.status, 400);
        assert.equal(a.code, 'unknown_bundle');
      }
      const valid = answers.filter((_, i) => i % 3 !== 2);
      assert.equal(valid.filter((a) => a.status === 200).length, 25);
      assert.equal(refusedForFunds(valid), 15);
      assert.deepEqual(await funds(org), { balance: 0, testCredit: 0 });
      await ledgerVerifies();
    });

    it('several organisations ordering at once are each debited exactly', async () => {
      const orgs = await Promise.all(
        Array.from({ length: 6 }, (_, i) => t.createOrg({ balance: (i + 2) * PRICE + i })),
      );
      const answers = await Promise.all(
        orgs.flatMap((org) => Array.from({ length: 10 }, () => place(org))),
      );
      for (const [i, org] of orgs.entries()) {
        const own = answers.slice(i * 10, i * 10 + 10);
        assert.equal(own.filter((a) => a.status === 200).length, i + 2);
        assert.equal(refusedForFunds(own), 10 - (i + 2));
        assert.deepEqual(await funds(org), { balance: i, testCredit: 0 });
      }
      await ledgerVerifies();
    });
  });
}
