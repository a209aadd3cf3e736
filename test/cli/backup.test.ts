import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import type { Proc } from '../callbacks/processes.js';
import { startServerProcess } from '../callbacks/processes.js';
import { eventually } from '../harness.js';
import { esim, scratchDir } from './helpers.js';

// `esim backup` takes a consistent copy of the SQLite database while a real server process takes
// orders; `esim restore` refuses while that server runs, checks the copy, and switches to it.

const BALANCE = 10_000_000;
const LOOPS = 4;

interface Catalogue {
  name: string;
  price: number;
}

/** Orders placed by a few sequential loops until stopped; `placed` counts the 200s. */
function orderLoad(url: string, apiKey: string, bundle: string) {
  const state = { placed: 0, failures: [] as string[], stopped: false };
  const loop = async (): Promise<void> => {
    while (!state.stopped) {
      const res = await fetch(`${url}/v2.1/orders`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'transaction',
          assign: false,
          order: [{ type: 'bundle', item: bundle, quantity: 1 }],
        }),
      });
      const text = await res.text();
      if (res.status === 200) state.placed += 1;
      else state.failures.push(`${res.status} ${text}`);
    }
  };
  const loops = Array.from({ length: LOOPS }, loop);
  return {
    state,
    async stop(): Promise<void> {
      state.stopped = true;
      await Promise.all(loops);
    },
  };
}

async function get(url: string, apiKey: string, path: string): Promise<Response> {
  const res = await fetch(`${url}${path}`, { headers: { 'x-api-key': apiKey } });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res;
}

describe('esim backup during orders, then esim restore [sqlite]', () => {
  const data = scratchDir();
  const env = { DATA_DIR: data.path, LOG_LEVEL: 'silent' };
  const backupFile = join(data.path, 'backup-1.sqlite');
  let server: Proc | undefined;
  let apiKey = '';
  let bundle: Catalogue = { name: '', price: 0 };
  after(async () => {
    await server?.kill('SIGKILL');
    data.remove();
  });

  before(async () => {
    server = await startServerProcess({ ...env, LOG_LEVEL: 'warn' });
    // CLI commands keep working beside the running server.
    const created = await esim(
      env,
      ...['org', 'create', '--name', 'Backup Org', '--balance', String(BALANCE)],
      ...['--groups', 'Standard eSIM Bundles', '--json'],
    );
    assert.equal(created.code, 0, created.err);
    apiKey = (JSON.parse(created.out) as { apiKey: string }).apiKey;
    const res = await get(server.url, apiKey, '/v2.1/catalogue?countries=FR&perPage=50');
    const bundles = (await res.json()) as Catalogue[];
    const priced = bundles.find((b) => b.price > 0);
    assert.ok(priced, 'a priced bundle in the built-in catalogue');
    bundle = priced;
  });

  let placedBefore = 0;
  let placedAfter = 0;

  it('copies the database while orders keep flowing', async () => {
    assert.ok(server);
    const load = orderLoad(server.url, apiKey, bundle.name);
    try {
      await eventually(async () => load.state.placed >= 20 || undefined, 60_000, 'orders');
      placedBefore = load.state.placed;
      const backup = await esim(env, 'backup', backupFile);
      assert.equal(backup.code, 0, backup.err);
      placedAfter = load.state.placed;
      assert.match(backup.out, /^backed up .*esim\.sqlite to .*backup-1\.sqlite \(\d+ bytes/);
      // The orders went on after the copy: the backup never held the server up.
      await eventually(
        async () => load.state.placed >= placedAfter + 20 || undefined,
        60_000,
        'orders after the backup',
      );
    } finally {
      await load.stop();
    }
    assert.deepEqual(load.state.failures, []);
    assert.equal(readFileSync(backupFile).subarray(0, 15).toString(), 'SQLite format 3');

    const again = await esim(env, 'backup', backupFile);
    assert.equal(again.code, 1);
    assert.match(again.err, /already exists; choose a new file name/);
  });

  it('refuses to restore while the server runs, and leaves its database alone', async () => {
    assert.ok(server);
    const total = Number(
      (await get(server.url, apiKey, '/v2.1/orders')).headers.get('x-total-count'),
    );
    const refused = await esim(env, 'restore', backupFile);
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /^esim restore: refused: .*in use by another esim serve.*stop the service first$/,
    );
    const still = await get(server.url, apiKey, '/v2.1/orders');
    assert.equal(Number(still.headers.get('x-total-count')), total);
  });

  it('restores the copy once the server is stopped: one snapshot, a balanced ledger', async () => {
    assert.ok(server);
    await server.kill('SIGTERM');
    const restored = await esim(env, 'restore', backupFile);
    assert.equal(restored.code, 0, restored.err);
    assert.match(restored.out, /^restored .* the ledger balances; migrations applied: none$/m);
    const kept = /kept as (\S+)$/m.exec(restored.out)?.[1];
    assert.ok(kept !== undefined && existsSync(kept), 'the replaced database is kept');

    const verify = await esim(env, 'ledger', 'verify');
    assert.equal(verify.code, 0, verify.err);

    server = await startServerProcess({ ...env, LOG_LEVEL: 'warn' });
    const orders = Number(
      (await get(server.url, apiKey, '/v2.1/orders')).headers.get('x-total-count'),
    );
    // Every order answered before the backup started is in it; none answered after it ended
    // (beyond those in flight at that moment).
    assert.ok(orders >= placedBefore, `${orders} >= ${placedBefore}`);
    assert.ok(orders <= placedAfter + LOOPS, `${orders} <= ${placedAfter} + ${LOOPS}`);
    const organisation = (await (await get(server.url, apiKey, '/v2.1/organisation')).json()) as {
      organisations: { balance: number }[];
    };
    // Orders and balance come from the same instant.
    assert.equal(organisation.organisations[0]?.balance, BALANCE - orders * bundle.price);
  });
});

