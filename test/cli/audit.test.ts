import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../harness.js';
import type { TestApp } from '../harness.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { runCli, startFileBackedApp } from '../fixtures/orders.js';

// The audit log: each sensitive action, by the CLI or over HTTP, leaves a row saying who did
// what, when and from where; `esim audit list` prints them, newest first, per organisation.

interface Entry {
  id: number;
  at: string;
  organisationId: string | null;
  actor: string;
  source: string;
  action: string;
  details: Record<string, unknown>;
}

for (const kind of DATABASES) {
  describe(`audit log [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let env: Record<string, string>;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      env = { ...f.env, ESIM_OPERATOR: 'ada' };
    });
    after(() => f.close());

    const cli = async (...argv: string[]) => {
      const res = await runCli(argv, env);
      assert.equal(res.code, 0, res.err);
      return res.out;
    };
    const list = async (...argv: string[]) =>
      JSON.parse(await cli('audit', 'list', '--json', ...argv)) as Entry[];

    it('records every sensitive action with who, what, when and from where', async () => {
      const created = JSON.parse(
        await cli('org', 'create', '--name', 'Audited Co', '--no-card', '--json'),
      ) as { id: string; apiKey: string };
      const other = JSON.parse(await cli('org', 'create', '--name', 'Other Co', '--json')) as {
        id: string;
      };
      await cli('org', 'update', created.id, '--name', 'Audited Ltd');
      await cli(
        'org',
        'update',
        created.id,
        '--callback-url',
        'http://127.0.0.1:9/hook',
        '--callback-version',
        'V3',
      );
      await cli(
        'user',
        'add',
        created.id,
        '--email',
        'ada@audited.example',
        '--first-name',
        'Ada',
        '--last-name',
        'L',
        '--role',
        'Admin',
      );
      await cli('org', 'card', created.id, '--number', '4242424242424242');
      const rotated = JSON.parse(
        await cli('org', 'rotate-key', created.id, '--grace', '1h', '--json'),
      ) as { apiKey: string };
      const file = join(env['DATA_DIR'] ?? '', 'bundles.json');
      writeFileSync(file, await cli('catalogue', 'list', '--json'));
      await cli('catalogue', 'import', file);
      await cli('catalogue', 'import', file, '--dry-run');

      const ok = await t.request(rotated.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=1000',
        remoteAddress: '203.0.113.7',
      });
      assert.equal(ok.statusCode, 200, ok.body);
      const tooSmall = await t.request(rotated.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=1',
        remoteAddress: '203.0.113.7',
      });
      assert.equal(tooSmall.statusCode, 400);

      const mine = await list('--org', created.id);
      assert.deepEqual(
        mine.map((e) => e.action),
        [
          'topup.failed',
          'topup.succeeded',
          'api_key.rotated',
          'card.saved',
          'user.added',
          'callback.settings_changed',
          'organisation.updated',
          'organisation.updated',
          'organisation.created',
        ],
      );
      assert.ok(mine.every((e) => e.organisationId === created.id));
      const byCli = mine.filter((e) => !e.action.startsWith('topup.'));
      for (const e of byCli) {
        assert.equal(e.actor, 'operator:ada', e.action);
        assert.equal(e.source, `cli@${hostname()}`, e.action);
      }
      for (const e of mine.filter((x) => x.action.startsWith('topup.'))) {
        assert.equal(e.actor, `api-key:${created.id}`);
        assert.equal(e.source, '203.0.113.7');
      }
      const at = (action: string) => mine.find((e) => e.action === action);
      assert.deepEqual(at('topup.succeeded')?.details['amount'], 1000);
      assert.equal(at('topup.failed')?.details['reason'], 'invalid_amount');
      assert.deepEqual(at('callback.settings_changed')?.details, {
        callbackUrl: 'http://127.0.0.1:9/hook',
        callbackVersion: 'V3',
      });
      assert.equal(at('api_key.rotated')?.details['graceSeconds'], 3600);
      assert.equal(at('card.saved')?.details['last4'], '4242');
      assert.equal(at('user.added')?.details['email'], 'ada@audited.example');
      assert.deepEqual(at('organisation.updated')?.details, {
        changed: ['callback_url', 'callback_version'],
      });
      // No secret in any row: neither key, nor the card number.
      const raw = JSON.stringify(mine);
      assert.doesNotMatch(raw, new RegExp(created.apiKey));
      assert.doesNotMatch(raw, new RegExp(rotated.apiKey));
      assert.doesNotMatch(raw, /4242424242424242/);
      for (const e of mine) assert.match(e.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const all = await list();
      const imports = all.filter((e) => e.action === 'catalogue.imported');
      assert.equal(imports.length, 1, 'a dry run is not recorded');
      assert.equal(imports[0]?.organisationId, null);
      assert.equal(imports[0]?.details['file'], file);
      assert.ok(
        all.some((e) => e.organisationId === other.id && e.action === 'organisation.created'),
      );
      assert.ok(all.some((e) => e.organisationId === other.id && e.action === 'card.saved'));
      assert.equal((await list('--limit', '2')).length, 2);
      assert.deepEqual(await list('--org', 'no-such-org'), []);

      const text = await cli('audit', 'list', '--org', created.id);
      assert.match(text, /api_key\.rotated {2}org \S+ {2}by operator:ada from cli@/);
    });

    it('refuses a bad --limit', async () => {
      const res = await runCli(['audit', 'list', '--limit', 'lots'], env);
      assert.equal(res.code, 2);
      assert.match(res.err, /--limit/);
    });
  });
}
