import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/store/database.js';
import { WAL_TRUNCATE_BYTES } from '../../src/store/wal-checkpointer.js';
import { cliDatabase, runCli } from '../callbacks/cli-env.js';
import type { CliDatabase } from '../callbacks/cli-env.js';
import { startServerProcess } from '../callbacks/processes.js';
import type { Proc } from '../callbacks/processes.js';
import { eventually } from '../harness.js';

// SQLite only: the service's connection never checkpoints its WAL; a worker thread does
// (src/store/wal-checkpointer.ts). Under sustained orders the WAL must stay bounded and the
// database file must take the committed pages while the server runs (no checkpoint at all would
// leave the file as it was and the WAL growing); once the orders stop, the WAL is emptied. Then a
// SIGKILL in the middle of orders (and checkpoints) loses no acknowledged order, and
// `esim ledger verify` passes.

const CLIENTS = 16;
const OPENING = 1_000_000_000;
// The waits below end on progress (orders acknowledged, a checkpoint seen); this only stops a
// run in which it never comes from hanging, and is no time the work must fit in.
const HANG_GUARD_MS = 120_000;

interface Org {
  id: string;
  apiKey: string;
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Orders until `stop()` says so or the server stops answering; collects the references. */
async function client(
  server: Proc,
  org: Org,
  bundle: string,
  stop: () => boolean,
  acknowledged: string[],
): Promise<void> {
  while (!stop()) {
    let res: Response;
    try {
      res = await fetch(`${server.url}/v2.1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
        body: JSON.stringify({
          type: 'transaction',
          assign: false,
          order: [{ type: 'bundle', item: bundle, quantity: 1 }],
        }),
      });
    } catch {
      return; // the server is gone
    }
    const body = (await res.json().catch(() => undefined)) as
      { orderReference?: string } | undefined;
    if (res.status !== 200 || body?.orderReference === undefined) {
      throw new Error(`order answered ${res.status}: ${JSON.stringify(body)}`);
    }
    acknowledged.push(body.orderReference);
  }
}

describe('SQLite: checkpoints on a worker thread keep the WAL bounded and lose nothing', () => {
  let db: CliDatabase;
  let env: Record<string, string>;
  let path: string;
  let org: Org;
  const servers: Proc[] = [];

  before(async () => {
    db = await cliDatabase('sqlite');
    path = db.url.slice('sqlite:'.length);
    env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, SQLITE_CHECKPOINT_INTERVAL_MS: '50' };
    const created = await runCli(
      ['org', 'create', '--name', 'Checkpoints', '--balance', String(OPENING), '--json'],
      env,
    );
    assert.equal(created.code, 0, created.err);
    org = JSON.parse(created.out) as Org;
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    await db?.drop();
  });

  it('under sustained orders, then after a SIGKILL in their middle', async (t) => {
    const first = await startServerProcess(env);
    servers.push(first);
    const catalogue = await fetch(`${first.url}/v2.1/catalogue?perPage=1`, {
      headers: { 'x-api-key': org.apiKey },
    });
    const bundle = ((await catalogue.json()) as { name: string }[])[0]?.name;
    assert.ok(bundle !== undefined, 'the built-in catalogue has a bundle');

    // What the start wrote (the built-in catalogue) is checkpointed first, so the database file
    // can only grow from here by the orders' pages.
    await eventually(
      async () => (size(`${path}-wal`) === 0 ? true : undefined),
      HANG_GUARD_MS,
      'the WAL to be emptied after the start',
    );
    const fileAtStart = size(path);
    const acknowledged: string[] = [];
    let stopped = false;
    const clients = Array.from({ length: CLIENTS }, () =>
      client(first, org, bundle, () => stopped, acknowledged),
    );
    // The orders go on until enough have gone through and a checkpoint has copied some of them
    // into the database file while they are still being placed: progress, however long a busy
    // machine takes to get there. The WAL is measured all along.
    let largestWal = 0;
    const sampling = setInterval(() => {
      largestWal = Math.max(largestWal, size(`${path}-wal`));
    }, 10);
    try {
      await eventually(
        async () => (acknowledged.length >= 200 && size(path) > fileAtStart ? true : undefined),
        HANG_GUARD_MS,
        '200 orders and a checkpoint into the database file while they run',
      );
    } finally {
      clearInterval(sampling);
      largestWal = Math.max(largestWal, size(`${path}-wal`));
      stopped = true;
    }
    await Promise.all(clients);
    t.diagnostic(`${acknowledged.length} orders; largest WAL ${largestWal} bytes`);
    assert.ok(largestWal > 0, 'the orders went through the WAL');
    // Bounded by the size at which the thread stops waiting for a pause (a full checkpoint, the
    // writes waiting) plus what one interval's orders add. On a quiet machine PASSIVE checkpoints
    // keep it near journal_size_limit; on a busy one they fall behind, up to that size.
    const bound = WAL_TRUNCATE_BYTES + 16 * 1024 * 1024;
    assert.ok(largestWal <= bound, `the WAL stayed bounded (${largestWal} bytes)`);
    // Idle: the WAL is emptied, the server still running.
    await eventually(
      async () => (size(`${path}-wal`) === 0 ? true : undefined),
      HANG_GUARD_MS,
      'the WAL to be emptied once the orders stopped',
    );

    // A kill in the middle of orders, and so of checkpoints.
    const more: string[] = [];
    const killing = Array.from({ length: CLIENTS }, () =>
      client(first, org, bundle, () => false, more),
    );
    const beforeKill = acknowledged.length;
    await eventually(async () => (more.length >= 300 ? true : undefined), HANG_GUARD_MS, 'orders');
    await first.kill('SIGKILL');
    await Promise.all(killing);
    acknowledged.push(...more);
    t.diagnostic(`${acknowledged.length - beforeKill} more orders before SIGKILL`);

    const store = openStore({ kind: 'sqlite', path });
    try {
      const rows = await store.db.selectFrom('orders').select('reference').execute();
      const kept = new Set(rows.map((r) => r.reference));
      assert.deepEqual(
        acknowledged.filter((r) => !kept.has(r)),
        [],
        'acknowledged orders missing after the kill',
      );
    } finally {
      await store.close();
    }
    const verify = await runCli(['ledger', 'verify'], env);
    assert.equal(verify.code, 0, `${verify.out}\n${verify.err}`);
  });
});
