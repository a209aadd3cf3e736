import assert from 'node:assert/strict';
import type { AddressInfo, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { buildApp } from '../../src/app.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import type { DatabaseTarget } from '../../src/config.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { activityPause, adminOf, balanceOf, holdWrites } from './postgres-orders.js';

// A statement run outside any transaction (its own, committed by the server once it has run)
// whose connection is lost while it runs is answered for what it may have left, never 500:
// - a write, ended by the server (pg_terminate_backend: its FATAL is the statement's answer) or
//   cut with no answer: it may have stayed (the server commits around its answer), so 503
//   commit_unknown, no Retry-After; reading back shows what stayed;
// - a read wrote nothing: 503 database_busy, with Retry-After.
// And a top-up whose crediting COMMIT stayed but whose answer was lost (its connection's answers
// held by the relay, then cut) reads the top-up back and answers 200.
//
// The app reaches PostgreSQL through a relay the test can cut. The write held is the claim of a
// top-up's Idempotency-Key (one insert, before anything else of the request): a trigger the test
// adds makes it wait for an advisory lock the test holds. The read held is the organisation's,
// behind a lock the test takes on its table.

const HOLD = 4_310_002;
/** The lock the release of a claim waits for (a trigger on update), in the last test. */
const RELEASE_HOLD = 4_310_003;
/** The lock a top-up's crediting COMMIT waits for (a deferred trigger), in the read-back test. */
const CREDIT_HOLD = 4_310_004;

interface LogLine {
  level: number;
  msg: string;
  organisationId?: string;
  idempotencyKey?: string;
  err?: { code?: string };
}

/** The pid of this database's session waiting on a lock in a statement like `like`. */
async function waitingIn(
  admin: pg.Client,
  like: string,
  answered: Promise<unknown>,
): Promise<number> {
  let settled = false;
  void answered.finally(() => (settled = true)).catch(() => undefined);
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike $1",
      [like],
    );
    const pid = rows[0]?.pid;
    if (pid !== undefined) return pid;
    if (settled) throw new Error(`the request was answered before a statement like ${like} waited`);
    await activityPause();
  }
}

/** Until the session `pid` is idle: its last statement has ended. */
async function idleAfter(admin: pg.Client, pid: number): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ state: string }>(
      'select state from pg_stat_activity where pid = $1',
      [pid],
    );
    if (rows[0]?.state === 'idle') return;
    await activityPause();
  }
}

/** Until the session `pid` has ended. */
async function sessionEnded(admin: pg.Client, pid: number): Promise<void> {
  for (;;) {
    const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [pid]);
    if (rows.length === 0) return;
    await activityPause();
  }
}

