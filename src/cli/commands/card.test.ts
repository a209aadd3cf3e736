import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../../../test/harness.js';
import type { TestApp } from '../../../test/harness.js';
import type { FileBackedApp } from '../../../test/fixtures/orders.js';
import { runCli, startFileBackedApp } from '../../../test/fixtures/orders.js';

// The CLI side of payments: simulator organisations get a success test card unless --no-card,
// and `esim org card` saves another one (as a token: the number is never stored).

for (const kind of DATABASES) {
  describe(`esim org card and the simulator test card [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
    });
    after(() => f.close());

    const create = async (...extra: string[]) => {
      const res = await runCli(['org', 'create', '--name', 'Card Co', '--json', ...extra], f.env);
      assert.equal(res.code, 0, res.err);
      return JSON.parse(res.out) as { id: string; apiKey: string; notes: string[] };
    };
    const topUp = (apiKey: string, amount: number) =>
      t.request(apiKey, { method: 'POST', url: `/v2.1/organisation/balance?amount=${amount}` });

    it('org create saves a success test card, so top-up works at once', async () => {
      const org = await create();
      assert.ok(
        org.notes.some((n) => /Visa ending 4242/.test(n)),
        JSON.stringify(org.notes),
      );
      const res = await topUp(org.apiKey, 1000);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().balance, 1000);
    });

    it('--no-card leaves the organisation without a card', async () => {
      const org = await create('--no-card');
      assert.deepEqual(org.notes, []);
      const res = await topUp(org.apiKey, 1000);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'no_card');
    });

    it('org card saves another card that top-up then charges', async () => {
      const org = await create();
      const saved = await runCli(
        ['org', 'card', org.id, '--number', '4000 0000 0000 0002', '--exp', '11/40'],
        f.env,
      );
      assert.equal(saved.code, 0, saved.err);
      assert.match(saved.out, /Visa ending 0002, expires 11\/40/);
      const declined = await topUp(org.apiKey, 1000);
      assert.equal(declined.statusCode, 400);
      assert.equal(declined.json().code, 'card_declined');

      const json = await runCli(
        ['org', 'card', org.id, '--number', '5555555555554444', '--json'],
        f.env,
      );
      assert.equal(json.code, 0, json.err);
      assert.equal(JSON.parse(json.out).brand, 'Mastercard');
      assert.equal((await topUp(org.apiKey, 1000)).statusCode, 200);

      const rows = await t.deps.store.db
        .selectFrom('payment_cards')
        .selectAll()
        .where('organisation_id', '=', org.id)
        .execute();
      assert.equal(rows.length, 3);
      for (const row of rows) {
        assert.ok(!JSON.stringify(row).includes('5555555555554444'));
        assert.ok(!JSON.stringify(row).includes('4000000000000002'));
      }
    });

    it('refuses numbers that are not test cards, bad expiries and unknown organisations', async () => {
      const org = await create();
      const cases: [string[], RegExp][] = [
        [['--number', '4242424242424241'], /not a valid card number/],
        [['--number', '4111111111111111'], /not a test card/],
        [['--number', '4242424242424242', '--exp', '13/30'], /month must be 1 to 12/],
        [['--number', '4242424242424242', '--exp', '01/20'], /in the past/],
        [['--number', '4242424242424242', '--exp', 'soon'], /MM\/YY/],
      ];
      for (const [args, message] of cases) {
        const res = await runCli(['org', 'card', org.id, ...args], f.env);
        assert.equal(res.code, 1, args.join(' '));
        assert.match(res.err, message);
      }
      const unknown = await runCli(['org', 'card', 'nope', '--number', '4242424242424242'], f.env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /organisation nope not found/);
      const usage = await runCli(['org', 'card', org.id], f.env);
      assert.equal(usage.code, 2);
    });
  });
}
