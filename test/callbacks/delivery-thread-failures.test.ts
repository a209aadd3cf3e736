import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseTarget } from '../../src/config.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { FR_1MB, buy, installAndAttach, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { deliveries } from './fixtures.js';

// CALLBACK_DELIVERY_THREAD=on, when things go wrong: a thread that cannot use its own database
// connection gives delivery back to the service's event loop, and a worker stopped after a drain
// lets go of the thread and its connection.

/** A log whose methods need their object, as the server's logger's do. */
class Lines {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  error(_details: object, message: string): void {
    this.errors.push(message);
  }
  warn(_details: object, message: string): void {
    this.warnings.push(message);
  }
}

/** The connections of the thread's PostgreSQL pool, as docs/callbacks.md gives them. */
const THREAD_POOL_SIZE = 4;

/** The thread's PostgreSQL connections, by the name they show in pg_stat_activity. */
async function threadConnections(t: TestApp): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and application_name = 'esim-callback-delivery'
  `.execute(t.deps.store.db);
  return Number(rows[0]?.n ?? 0);
}

for (const kind of DATABASES) {
  describe(`the callback delivery thread's failure paths [${kind}]`, () => {
    let receiver: Receiver;
    let dir = '';
    let serial = 0;

    before(async () => {
      receiver = await startReceiver();
      dir = mkdtempSync(join(tmpdir(), 'esim-delivery-thread-failures-'));
    });
    after(async () => {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** An app with the thread switched on (SQLite on a file: a second connection can open it). */
    async function threadApp(): Promise<{ t: TestApp; org: TestOrg; hook: string; path: string }> {
      serial += 1;
      const path = join(dir, `esim-${serial}.sqlite`);
      const t = await startTestApp(kind, {
        callbackDeliveryThread: true,
        callbackWorkerIntervalMs: 20,
        ...(kind === 'sqlite' ? { database: { kind: 'sqlite', path } } : {}),
      });
      await seedTestBundles(t);
      const hook = `/hook-${serial}`;
      const org = await t.createOrg({
        balance: 100_000,
        callbackUrl: `${receiver.url}${hook}`,
        callbackVersion: 'V3',
      });
      return { t, org, hook, path };
    }

    /** Install and attach on a new eSIM: callbacks queued; their number once all are delivered. */
    async function queueAndDeliver(t: TestApp, org: TestOrg, hook: string): Promise<number> {
      const before = (await deliveries(t, org.apiKey)).length;
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await installAndAttach(t, iccid);
      const all = await eventually(
        async () => {
          const seen = await deliveries(t, org.apiKey);
          return seen.length > before && seen.every((d) => d.status === 'delivered')
            ? seen
            : undefined;
        },
        20_000,
        'every callback delivered',
      );
      assert.equal(receiver.at(hook).length, all.length);
      return all.length;
    }

    /**
     * A worker whose thread is given `elsewhere` (a database the service's store is not using)
     * delivers on the event loop, says so once, and stays there when stopped and started again.
     */
    async function deliversAfterFailure(
      elsewhereOf: (t: TestApp) => DatabaseTarget,
    ): Promise<void> {
      const { t, org, hook } = await threadApp();
      let worker: CallbackWorker | undefined;
      try {
        const elsewhere = elsewhereOf(t);
        const log = new Lines();
        worker = createCallbackWorker(
          { ...t.deps, config: { ...t.deps.config, database: elsewhere } },
          log,
        );
        worker.start();
        await eventually(
          () => Promise.resolve(log.errors.length > 0 ? true : undefined),
          20_000,
          "the thread's failure logged",
        );
        assert.match(
          log.errors[0] ?? '',
          /^callback delivery thread failed: .+; delivering on the event loop$/,
        );

        const first = await queueAndDeliver(t, org, hook);
        // Stopped and started again, the worker stays on the event loop: no second thread fails.
        await worker.stop();
        worker.start();
        assert.ok((await queueAndDeliver(t, org, hook)) > first);
        await worker.stop();

        assert.equal(log.errors.length, 1, log.errors.join('\n'));
        assert.deepEqual(log.warnings, []);
        const open = (await deliveries(t, org.apiKey)).filter((d) => d.status !== 'delivered');
        assert.deepEqual(open, []);
      } finally {
        await worker?.stop();
        await t.close();
      }
    }

    it('delivers on the event loop when the thread cannot use its database connection', () =>
      // SQLite: a path the thread cannot open (under the service's database file: the thread
      // dies opening it); PostgreSQL: a database that does not exist (the thread's first read
      // fails when it starts, and it says so).
      deliversAfterFailure((t) =>
        t.deps.config.database.kind === 'sqlite'
          ? { kind: 'sqlite', path: join(t.deps.config.database.path, 'elsewhere.sqlite') }
          : { kind: 'postgres', url: missingDatabase(t.deps.config.database.url) },
      ));

    if (kind === 'sqlite') {
      it("delivers on the event loop when the thread's database has none of the service's tables", () =>
        // A new, empty file: the thread opens it, its first read fails, and it says so.
        deliversAfterFailure(() => ({
          kind: 'sqlite',
          path: join(dir, `empty-${serial}.sqlite`),
        })));
    }

    it('lets go of the thread and its database connection when stopped after a drain', async () => {
      const { t, org, hook, path } = await threadApp();
      let closed = false;
      try {
        const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
        await installAndAttach(t, iccid);
        const worker = createCallbackWorker(t.deps, { warn: () => undefined });
        await worker.drain();
        const sent = await deliveries(t, org.apiKey);
        assert.ok(sent.length > 0 && sent.every((d) => d.status === 'delivered'));
        assert.equal(receiver.at(hook).length, sent.length);
        // Between drains the thread keeps its connections, ready for the next: at least the one
        // it drained on, at most its pool's four (docs/callbacks.md). Its pool opens them as its
        // statements overlap, so how many of the four a drain needed is not fixed.
        if (kind === 'postgres') {
          const held = await threadConnections(t);
          assert.ok(held >= 1 && held <= THREAD_POOL_SIZE, `the thread holds ${held}`);
        }

        await worker.stop();
        if (kind === 'postgres') {
          // pg's pool ends before the server has seen every socket close.
          await eventually(
            async () => ((await threadConnections(t)) === 0 ? true : undefined),
            20_000,
            "the thread's connections closed",
          );
        } else {
          // SQLite removes the WAL file when its last connection closes: the service's is the
          // last, so the thread's has closed before it.
          await t.close();
          closed = true;
          assert.equal(existsSync(`${path}-wal`), false);
          assert.equal(existsSync(path), true);
        }
      } finally {
        if (!closed) await t.close();
      }
    });
  });
}

/** The URL with its database renamed to one that does not exist. */
function missingDatabase(url: string): string {
  const other = new URL(url);
  other.pathname = `${other.pathname}_missing`;
  return other.toString();
}
