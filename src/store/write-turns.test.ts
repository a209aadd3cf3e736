import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from './database.js';
import { WriteTurns, YIELD_MS } from './write-turns.js';

// The turns at SQLite's write lock between the service's connection (it yields) and the callback
// delivery thread's (it asks): the service waits for the thread's transaction before its own next
// BEGIN, but never beyond the bound, however long the thread holds its turn.

describe('turns at the SQLite write lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'esim-write-turns-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('bounds the wait of the yielding connection at 50 ms, as docs/callbacks.md says', () => {
    assert.equal(YIELD_MS, 50);
    const docs = readFileSync(new URL('../../docs/callbacks.md', import.meta.url), 'utf8');
    assert.ok(docs.replace(/\s+/g, ' ').includes(`at most ${YIELD_MS} ms for that transaction`));
  });

  it('lets the yielding connection go on while the other still holds its turn', async () => {
    const service = new WriteTurns();
    const thread = new WriteTurns(service.buffer);
    // Held, and never given back until both waits below have ended.
    thread.ask();
    await service.yieldTo();
    // Again: a turn held on is no reason to wait longer the next time either.
    await service.yieldTo();
    thread.done();
    await service.yieldTo();
  });

  it("runs the service's writes while the delivery connection holds its turn", async () => {
    const store = openStore({ kind: 'sqlite', path: join(dir, 'turns.sqlite') });
    try {
      assert.ok(store.writeTurns !== undefined, 'a SQLite file has turns');
      await sql`create table turn_probe (id integer primary key)`.execute(store.db);
      // The delivery thread's connection asks for its turn and keeps it until both writes are in.
      const thread = new WriteTurns(store.writeTurns.buffer);
      thread.ask();
      await store.writer.run('probe', async (trx) => {
        await sql`insert into turn_probe (id) values (1)`.execute(trx);
      });
      await store.db
        .transaction()
        .execute((trx) => sql`insert into turn_probe (id) values (2)`.execute(trx));
      const { rows } = await sql<{ id: number }>`select id from turn_probe order by id`.execute(
        store.db,
      );
      assert.deepEqual(
        rows.map((r) => r.id),
        [1, 2],
      );
      thread.done();
    } finally {
      await store.close();
    }
  });
});
