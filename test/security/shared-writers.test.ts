import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { spawnEsim } from '../cli/helpers.js';
import type { FileBackedApp, ServerProcess } from '../fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  GROUP,
  runCli,
  startFileBackedApp,
  startServerProcess,
} from '../fixtures/orders.js';
import { DATABASES } from '../harness.js';
import type { TestOrg } from '../harness.js';

// Several processes writing one database at once: a running server, a second writer (this test
// process, through the same app) and `esim` commands an operator runs meanwhile (three
// `org create`, one `catalogue import` of 300 bundles in one transaction). On SQLite they
// share one file, so each writer waits its turn (busy timeout, write transactions that take the
// write lock up front, bounded retries) instead of failing with "database is locked". No request
// may answer 5xx, no command may fail, and the money must come out exact.

const PRICE = 7;
const ORDERS_PER_WRITER = 150;
const CONCURRENCY = 12;
const CLI_COMMANDS = 3;
const IMPORTED = 300;
const BUNDLE = 'esim_writers_1GB_7D_GB_V2';

type Send = (payload: object) => Promise<{ status: number; body: string }>;

/** Sends `count` orders through `send`, at most CONCURRENCY at once; returns the statuses. */
async function load(send: Send, count: number): Promise<{ status: number; body: string }[]> {
  const results: { status: number; body: string }[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      results.push(
        await send({ type: 'transaction', order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }] }),
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return results;
}

for (const kind of DATABASES) {
  describe(`security: several processes writing one database [${kind}]`, () => {
    let f: FileBackedApp;
    let server: ServerProcess;
    let org: TestOrg;
    const opening = 1_000_000;

    before(async () => {
      f = await startFileBackedApp(kind);
      await addBundles(f.t, [fixtureBundle(BUNDLE, PRICE)]);
      org = await f.t.createOrg({ name: 'Busy Writers', balance: opening });
      server = await startServerProcess({ ...f.env, LOG_LEVEL: 'warn' });
    });
    after(async () => {
      await server?.stop();
      await f?.close();
    });

    it('serves concurrent orders through two processes and runs esim commands, with no 5xx', async () => {
      const viaServer: Send = async (payload) => {
        const res = await fetch(`${server.url}/v2.1/orders`, {
          method: 'POST',
          headers: { 'x-api-key': org.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
        return { status: res.status, body: await res.text() };
      };
      const inProcess: Send = async (payload) => {
        const res = await f.t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload });
        return { status: res.statusCode, body: res.body };
      };
      const commands = Array.from({ length: CLI_COMMANDS }, (_, i) => {
        const run = spawnEsim(
          { ...f.env },
          'org',
          'create',
          '--name',
          `Operator ${i}`,
          '--balance',
          '5000',
          '--json',
        );
        return run.exited.then((code) => ({ code, err: run.stderr() }));
      });
      const file = join(f.env['DATA_DIR'] ?? '', 'import.json');
      writeFileSync(
        file,
        JSON.stringify(
          Array.from({ length: IMPORTED }, (_, i) => ({
            name: `esim_import_${i}_1GB_7D_GB_V2`,
            groups: [GROUP],
            countries: ['GB'],
            dataAmount: 1000,
            duration: 7,
            price: 100 + i,
          })),
        ),
      );
      const importing = spawnEsim({ ...f.env }, 'catalogue', 'import', file, '--json');
      commands.push(importing.exited.then((code) => ({ code, err: importing.stderr() })));
      const [a, b, cli] = await Promise.all([
        load(viaServer, ORDERS_PER_WRITER),
        load(inProcess, ORDERS_PER_WRITER),
        Promise.all(commands),
      ]);
      const all = [...a, ...b];
      const failed = all.filter((r) => r.status !== 200);
      assert.deepEqual(
        failed.slice(0, 3),
        [],
        `${failed.length} of ${all.length} orders failed, e.g. ${failed[0]?.status} ${failed[0]?.body}`,
      );
      for (const c of cli) assert.equal(c.code, 0, c.err);

      const res = await f.t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(res.json().organisations[0].balance, opening - 2 * ORDERS_PER_WRITER * PRICE);
      const listed = await runCli(['org', 'list', '--json'], f.env);
      assert.equal(listed.code, 0, listed.err);
      const names = (JSON.parse(listed.out) as { name: string }[]).map((o) => o.name);
      for (let i = 0; i < CLI_COMMANDS; i += 1) assert.ok(names.includes(`Operator ${i}`));
      const imported = await f.t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue/bundle/esim_import_${IMPORTED - 1}_1GB_7D_GB_V2`,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      assert.equal(imported.json().price, 100 + IMPORTED - 1);
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });
  });
}

describe('security: a SQLite write that waits longer than SQLITE_BUSY_WAIT_MS [sqlite]', () => {
  let f: FileBackedApp;
  let org: TestOrg;

  before(async () => {
    f = await startFileBackedApp('sqlite', { sqliteBusyWaitMs: 300 });
    await addBundles(f.t, [fixtureBundle(BUNDLE, PRICE)]);
    org = await f.t.createOrg({ name: 'Patient', balance: 1000 });
  });
  after(() => f.close());

  it('answers 503 with Retry-After (a command exits 1), changes nothing, and succeeds once the lock is gone', async () => {
    const target = f.t.config.database;
    assert.ok(target.kind === 'sqlite');
    // Another process holding the write lock (as a long catalogue import would).
    const other = new SQLite(target.path);
    const order = () =>
      f.t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }] },
      });
    try {
      other.exec('begin immediate');
      const started = Date.now();
      const busy = await order();
      assert.equal(busy.statusCode, 503, busy.body);
      assert.deepEqual(busy.json(), {
        message: 'the database is busy; retry shortly',
        code: 'database_busy',
      });
      assert.equal(busy.headers['retry-after'], '1');
      assert.ok(Date.now() - started >= 300, 'it waited before giving up');
      const command = await runCli(['org', 'create', '--name', 'Blocked', '--json'], {
        ...f.env,
        SQLITE_BUSY_WAIT_MS: '300',
      });
      assert.equal(command.code, 1, command.out);
      assert.equal(
        command.err,
        'esim: the database is busy: another process held it for longer than SQLITE_BUSY_WAIT_MS (300 ms); try again',
      );
      other.exec('rollback');
    } finally {
      if (other.inTransaction) other.exec('rollback');
      other.close();
    }
    const ok = await order();
    assert.equal(ok.statusCode, 200, ok.body);
    const res = await f.t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
    assert.equal(res.json().organisations[0].balance, 1000 - PRICE);
    const listed = await runCli(['org', 'list', '--json'], f.env);
    const names = (JSON.parse(listed.out) as { name: string }[]).map((o) => o.name);
    assert.deepEqual(names, ['Patient']);
  });
});
