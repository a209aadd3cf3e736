import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runMoneyHousekeeping } from '../../src/domain/money/money-housekeeping.js';
import { DATABASES } from '../harness.js';
import type { TestApp } from '../harness.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { runCli, startFileBackedApp } from '../fixtures/orders.js';

// Key roll-over: `esim org rotate-key` returns a new key at once and keeps the old one working
// for a grace period (24 h unless --grace says otherwise; 0 stops it at once). Checked through
// HTTP with the app's injected clock moved past the grace period. The CLI is another process, so
// the server sees what it changes within API_KEY_CACHE_MS (src/security/key-cache.ts). In
// simulator mode the grace runs on the simulated clock, so `esim sim advance` ends it.

const DAY = 86_400;

for (const kind of DATABASES) {
  describe(`API key roll-over [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let url: string;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => f.close());

    const cli = async (...argv: string[]) => {
      const res = await runCli(argv, f.env);
      assert.equal(res.code, 0, res.err);
      return res.out;
    };
    const create = async () =>
      JSON.parse(await cli('org', 'create', '--name', 'Rolling Co', '--json')) as {
        id: string;
        apiKey: string;
      };
    const rotate = async (id: string, ...extra: string[]) =>
      JSON.parse(await cli('org', 'rotate-key', id, '--json', ...extra)) as {
        apiKey: string;
        previousKeyValidUntil: string;
      };
    const status = async (apiKey: string) =>
      (await t.request(apiKey, { method: 'GET', url: '/v2.1/organisation' })).statusCode;
    const catalogueStatus = async (apiKey: string) =>
      (await t.request(apiKey, { method: 'GET', url: '/v2.1/catalogue' })).statusCode;
    // Through /_sim, so the offset is stored and the CLI's next run sees the same time.
    const advance = async (seconds: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/_sim/clock/advance',
        payload: { seconds },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const show = async (id: string) =>
      JSON.parse(await cli('org', 'show', id, '--json')) as {
        previousKeys: { rotatedAt: string; validUntil: string }[];
      };

    it('keeps the old key valid for 24 h by default, then refuses it with 403', async () => {
      const org = await create();
      const before = t.clock.now().getTime();
      const rotated = await rotate(org.id);
      assert.notEqual(rotated.apiKey, org.apiKey);
      const validUntil = Date.parse(rotated.previousKeyValidUntil);
      assert.ok(Math.abs(validUntil - before - DAY * 1000) < 60_000, rotated.previousKeyValidUntil);

      assert.equal(await status(org.apiKey), 200);
      assert.equal(await status(rotated.apiKey), 200);
      assert.equal(await catalogueStatus(org.apiKey), 200);
      // The old key reads itself, never its replacement (a leaked key must not hand the thief
      // the new one); the new key reads itself.
      const viaOld = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(viaOld.json().organisations[0].apiKey, org.apiKey);
      assert.doesNotMatch(viaOld.body, new RegExp(rotated.apiKey));
      const viaNew = await t.request(rotated.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(viaNew.json().organisations[0].apiKey, rotated.apiKey);
      const shown = await show(org.id);
      assert.equal(shown.previousKeys.length, 1);
      assert.equal(shown.previousKeys[0]?.validUntil, rotated.previousKeyValidUntil);
      const text = await cli('org', 'show', org.id);
      assert.match(
        text,
        new RegExp(`previous key: rotated .*, valid until ${rotated.previousKeyValidUntil}`),
      );
      assert.doesNotMatch(text, new RegExp(org.apiKey));

      await advance(DAY - 120);
      assert.equal(await status(org.apiKey), 200, 'still inside the grace period');
      await advance(180);
      assert.equal(await status(org.apiKey), 403);
      assert.equal(await catalogueStatus(org.apiKey), 403);
      const refused = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.deepEqual(refused.json(), { message: 'invalid API key', code: 'forbidden' });
      assert.equal(await status(rotated.apiKey), 200);
    });

    it('in simulator mode the grace runs on the simulated clock: esim sim advance --days 2 ends it', async () => {
      const org = await create();
      const rotated = await rotate(org.id);
      assert.equal(await status(org.apiKey), 200, 'inside the grace period');
      const moved = await runCli(['sim', 'advance', '--days', '2', '--url', url], f.env);
      assert.equal(moved.code, 0, moved.err);
      assert.equal(await status(org.apiKey), 403);
      assert.equal(await status(rotated.apiKey), 200);
    });

    it('--grace sets the grace period of that rotation', async () => {
      const org = await create();
      const rotated = await rotate(org.id, '--grace', '90m');
      const start = t.clock.now().getTime();
      assert.ok(Math.abs(Date.parse(rotated.previousKeyValidUntil) - start - 5_400_000) < 60_000);
      await advance(80 * 60);
      assert.equal(await status(org.apiKey), 200);
      await advance(11 * 60);
      assert.equal(await status(org.apiKey), 403);
    });

    it('--grace 0 stops the old key, and every key still in grace, at once', async () => {
      const org = await create();
      const second = await rotate(org.id);
      assert.equal(await status(org.apiKey), 200);
      const third = await rotate(org.id, '--grace', '0');
      // The CLI is another process: the server notices its writes within API_KEY_CACHE_MS.
      t.clock.advance(t.config.apiKeyCacheMs / 1000);
      assert.equal(await status(org.apiKey), 403);
      assert.equal(await status(second.apiKey), 403);
      assert.equal(await status(third.apiKey), 200);
      assert.deepEqual((await show(org.id)).previousKeys, []);
      assert.match(await cli('org', 'show', org.id), /previous keys: none in grace period/);
    });

    it('housekeeping removes a rotated-out key once its grace period is over, and keeps the rest', async () => {
      const expiring = await create();
      const lasting = await create();
      await rotate(expiring.id, '--grace', '1h');
      const lastingRotated = await rotate(lasting.id, '--grace', '2h');
      const rowsOf = async (id: string) =>
        (
          await t.deps.store.db
            .selectFrom('previous_api_keys')
            .select('valid_until')
            .where('organisation_id', '=', id)
            .execute()
        ).length;
      assert.equal(await rowsOf(expiring.id), 1);
      // Both old keys are in use (and so remembered by the server) before the first ends.
      assert.equal(await status(expiring.apiKey), 200);
      assert.equal(await status(lasting.apiKey), 200);
      await advance(61 * 60);
      assert.equal(await status(expiring.apiKey), 403);

      const run = await runMoneyHousekeeping(t.deps);
      assert.ok(run.previousKeysPruned >= 1);
      assert.equal(await rowsOf(expiring.id), 0, 'the expired key is gone');
      assert.equal(await rowsOf(lasting.id), 1, 'the key still in grace stays');
      assert.equal(await status(expiring.apiKey), 403);
      assert.equal(await status(lasting.apiKey), 200);
      assert.equal(await status(lastingRotated.apiKey), 200);
      // Another process (the CLI) reads the same rows: still in grace, then not.
      assert.equal((await show(lasting.id)).previousKeys.length, 1);

      await advance(60 * 60);
      assert.equal(await status(lasting.apiKey), 403);
      await runMoneyHousekeeping(t.deps);
      assert.equal(await rowsOf(lasting.id), 0);
      assert.equal(await status(lasting.apiKey), 403);
      assert.equal(await status(lastingRotated.apiKey), 200);
    });

    it('refuses a malformed or too long grace period, and an unknown organisation', async () => {
      const org = await create();
      for (const grace of ['soon', '-1h', '24x', '1000d']) {
        const res = await runCli(['org', 'rotate-key', org.id, '--grace', grace], f.env);
        assert.equal(res.code, 2, `${grace}: ${res.err}`);
        assert.match(res.err, /--grace/);
      }
      assert.equal(await status(org.apiKey), 200, 'a refused rotation changes nothing');
      const missing = await runCli(
        ['org', 'rotate-key', '00000000-0000-0000-0000-000000000000'],
        f.env,
      );
      assert.equal(missing.code, 1);
      assert.match(missing.err, /not found/);
    });
  });
}
