import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import { DATABASES } from '../../test/harness.js';
import { freshDatabase } from '../../test/databases.js';
import type { TestDatabase } from '../../test/databases.js';
import type { DatabaseTarget } from '../config.js';
import { openStore } from './database.js';
import type { Store } from './database.js';
import type { Database as Schema } from './schema.js';

// The group writer on its own: writes that arrive together share one commit, a failing write
// fails alone, and none is acknowledged before its batch has committed (seen from a second
// connection). Orders through HTTP are covered by the order and concurrency tests.

async function insertProbe(trx: Transaction<Schema>, id: number): Promise<void> {
  await sql`insert into gc_probe (id, label) values (${id}, ${`write ${id}`})`.execute(trx);
}

async function probeIds(store: Store): Promise<number[]> {
  const result = await sql<{ id: number }>`select id from gc_probe order by id`.execute(store.db);
  return result.rows.map((r) => Number(r.id));
}

for (const kind of DATABASES) {
  describe(`group commit [${kind}]`, () => {
    let database: TestDatabase | undefined;
    let dir: string | undefined;
    let target: DatabaseTarget;
    let store: Store;
    let observer: Store;

    before(async () => {
      if (kind === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'esim-group-commit-'));
        target = { kind: 'sqlite', path: join(dir, 'probe.sqlite') };
      } else {
        database = await freshDatabase(kind);
        target = database.target;
      }
      store = openStore(target, { poolSize: 8 });
      observer = openStore(target, { poolSize: 2 });
      await sql`create table gc_probe (id integer primary key, label text not null)`.execute(
        store.db,
      );
    });
    after(async () => {
      await store.close();
      await observer.close();
      await database?.drop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('commits writes that arrive together once, and a failing write alone is rolled back', async () => {
      await sql`delete from gc_probe`.execute(store.db);
      const before = store.writer.stats();
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          store.writer.run('one organisation', async (trx) => {
            await insertProbe(trx, i);
            if (i % 3 === 0) throw new Error(`write ${i} refused`);
            return i;
          }),
        ),
      );
      const stats = store.writer.stats();
      assert.equal(stats.writes - before.writes, 40);
      assert.ok(stats.batches - before.batches < 10, `batches: ${stats.batches - before.batches}`);
      results.forEach((r, i) => {
        if (i % 3 === 0) {
          assert.equal(r.status, 'rejected');
          assert.match(
            String((r as PromiseRejectedResult).reason),
            new RegExp(`write ${i} refused`),
          );
        } else {
          assert.deepEqual(r, { status: 'fulfilled', value: i });
        }
      });
      const expected = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 !== 0);
      assert.deepEqual(await probeIds(observer), expected);
    });

    it('a statement error in one write (duplicate key) does not take its batch down', async () => {
      await sql`delete from gc_probe`.execute(store.db);
      const results = await Promise.allSettled(
        [100, 101, 100, 102].map((id) =>
          store.writer.run(`org ${id}`, (trx) => insertProbe(trx, id)),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(await probeIds(observer), [100, 101, 102]);
    });

    it('acknowledges a write only once its whole batch has committed', async () => {
      await sql`delete from gc_probe`.execute(store.db);
      let firstSettled: () => void = () => undefined;
      const settledEarly = new Promise<void>((resolve) => (firstSettled = resolve));
      let seenAtAcknowledgement: number[] | undefined;
      const first = store.writer
        .run('org', (trx) => insertProbe(trx, 1))
        .then(async () => {
          seenAtAcknowledgement = await probeIds(observer);
          firstSettled();
        });
      // The second write of the batch waits for the first to be acknowledged, or 300 ms: a writer
      // that acknowledged before the commit would let the observer miss write 1.
      const second = store.writer.run('org', async (trx) => {
        await insertProbe(trx, 2);
        await Promise.race([settledEarly, new Promise((resolve) => setTimeout(resolve, 300))]);
      });
      await Promise.all([first, second]);
      assert.deepEqual(seenAtAcknowledgement, [1, 2]);
    });

    it("commits one organisation while another one's batch is still running (PostgreSQL)", async (t) => {
      if (target.kind !== 'postgres') return t.skip('SQLite runs one transaction at a time');
      await sql`delete from gc_probe`.execute(store.db);
      let acknowledged: () => void = () => undefined;
      const otherDone = new Promise<void>((resolve) => (acknowledged = resolve));
      let sawOther = false;
      const slow = store.writer.run('organisation A', async (trx) => {
        await insertProbe(trx, 10);
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000));
        await Promise.race([otherDone.then(() => (sawOther = true)), timeout]);
      });
      const other = store.writer.run('organisation B', (trx) => insertProbe(trx, 11));
      await other;
      acknowledged();
      await slow;
      assert.equal(sawOther, true, 'organisation B waited for organisation A');
      assert.deepEqual(await probeIds(observer), [10, 11]);
    });

    it('fails every write of a batch that cannot begin (SQLite busy), without running any', async (t) => {
      if (target.kind !== 'sqlite') return t.skip('SQLite only: another process holds the file');
      const holder = new SQLite(target.path);
      const busy = openStore(target, { busyWaitMs: 300 });
      let ran = 0;
      try {
        holder.exec('begin immediate');
        const started = Date.now();
        const results = await Promise.allSettled(
          [300, 301, 302, 303, 304, 305, 306, 307].map((id) =>
            busy.writer.run('org', async (trx) => {
              ran += 1;
              await insertProbe(trx, id);
            }),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.status),
          Array.from({ length: 8 }, () => 'rejected'),
        );
        assert.equal(ran, 0);
        // One wait of SQLITE_BUSY_WAIT_MS (300 ms) for the batch, not one more per write.
        assert.ok(Date.now() - started < 1200, `waited ${Date.now() - started} ms`);
      } finally {
        holder.exec('rollback');
        holder.close();
        await busy.close();
      }
    });

    it('runs every write in its own transaction when group commit is off', async () => {
      const single = openStore(target, { poolSize: 4, groupCommit: false });
      try {
        await Promise.all(
          [200, 201, 202].map((id) => single.writer.run('x', (trx) => insertProbe(trx, id))),
        );
        assert.deepEqual(single.writer.stats(), { batches: 3, writes: 3 });
      } finally {
        await single.close();
      }
    });
  });
}
