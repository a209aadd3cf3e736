import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { DATABASES } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { runCli, startFileBackedApp } from '../fixtures/orders.js';

// The IP allow-list: an organisation setting (CLI, portal) that limits which client addresses
// may use its key. Any other address gets exactly the 403 of an invalid key. The client address
// is Fastify's request.ip: X-Forwarded-For counts only as far as TRUST_PROXY trusts it.

const ALLOWED = '203.0.113.7';
const OTHER = '198.51.100.9';

const startApp = (kind: (typeof DATABASES)[number], overrides: Partial<Config> = {}) =>
  startFileBackedApp(kind, overrides);

for (const kind of DATABASES) {
  describe(`IP allow-list [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let org: TestOrg;
    let open: TestOrg;

    before(async () => {
      f = await startApp(kind);
      t = f.t;
      org = await t.createOrg({ name: 'Listed' });
      open = await t.createOrg({ name: 'Open' });
    });
    after(() => f.close());

    const setList = (id: string, list: string[]) =>
      updateOrganisationSettings(
        {
          db: t.deps.store.db,
          clock: t.deps.clock,
          random: t.deps.random,
          cipher: t.deps.cipher,
          apiKeys: t.deps.apiKeys,
        },
        id,
        { ipAllowList: list },
      );
    const call = (key: string, remoteAddress: string, url = '/v2.1/organisation') =>
      t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key }, remoteAddress });

    it('answers listed addresses and ranges, and any other exactly as a bad key', async () => {
      await setList(org.id, [ALLOWED, '192.0.2.0/24', '2001:db8::/32']);
      for (const address of [ALLOWED, '192.0.2.200', '::ffff:203.0.113.7', '2001:db8::1']) {
        const res = await call(org.apiKey, address);
        assert.equal(res.statusCode, 200, `${address}: ${res.body}`);
      }
      const refused = await call(org.apiKey, OTHER);
      const badKey = await call('esim_not-a-real-key', ALLOWED);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.body, badKey.body);
      assert.equal(refused.headers['content-type'], badKey.headers['content-type']);
      // Every route, the query key too: the list is checked with the key, before anything else.
      const esims = await t.app.inject({
        method: 'GET',
        url: `/v2.1/esims?api_key=${encodeURIComponent(org.apiKey)}`,
        remoteAddress: OTHER,
      });
      assert.equal(esims.statusCode, 403);
      // Another organisation without a list is not affected.
      assert.equal((await call(open.apiKey, OTHER)).statusCode, 200);
      // An empty list lets any address in again, at once (the key cache forgets the organisation).
      await setList(org.id, []);
      assert.equal((await call(org.apiKey, OTHER)).statusCode, 200);
    });

    it('tells the owner why a good key was refused: the log, the journal and the audit log', async () => {
      const lines: string[] = [];
      const logged = await buildApp(t.deps, {
        logLevel: 'warn',
        logStream: { write: (line) => void lines.push(line) },
      });
      try {
        await setList(org.id, [ALLOWED]);
        const badKey = await call('esim_not-a-real-key', ALLOWED);
        for (let i = 0; i < 3; i += 1) {
          const refused = await logged.inject({
            method: 'GET',
            url: '/v2.5/organisation?x=1',
            headers: { 'x-api-key': org.apiKey },
            remoteAddress: OTHER,
          });
          // The wire is unchanged: exactly the answer of a bad key.
          assert.equal(refused.statusCode, 403);
          assert.equal(refused.body, badKey.body);
        }
        const warnings = lines
          .map((line) => JSON.parse(line) as { msg?: string; organisationId?: string })
          .filter((l) => l.msg?.includes('IP allow-list'));
        assert.equal(warnings.length, 3, lines.join(''));
        assert.equal(
          warnings[0]?.msg,
          `API key of organisation ${org.id} refused: ${OTHER} is not in its IP allow-list (answered as an invalid key)`,
        );
        const journal = await t.app.inject({ url: `/_sim/requests?organisation=${org.id}` });
        const calls = journal
          .json<{ requests: { method: string; path: string; status: number }[] }>()
          .requests.filter((r) => r.path.startsWith('/v2.5/'));
        assert.deepEqual(
          calls.map((r) => `${r.method} ${r.path} ${r.status}`),
          Array.from({ length: 3 }, () => 'GET /v2.5/organisation 403'),
        );
        // One audit entry for the address, not one per call (a retrying client cannot fill it);
        // the first test's refusals, through another app, have theirs.
        const audit = await runCli(['audit', 'list', '--org', org.id, '--json'], f.env);
        assert.equal(audit.code, 0, audit.err);
        const refusals = (
          JSON.parse(audit.out) as { action: string; source: string; details: unknown }[]
        ).filter(
          (e) =>
            e.action === 'api_key.address_refused' &&
            (e.details as { path: string }).path.startsWith('/v2.5/'),
        );
        assert.equal(refusals.length, 1);
        assert.equal(refusals[0]?.source, OTHER);
        assert.deepEqual(refusals[0]?.details, {
          address: OTHER,
          method: 'GET',
          path: '/v2.5/organisation',
        });
      } finally {
        await logged.close();
        await setList(org.id, []);
      }
    });

    it('refuses an entry that is not an address or range, naming it', async () => {
      for (const bad of [
        '203.0.113',
        '10.0.0.0/33',
        'example.com',
        '2001:db8::/129',
        '1.2.3.4/a',
      ]) {
        await assert.rejects(setList(org.id, [bad]), (e: Error) => {
          assert.equal(e.message.indexOf(`"${bad}" is not an IP address or CIDR range`), 0);
          return true;
        });
      }
    });

    it('is set and shown by esim org update and esim org show', async () => {
      const set = await runCli(
        ['org', 'update', open.id, '--ip-allow-list', `${ALLOWED}, 10.0.0.0/8`, '--json'],
        f.env,
      );
      assert.equal(set.code, 0, set.err);
      assert.deepEqual(JSON.parse(set.out).ipAllowList, [ALLOWED, '10.0.0.0/8']);
      const shown = await runCli(['org', 'show', open.id], f.env);
      assert.match(shown.out, /IP allow-list: 203\.0\.113\.7, 10\.0\.0\.0\/8/);
      const bad = await runCli(['org', 'update', open.id, '--ip-allow-list', 'nope'], f.env);
      assert.equal(bad.code, 1);
      assert.match(bad.err, /"nope" is not an IP address/);
      const cleared = await runCli(['org', 'update', open.id, '--ip-allow-list', ''], f.env);
      assert.equal(cleared.code, 0, cleared.err);
      assert.match((await runCli(['org', 'show', open.id], f.env)).out, /\(any address\)/);
    });
  });

  describe(`IP allow-list behind a trusted proxy [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      f = await startApp(kind, { trustProxy: '127.0.0.1' });
      t = f.t;
      org = await t.createOrg({ name: 'Proxied' });
      await updateOrganisationSettings(
        {
          db: t.deps.store.db,
          clock: t.deps.clock,
          random: t.deps.random,
          cipher: t.deps.cipher,
          apiKeys: t.deps.apiKeys,
        },
        org.id,
        { ipAllowList: [ALLOWED] },
      );
    });
    after(() => f.close());

    const via = (remoteAddress: string, forwardedFor: string) =>
      t.app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': org.apiKey, 'x-forwarded-for': forwardedFor },
        remoteAddress,
      });

    it('believes X-Forwarded-For only from the trusted proxy', async () => {
      assert.equal((await via('127.0.0.1', ALLOWED)).statusCode, 200);
      assert.equal((await via('127.0.0.1', OTHER)).statusCode, 403);
      // A client that is not the proxy cannot claim a listed address.
      assert.equal((await via(OTHER, ALLOWED)).statusCode, 403);
    });
  });
}