describe(
  'PostgreSQL: a connection lost during a statement outside a transaction [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let admin: pg.Client;
    let direct: DatabaseTarget | undefined;
    const sockets = new Set<Socket>();
    const track = (socket: Socket, onClose: () => void): void => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        onClose();
      });
    };
    let upstream = { host: '127.0.0.1', port: 5432 };
    /** Each relayed connection, by the port PostgreSQL sees it from (pg_stat_activity). */
    const pairs = new Map<number, { client: Socket; server: Socket }>();
    const relay = createServer((client) => {
      const server = connect(upstream.port, upstream.host);
      server.on('connect', () => pairs.set(server.localPort ?? 0, { client, server }));
      track(client, () => server.destroy());
      track(server, () => client.destroy());
      client.pipe(server).pipe(client);
    });
    const pooled = () => t.deps.store.poolStats?.().total ?? 0;
    /**
     * Until the pool holds fewer than `count` connections: it has dropped the lost ones, which
     * it may otherwise hand out again before their end has reached it.
     */
    const poolBelow = async (count: number): Promise<void> => {
      while (pooled() >= count) await activityPause();
    };
    /** Cuts every connection of the app's, with no word to either side. */
    const cut = (): void => {
      for (const socket of sockets) socket.destroy();
    };

    before(async () => {
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const port = (relay.address() as AddressInfo).port;
      t = await startTestApp(
        'postgres',
        { apiKeyCacheMs: 0 },
        {
          connectTo(target) {
            assert.equal(target.kind, 'postgres');
            direct = target;
            const url = new URL(target.url);
            upstream = { host: url.hostname, port: Number(url.port === '' ? 5432 : url.port) };
            url.hostname = '127.0.0.1';
            url.port = String(port);
            return Promise.resolve({ kind: 'postgres', url: url.toString() });
          },
        },
      );
      org = await t.createOrg({ balance: 1000 });
      assert.ok(direct !== undefined);
      admin = await adminOf(direct);
      await holdWrites(admin, {
        name: 'hold_claim',
        table: 'idempotency_keys',
        timing: 'before insert',
        lock: HOLD,
      });
    });
    after(async () => {
      await admin.end();
      await t.close();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    });

    const topUp = (key: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=2500',
        headers: { 'idempotency-key': key },
      });
    const claims = async (key: string): Promise<number> => {
      const { rows } = await admin.query<{ n: number }>(
        'select count(*)::int as n from idempotency_keys where organisation_id = $1 and idem_key = $2',
        [org.id, key],
      );
      return rows[0]?.n ?? -1;
    };

    /** Sends a top-up whose claim waits for HOLD, and `lose`s the claiming session meanwhile. */
    async function claimLost(key: string, lose: (pid: number) => Promise<void>) {
      await admin.query(`select pg_advisory_lock(${HOLD})`);
      try {
        const answer = topUp(key);
        const pid = await waitingIn(admin, 'insert into "idempotency_keys"%', answer);
        const held = pooled();
        await lose(pid);
        return { response: await answer, pid, held };
      } finally {
        await admin.query(`select pg_advisory_unlock(${HOLD})`);
      }
    }

    it("answers 200 when the credit's COMMIT stayed but its answer was lost: the top-up is read back", async () => {
      const payer = await t.createOrg({ balance: 1000 });
      await saveCard(t.deps, payer.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      await holdWrites(admin, {
        name: 'hold_credit',
        table: 'topups',
        timing: 'after update',
        lock: CREDIT_HOLD,
        deferred: true,
        when: "new.status = 'succeeded'",
      });
      const before = await balanceOf(admin, payer.id);
      await admin.query(`select pg_advisory_lock(${CREDIT_HOLD})`);
      let held = true;
      try {
        const answer = t.request(payer.apiKey, {
          method: 'POST',
          url: '/v2.1/organisation/balance?amount=2500',
          headers: { 'idempotency-key': 'credit-read-back' },
        });
        // The credit's COMMIT waits in the server; its connection's answers are held from here.
        const pid = await waitingIn(admin, 'commit', answer);
        const { rows } = await admin.query<{ port: number }>(
          'select client_port as port from pg_stat_activity where pid = $1',
          [pid],
        );
        const pair = pairs.get(rows[0]?.port ?? -1);
        assert.ok(pair !== undefined, 'the relayed connection of the COMMIT');
        pair.server.unpipe(pair.client);
        await admin.query(`select pg_advisory_unlock(${CREDIT_HOLD})`);
        held = false;
        // The commit is done once the session idles; then its connection goes, unanswered.
        await idleAfter(admin, pid);
        pair.client.destroy();
        pair.server.destroy();
        const response = await answer;
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json<{ amount: number }>().amount, 2500);
      } finally {
        if (held) await admin.query(`select pg_advisory_unlock(${CREDIT_HOLD})`);
        await admin.query('drop trigger hold_credit on topups');
      }
      assert.equal(await balanceOf(admin, payer.id), before + 2500, 'credited once');
      const { rows } = await admin.query<{ action: string }>(
        "select action from audit_log where organisation_id = $1 and action like 'topup.%' order by id",
        [payer.id],
      );
      assert.deepEqual(
        rows.map((row) => row.action),
        ['topup.succeeded'],
      );
    });

    it('answers 503 commit_unknown without Retry-After for a write the server ended; read back, it left nothing', async () => {
      const { response, held } = await claimLost('ended-claim', async (pid) => {
        await admin.query('select pg_terminate_backend($1)', [pid]);
      });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers['retry-after'], undefined);
      assert.equal(response.json<{ code: string }>().code, 'commit_unknown');
      assert.equal(await claims('ended-claim'), 0, 'the claim was not kept');
      // Ended while it waited, nothing stayed: the same key is free, and the request runs (no
      // saved card: a 400).
      await poolBelow(held);
      const again = await topUp('ended-claim');
      assert.equal(again.statusCode, 400, again.body);
      assert.equal(again.json<{ code: string }>().code, 'no_card');
    });

    it('answers 503 commit_unknown without Retry-After for a write whose connection was cut, which may have stayed', async () => {
      const { response, pid } = await claimLost('cut-claim', () => {
        cut();
        return Promise.resolve();
      });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers['retry-after'], undefined);
      const body = response.json<{ code: string; message: string }>();
      assert.equal(body.code, 'commit_unknown');
      assert.match(body.message, /may or may not have been saved/);
      assert.match(body.message, /same Idempotency-Key/);
      // The server never saw the client go: once the lock let it, the insert ran and committed.
      await sessionEnded(admin, pid);
      assert.equal(await claims('cut-claim'), 1, 'the claim was kept, its answer lost');
      await poolBelow(1);
    });

    it('answers 503 database_busy with Retry-After for a read whose connection was cut', async () => {
      // The lock is held in a transaction of another connection: pg_stat_activity, read inside a
      // transaction, would show what it showed at its first read.
      const holder = await adminOf(direct ?? t.config.database);
      let pid: number | undefined;
      try {
        await holder.query('begin');
        await holder.query('lock table organisations in access exclusive mode');
        const answer = t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
        pid = await waitingIn(admin, 'select % from "organisations" %', answer);
        cut();
        const response = await answer;
        await poolBelow(1);
        assert.equal(response.statusCode, 503, response.body);
        assert.equal(response.headers['retry-after'], '1');
        assert.deepEqual(response.json(), {
          code: 'database_busy',
          message: 'the database is busy; retry shortly',
        });
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      await sessionEnded(admin, pid);
      const read = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(read.statusCode, 200, read.body);
    });

    it('logs a claim it could not release at warn, and answers the request with its own error', async () => {
      await holdWrites(admin, {
        name: 'hold_release',
        table: 'idempotency_keys',
        timing: 'before update',
        lock: RELEASE_HOLD,
      });
      const lines: LogLine[] = [];
      const logged = await buildApp(t.deps, {
        logLevel: 'warn',
        logStream: { write: (line) => lines.push(JSON.parse(line) as LogLine) },
      });
      await logged.ready();
      await admin.query(`select pg_advisory_lock(${RELEASE_HOLD})`);
      try {
        // No saved card: the top-up is refused 400, and the refusal stored with the claim is
        // the update held, then ended.
        const answer = logged.inject({
          method: 'POST',
          url: '/v2.1/organisation/balance?amount=2500',
          headers: { 'x-api-key': org.apiKey, 'idempotency-key': 'release-lost' },
        });
        const pid = await waitingIn(admin, 'update "idempotency_keys"%', answer);
        await admin.query('select pg_terminate_backend($1)', [pid]);
        const response = await answer;
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json<{ code: string }>().code, 'no_card');
      } finally {
        await admin.query(`select pg_advisory_unlock(${RELEASE_HOLD})`);
        await logged.close();
      }
      const line = lines.find((entry) => entry.msg.startsWith('the Idempotency-Key could not'));
      assert.ok(line !== undefined, JSON.stringify(lines));
      assert.equal(line.level, 40);
      assert.equal(line.organisationId, org.id);
      assert.equal(line.idempotencyKey, 'release-lost');
      assert.equal(line.err?.code, 'COMMIT_UNKNOWN');
    });
  },
);
