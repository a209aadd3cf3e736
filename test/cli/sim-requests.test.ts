import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../databases.js';
import { eventually } from '../harness.js';
import type { Env, Spawned } from './helpers.js';
import { cliDatabase, esim as esimInProcess, spawnEsim } from './helpers.js';

// `esim sim requests`: the request journal of a running simulator (`esim serve` on each
// database, with two fixture organisations), read by the real command through GET
// /_sim/requests: newest first, per organisation, limited, as JSON, behind SIM_ADMIN_TOKEN.

const TOKEN = 'journal-token';
const KEYS = {
  acme: `esim_${'AcmeJournalFixtureKey'.padEnd(42, '0')}1`,
  beta: `esim_${'BetaJournalFixtureKey'.padEnd(42, '0')}2`,
};

interface Call {
  organisationId: string;
  at: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

// The command runs in this process (the CLI's entry, its output captured); the simulator it asks
// is a real `esim serve`.
function run(env: Env, ...argv: string[]) {
  return esimInProcess(env, ...argv);
}

for (const kind of DATABASES) {
  describe(`esim sim requests against a running simulator [${kind}]`, () => {
    let database: Awaited<ReturnType<typeof cliDatabase>>;
    let server: Spawned;
    let env: Env;
    let url = '';
    const ids = { acme: '', beta: '' };

    const api = (key: string, path: string) =>
      fetch(`${url}${path}`, { headers: { 'X-API-Key': key } }).then((r) => r.status);
    const esim = (...argv: string[]) => run(env, 'sim', 'requests', ...argv);
    const journal = async (query: string): Promise<Call[]> => {
      const res = await fetch(`${url}/_sim/requests${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { requests: Call[] }).requests;
    };

    before(async () => {
      database = await cliDatabase(kind);
      const seed = join(database.env['DATA_DIR'] ?? '', 'seed.json');
      writeFileSync(
        seed,
        JSON.stringify({
          organisations: [
            { name: 'Acme Journal', apiKey: KEYS.acme, balance: 10_000 },
            { name: 'Beta Journal', apiKey: KEYS.beta, balance: 10_000 },
          ],
        }),
      );
      env = { ...database.env, SIM_ADMIN_TOKEN: TOKEN };
      server = spawnEsim(
        { ...env, SEED_FILE: seed, PORT: '0', LOG_LEVEL: 'warn', HOST: '127.0.0.1' },
        'serve',
      );
      url = await eventually(
        async () => {
          if (server.child.exitCode !== null) throw new Error(`exited: ${server.stderr()}`);
          return /listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
        },
        60_000,
        'the server to listen',
      );
      for (const [name, key] of [
        ['acme', 'Acme Journal'],
        ['beta', 'Beta Journal'],
      ] as const) {
        const id = new RegExp(`Fixture organisation: ${key} \\((\\S+)\\)`).exec(server.stdout());
        ids[name] = id?.[1] ?? '';
        assert.notEqual(ids[name], '', server.stdout());
      }

      // Acme: two calls (one with the key in the query); Beta: one; a wrong key: none. A read of
      // the journal waits for the records already started, so each answered call is in it at once.
      const journaled = async (count: number) =>
        assert.equal((await journal('?limit=10')).length, count, `${count} calls in the journal`);
      assert.equal(await api(KEYS.acme, '/v2.1/organisation'), 200);
      await journaled(1);
      assert.equal(await api(`esim_${'Wrong'.padEnd(43, '0')}`, '/v2.1/organisation'), 403);
      assert.equal(await api(KEYS.beta, '/v2.1/esims'), 200);
      await journaled(2);
      const res = await fetch(`${url}/v2.1/esims?api_key=${encodeURIComponent(KEYS.acme)}`);
      assert.equal(res.status, 200);
      await journaled(3);
    });

    after(async () => {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      await database.dispose();
    });

    it('lists the calls newest first: time, method, path, status, duration, organisation', async () => {
      const all = await esim();
      assert.equal(all.code, 0, all.err);
      const lines = all.out.trimEnd().split('\n');
      assert.equal(lines.length, 4, all.out);
      const row = (method: string, path: string, org: string) =>
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\dT\\S+Z {2}${method} +${path} +200 +\\d+ ms {2}org ${org}$`,
        );
      assert.match(lines[0] ?? '', row('GET', '/v2\\.1/esims', ids.acme));
      assert.match(lines[1] ?? '', row('GET', '/v2\\.1/esims', ids.beta));
      assert.match(lines[2] ?? '', row('GET', '/v2\\.1/organisation', ids.acme));
      assert.equal(lines[3], '3 calls, newest first');
      assert.doesNotMatch(all.out, /api_key/, 'the query is left out');
    });

    it("shows one organisation's calls, limited", async () => {
      const acme = await esim('--organisation', ids.acme);
      assert.equal(acme.code, 0, acme.err);
      assert.doesNotMatch(acme.out, new RegExp(ids.beta));
      assert.match(acme.out, /^2 calls, newest first$/m);
      const newest = await esim('--organisation', ids.acme, '--limit', '1');
      assert.match(newest.out, /^\S+ {2}GET +\/v2\.1\/esims +200 /);
      assert.match(newest.out, /^1 call, newest first$/m);
      const nobody = await esim('--organisation', 'no-such-organisation');
      assert.equal(nobody.code, 0, nobody.err);
      assert.equal(nobody.out.trim(), 'no API call in the journal');
    });

    it('prints the answer of GET /_sim/requests with --json', async () => {
      const printed = await esim('--json', '--organisation', ids.beta, '--limit', '5');
      assert.equal(printed.code, 0, printed.err);
      const answer = JSON.parse(printed.out) as { requests: Call[] };
      assert.deepEqual(answer.requests, await journal(`?organisation=${ids.beta}&limit=5`));
      assert.deepEqual(
        answer.requests.map((c) => [c.organisationId, c.method, c.path, c.status]),
        [[ids.beta, 'GET', '/v2.1/esims', 200]],
      );
    });

    it('refuses usage mistakes (exit 2) and a missing token (exit 1)', async () => {
      for (const limit of ['0', '1001', 'ten']) {
        const bad = await esim('--limit', limit);
        assert.equal(bad.code, 2, limit);
        assert.match(bad.err, /--limit must be/);
      }
      assert.equal((await esim('--org', ids.acme)).code, 2);
      const noToken = Object.fromEntries(
        Object.entries(env).filter(([name]) => name !== 'SIM_ADMIN_TOKEN'),
      );
      const refused = await run(noToken, 'sim', 'requests');
      assert.equal(refused.code, 1);
      assert.match(refused.err, /GET \/_sim\/requests\?limit=20 answered 401/);
    });
  });
}
