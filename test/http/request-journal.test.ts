import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InsertQueryNode } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { buildApp } from '../../src/app.js';
import { tableName } from '../../src/store/write-watch.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The simulator's request journal keeps answered calls in memory and writes them together: a
// read of GET /_sim/requests made after answers came back finds every one of them, exactly once,
// however many were answered at once and whatever else the writer had to do.

interface Call {
  organisationId: string;
  method: string;
  path: string;
  status: number;
}

for (const kind of DATABASES) {
  describe(`request journal, calls answered together [${kind}]`, () => {
    let t: TestApp;
    let a: TestOrg;
    let b: TestOrg;

    before(async () => {
      // Without the built-in catalogue (thousands of rows) a snapshot here is kilobytes.
      t = await startTestApp(kind, { catalogueSeed: false });
      a = await t.createOrg({ balance: 1000 });
      b = await t.createOrg({ balance: 1000 });
    });
    after(() => t.close());

    const journal = async (query: string): Promise<Call[]> => {
      const res = await t.app.inject({ url: `/_sim/requests${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ requests: Call[] }>().requests;
    };

    it('holds every call answered before a read, exactly once, read at once', async () => {
      const calls = Array.from({ length: 120 }, (_, i) => {
        const org = i % 3 === 0 ? b : a;
        const url = i % 2 === 0 ? '/v2.1/organisation' : `/v2.1/esims/${8900000000000000000 + i}`;
        return t.request(org.apiKey, { method: 'GET', url });
      });
      const answers = await Promise.all(calls);
      assert.deepEqual(
        [...new Set(answers.map((r) => r.statusCode))].sort(),
        [200, 400],
        'calls answered 200 and 400 (a malformed ICCID)',
      );
      const ofA = await journal(`?organisation=${a.id}&limit=1000`);
      const ofB = await journal(`?organisation=${b.id}&limit=1000`);
      assert.equal(ofA.length, 80);
      assert.equal(ofB.length, 40);
      const statuses = (rows: Call[]) =>
        rows.reduce<Record<string, number>>((n, r) => {
          const key = `${r.method} ${r.path.startsWith('/v2.1/esims/') ? 'esim' : r.path} ${r.status}`;
          n[key] = (n[key] ?? 0) + 1;
          return n;
        }, {});
      assert.deepEqual(statuses(ofA), {
        'GET /v2.1/organisation 200': 40,
        'GET esim 400': 40,
      });
      assert.deepEqual(statuses(ofB), {
        'GET /v2.1/organisation 200': 20,
        'GET esim 400': 20,
      });
      // One more answered call is the newest at once: nothing of the earlier ones is left behind.
      const one = await t.request(b.apiKey, { method: 'GET', url: '/v2.1/esims' });
      assert.equal(one.statusCode, 200);
      const [newest] = await journal('?limit=1');
      assert.deepEqual(
        newest && [newest.organisationId, newest.method, newest.path, newest.status],
        [b.id, 'GET', '/v2.1/esims', 200],
      );
      assert.equal((await journal('?limit=1000')).length, 121);
    });

    it('is in a snapshot taken as soon as the calls were answered', async () => {
      const answer = await t.request(a.apiKey, { method: 'GET', url: '/v2.1/organisation?x=1' });
      assert.equal(answer.statusCode, 200);
      const res = await t.app.inject({ url: '/_sim/snapshot' });
      assert.equal(res.statusCode, 200);
      const rows = res.json<{ tables: { api_requests: { id: number; path: string }[] } }>().tables
        .api_requests;
      const newest = rows.reduce((n, r) => (Number(r.id) > Number(n.id) ? r : n));
      assert.equal(newest.path, '/v2.1/organisation', 'the call just answered is in the snapshot');
    });

    it('holds no call answered before a snapshot import other than the snapshot', async () => {
      const before = await journal('?limit=1000');
      const saved = await t.app.inject({ url: '/_sim/snapshot' });
      assert.equal(saved.statusCode, 200);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.request(b.apiKey, { method: 'GET', url: '/v2.1/organisation' }),
        ),
      );
      assert.deepEqual(
        answers.map((r) => r.statusCode),
        [200, 200, 200, 200, 200],
      );
      const put = await t.app.inject({
        method: 'PUT',
        url: '/_sim/snapshot',
        headers: { 'content-type': 'application/vnd.esim.snapshot+json' },
        payload: saved.body,
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(await journal('?limit=1000'), before, "the journal is the snapshot's");
    });
  });
}

for (const kind of DATABASES) {
  describe(`request journal, a write that fails [${kind}]`, () => {
    let t: TestApp;
    let a: TestOrg;
    let failing = false;
    // Refuses the journal's inserts while `failing`: the database keeps none of those calls.
    const refuse: KyselyPlugin = {
      transformQuery(args) {
        if (
          failing &&
          InsertQueryNode.is(args.node) &&
          tableName(args.node.into) === 'api_requests'
        )
          throw new Error('the journal cannot be written');
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };

    before(async () => {
      t = await startTestApp(
        kind,
        {},
        { storePlugins: [{ kysely: refuse, direct: () => undefined }] },
      );
      a = await t.createOrg({ balance: 1000 });
    });
    after(() => t.close());

    it('logs one warning for the calls of the write, not one per call', async () => {
      const lines: string[] = [];
      const logged = await buildApp(t.deps, {
        logLevel: 'warn',
        logStream: { write: (line) => void lines.push(line) },
      });
      try {
        failing = true;
        const answers = await Promise.all(
          Array.from({ length: 12 }, () =>
            logged.inject({ url: '/v2.1/organisation', headers: { 'x-api-key': a.apiKey } }),
          ),
        );
        assert.deepEqual(
          answers.map((r) => r.statusCode),
          Array.from({ length: 12 }, () => 200),
        );
        const read = await logged.inject({ url: `/_sim/requests?organisation=${a.id}` });
        assert.equal(read.statusCode, 200, read.body);
        assert.deepEqual(read.json<{ requests: Call[] }>().requests, [], 'nothing was written');
        const warnings = lines
          .map((line) => JSON.parse(line) as { msg: string; calls?: number })
          .filter((entry) => entry.msg.startsWith('request journal'));
        assert.deepEqual(
          warnings.map((w) => [w.msg, w.calls]),
          [['request journal: 12 calls not recorded', 12]],
        );
        // Written again once the database takes them: the journal goes on with the next calls.
        failing = false;
        const next = await logged.inject({
          url: '/v2.1/organisation',
          headers: { 'x-api-key': a.apiKey },
        });
        assert.equal(next.statusCode, 200);
        const after = await logged.inject({ url: `/_sim/requests?organisation=${a.id}` });
        assert.equal(after.json<{ requests: Call[] }>().requests.length, 1);
      } finally {
        failing = false;
        await logged.close();
      }
    });
  });
}