describe('esim restore refuses a copy that fails its checks [sqlite]', () => {
  const data = scratchDir();
  const env = { DATA_DIR: data.path, LOG_LEVEL: 'silent' };
  const good = join(data.path, 'good.sqlite');
  after(() => data.remove());

  before(async () => {
    const created = await esim(env, 'org', 'create', '--name', 'Checks Org', '--balance', '5000');
    assert.equal(created.code, 0, created.err);
    const backup = await esim(env, 'backup', good);
    assert.equal(backup.code, 0, backup.err);
  });

  async function refused(file: string, reason: RegExp): Promise<void> {
    const before = await esim(env, 'org', 'list', '--json');
    const run = await esim(env, 'restore', file);
    assert.equal(run.code, 1, run.out);
    assert.match(run.err, reason);
    const list = await esim(env, 'org', 'list', '--json');
    assert.equal(list.out, before.out, 'the database is unchanged');
  }

  function tampered(name: string, statement: string): string {
    const file = join(data.path, name);
    writeFileSync(file, readFileSync(good));
    const db = new SQLite(file);
    db.exec(statement);
    db.close();
    return file;
  }

  it('a file that is not a SQLite database', async () => {
    const file = join(data.path, 'notes.txt');
    writeFileSync(file, 'not a database at all, but long enough to have a header\n');
    await refused(file, /is not a SQLite database/);
    await refused(join(data.path, 'missing.sqlite'), /does not exist/);
  });

  it('a copy whose ledger does not balance', async () => {
    const file = tampered('unbalanced.sqlite', 'update organisations set balance = balance + 1');
    await refused(
      file,
      /ledger does not balance \(1 difference\(s\); first: organisation .*balance is 5001 but the journal sums to 5000/,
    );
  });

  it('a copy from a newer version (a migration this version does not know)', async () => {
    const file = tampered(
      'newer.sqlite',
      `insert into kysely_migration (name, timestamp) values ('999-future', '2030-01-01T00:00:00.000Z')`,
    );
    await refused(file, /does not fit this version: .*999-future/);
  });

  it('a copy made under another master key', async () => {
    const other = scratchDir();
    try {
      const otherEnv = { DATA_DIR: other.path, LOG_LEVEL: 'silent' };
      const created = await esim(otherEnv, 'org', 'create', '--name', 'Elsewhere');
      assert.equal(created.code, 0, created.err);
      const file = join(other.path, 'elsewhere.sqlite');
      assert.equal((await esim(otherEnv, 'backup', file)).code, 0);
      await refused(file, /made under another master key/);
    } finally {
      other.remove();
    }
  });

  it('a copy restored into a data directory that has no master key yet', async () => {
    const fresh = scratchDir();
    try {
      const run = await esim({ DATA_DIR: fresh.path, LOG_LEVEL: 'silent' }, 'restore', good);
      assert.equal(run.code, 1);
      assert.match(run.err, /no master key: set MASTER_KEY, or put the master\.key/);
      assert.deepEqual(readdirSync(fresh.path), ['esim.sqlite.lock'], 'no key was generated');
    } finally {
      fresh.remove();
    }
  });

  it('restores a good copy into an empty data directory that shares the master key', async () => {
    const fresh = scratchDir();
    try {
      writeFileSync(join(fresh.path, 'master.key'), readFileSync(join(data.path, 'master.key')), {
        mode: 0o600,
      });
      const freshEnv = { DATA_DIR: fresh.path, LOG_LEVEL: 'silent' };
      const run = await esim(freshEnv, 'restore', good);
      assert.equal(run.code, 0, run.err);
      assert.doesNotMatch(run.out, /kept as/, 'there was nothing to keep');
      const list = await esim(freshEnv, 'org', 'list');
      assert.match(list.out, /Checks Org {2}50\.00 USD/);
    } finally {
      fresh.remove();
    }
  });
});
