import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { AppDeps } from '../../src/deps.js';
import { createApiKeyCache } from '../../src/security/key-cache.js';
import { openStore } from '../../src/store/database.js';
import type { Store } from '../../src/store/database.js';
import { DATABASES, TEST_POOL_SIZE, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { POSTGRES_ADMIN_URL } from '../databases.js';

// PostgreSQL refuses a new connection when a role is at its CONNECTION LIMIT (53300, as for
// max_connections). A read outside a transaction, as a GET makes, asks for its connection again
// after a pause, so a connection freed meanwhile serves it; after the bounded tries the refusal
// is a 503 database_busy with Retry-After. A burst of refusals is logged once at warn level.
// The app connects as a role of this test's own with a limit below its pool's size (superusers
// ignore limits), and the test holds the role's connections with plain clients.

const LIMIT = 2;
const WARNING =
  'PostgreSQL refused a connection; asking again after a pause (logged once until it accepts one)';
const AGAIN = 'PostgreSQL accepted a connection again after refusing some';
const POOL_FULL =
  "Every connection of this instance's database pool stayed busy for DATABASE_CONNECT_TIMEOUT_MS; answering 503 at once (logged once until the pool keeps up)";
const POOL_KEEPS_UP =
  'The database pool keeps up again: a connection handed out with no request waiting';
/** The lines that connection-retry.ts writes. */
const CONNECTION_LINES = new Set([WARNING, AGAIN, POOL_FULL, POOL_KEEPS_UP]);

interface LogLine {
  level: number;
  msg: string;
  refusals?: number;
  timeouts?: number;
  err?: { code?: string; message?: string };
}

describe(
  'PostgreSQL connections refused, asked for again',
  {
    skip: DATABASES.includes('postgres')
      ? false
      : 'PostgreSQL is not in this run (unreachable, or TEST_DATABASES=sqlite)',
  },
  () => {
    const role = `esim_limited_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    let roleUrl = '';
    let databaseUrl = '';
    let t: TestApp;
    let org: TestOrg;
    let app: FastifyInstance;
    const lines: LogLine[] = [];
    let onLine: (() => void) | undefined;
    // The pause between tries, as each test sets it; `pauses` counts them.
    let pause: (attempt: number) => Promise<void> = () => Promise.resolve();
    let pauses = 0;
    const held: pg.Client[] = [];

    const admin = async <T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await run(client);
      } finally {
        await client.end();
      }
    };
    const asAdmin = (url: string): string => {
      const at = new URL(POSTGRES_ADMIN_URL);
      const to = new URL(url);
      to.username = at.username;
      to.password = at.password;
      return to.toString();
    };
    const roleConnections = () =>
      admin(POSTGRES_ADMIN_URL, async (c) => {
        const r = await c.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where usename = $1',
          [role],
        );
        return Number(r.rows[0]?.n ?? 0);
      });

    /** Ends the held clients and the pool's, then holds every connection the role may have. */
    async function holdAll(): Promise<void> {
      await Promise.all(held.splice(0).map((client) => client.end()));
      await admin(POSTGRES_ADMIN_URL, (c) =>
        c.query('select pg_terminate_backend(pid) from pg_stat_activity where usename = $1', [
          role,
        ]),
      );
      // Progress: the pool drops each client whose backend ended, and the server frees its slot.
      await eventually(
        async () => (t.deps.store.poolStats?.().total === 0 ? true : undefined),
        30_000,
        'the pool to drop its clients',
      );
      await eventually(
        async () => ((await roleConnections()) === 0 ? true : undefined),
        30_000,
        "the role's connections to end",
      );
      while (held.length < LIMIT) {
        const client = new pg.Client({ connectionString: roleUrl });
        client.on('error', () => undefined);
        await client.connect();
        held.push(client);
      }
    }

    const getOrganisation = () =>
      app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': org.apiKey },
      });
    const refusedLines = () => lines.filter((line) => line.msg === WARNING);

    before(async () => {
      t = await startTestApp(
        'postgres',
        { apiKeyCacheMs: 0 },
        {
          async connectTo(target) {
            assert.equal(target.kind, 'postgres');
            databaseUrl = target.url;
            await admin(asAdmin(databaseUrl), async (c) => {
              await c.query(
                `create role ${role} login password '${password}' connection limit ${LIMIT}`,
              );
              await c.query(`grant all on schema public to ${role}`);
              await c.query(`grant all on all tables in schema public to ${role}`);
              await c.query(`grant all on all sequences in schema public to ${role}`);
            });
            const url = new URL(databaseUrl);
            url.username = role;
            url.password = password;
            roleUrl = url.toString();
            return { kind: 'postgres', url: roleUrl };
          },
          connectRetry: {
            pause: (attempt) => {
              pauses += 1;
              return pause(attempt);
            },
          },
        },
      );
      org = await t.createOrg();
      app = await buildApp(t.deps, {
        logLevel: 'info',
        logStream: {
          write: (line) => {
            const entry = JSON.parse(line) as LogLine;
            if (CONNECTION_LINES.has(entry.msg)) {
              lines.push(entry);
              onLine?.();
            }
          },
        },
      });
      await app.ready();
    });

    after(async () => {
      await Promise.all(held.splice(0).map((client) => client.end()));
      await app?.close();
      // The role's grants go before its database, whose drop goes on in the background.
      if (databaseUrl !== '') {
        await admin(asAdmin(databaseUrl), (c) => c.query(`drop owned by ${role}`)).catch(() => {});
      }
      await t?.close();
      await admin(POSTGRES_ADMIN_URL, (c) => c.query(`drop role if exists ${role}`));
    });

    it('serves a GET once a connection is freed while it waits', async () => {
      await holdAll();
      lines.length = 0;
      pauses = 0;
      // The retry waits for the test: a held connection is freed first (progress, not time).
      let freed!: () => void;
      const connectionFreed = new Promise<void>((resolve) => {
        freed = resolve;
      });
      pause = () => connectionFreed;
      const seen = new Promise<void>((resolve) => {
        onLine = () => {
          if (refusedLines().length > 0) resolve();
        };
      });
      const answer = getOrganisation();
      await seen;
      const [first] = held.splice(0, 1);
      await first?.end();
      await eventually(
        async () => ((await roleConnections()) < LIMIT ? true : undefined),
        30_000,
        'the freed connection to end',
      );
      freed();
      const res = await answer;
      assert.equal(res.statusCode, 200, res.body);
      const [answered] = res.json<{ organisations: { apiKey: string }[] }>().organisations;
      assert.equal(answered?.apiKey, org.apiKey);
      assert.equal(pauses, 1, 'one refusal, one pause, then a connection');
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg, line.err?.code, line.refusals]),
        [
          [40, WARNING, '53300', undefined],
          [30, AGAIN, undefined, 1],
        ],
      );
      // The call journaled now, not while the next test holds every connection.
      await t.deps.journal?.flush();
    });

    it('answers 503 database_busy with Retry-After after the bounded tries; logs the burst once', async () => {
      await holdAll();
      lines.length = 0;
      pauses = 0;
      const attempts: number[] = [];
      pause = (attempt) => {
        attempts.push(attempt);
        return Promise.resolve();
      };
      const answers = await Promise.all([getOrganisation(), getOrganisation(), getOrganisation()]);
      for (const res of answers) {
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.headers['retry-after'], '1');
        assert.deepEqual(res.json(), {
          message: 'the database is busy; retry shortly',
          code: 'database_busy',
        });
      }
      assert.equal(pauses, 3 * 2, 'three tries each, with a pause between');
      assert.deepEqual(attempts.sort(), [1, 1, 1, 2, 2, 2], 'each pause told its try');
      // A write's transaction asks for its connection as a read does, and is not run again on top.
      const install = await app.inject({
        method: 'POST',
        url: '/_sim/esims/8944000000000000019/install',
        payload: {},
      });
      assert.equal(install.statusCode, 503, install.body);
      assert.equal(install.json<{ code: string }>().code, 'database_busy');
      assert.equal(pauses, 4 * 2, 'one connection asked for three times, the transaction run once');
      assert.equal(refusedLines().length, 1, 'one warning for the burst, not one per request');
      // A connection freed, the next request is served.
      await Promise.all(held.splice(0).map((client) => client.end()));
      const res = await getOrganisation();
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg, line.refusals]),
        [
          [40, WARNING, undefined],
          [30, AGAIN, 12],
        ],
      );
    });
  },
);

// PostgreSQL out of reach or not ready, through a local relay to it that the test switches:
// - down or restarting: the relay's port refuses new connections (ECONNREFUSED) before any word
//   from the server; the test closes it and opens it again on the same port;
// - silent: the relay takes a connection and never answers, as a host gone or a firewall that
//   drops packets does; the pool gives it up after DATABASE_CONNECT_TIMEOUT_MS (short here, on a
//   second app with a store of its own: the test app keeps the default, so that a connection
//   PostgreSQL is slow to answer on a loaded machine does not fail the other tests);
// - starting up: the relay answers the next connections as PostgreSQL does while it starts
//   (FATAL 57P03 after the startup message), then relays again.
// Each is asked for again like a refused connection; after the bounded tries a request is
// answered 503 database_busy, not 500, and once PostgreSQL answers again it is served. The same
// timeout bounds a wait for the pool's own connections when the test holds every one (the short
// store again): answered 503 at once, logged as the pool's shortage, not as PostgreSQL's refusal;
// and a connection the relay drops while its query runs fails that query, not the process.
describe(
  'PostgreSQL unreachable',
  {
    skip: DATABASES.includes('postgres')
      ? false
      : 'PostgreSQL is not in this run (unreachable, or TEST_DATABASES=sqlite)',
  },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let app: FastifyInstance;
    let port = 0;
    let upstream = { host: '127.0.0.1', port: 5432 };
    let pauses = 0;
    const lines: LogLine[] = [];
    const sockets = new Set<Socket>();
    // What the relay does with its next connections: `silent` takes them and never answers;
    // while `startingUp` is above 0 each takes one and answers 57P03.
    let silent = false;
    let startingUp = 0;
    let silenced = 0;
    let relayUrl = '';
    const track = (socket: Socket, onClose: () => void = () => undefined): void => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        onClose();
      });
    };
    const relay = createServer((client) => {
      if (silent) {
        silenced += 1;
        track(client);
        // Read and dropped, so that the end of the connection is seen.
        client.resume();
        return;
      }
      if (startingUp > 0) {
        startingUp -= 1;
        track(client);
        answerStartingUp(client);
        return;
      }
      const server = connect(upstream.port, upstream.host);
      track(client, () => server.destroy());
      track(server, () => client.destroy());
      client.pipe(server).pipe(client);
    });
    const open = () =>
      new Promise<void>((resolve) => {
        relay.listen(port, '127.0.0.1', () => {
          port = (relay.address() as AddressInfo).port;
          resolve();
        });
      });
    /** Drops every connection through the relay, and waits until the pools have let go of them. */
    const dropConnections = async (...others: Store[]) => {
      for (const socket of sockets) socket.destroy();
      for (const store of [t.deps.store, ...others]) {
        await eventually(
          async () => (store.poolStats?.().total === 0 ? true : undefined),
          30_000,
          'the pool to drop its clients',
        );
      }
    };
    /**
     * The calls journaled so far written now (the journal writes a few seconds after a call, which
     * would take a connection in the middle of a test), then every connection dropped.
     */
    const settle = async (...others: Store[]) => {
      await t.deps.journal?.flush();
      await dropConnections(...others);
    };
    /** The relay stops listening and drops every connection: PostgreSQL is gone for the app. */
    const down = async () => {
      const closed = new Promise<void>((resolve) => relay.close(() => resolve()));
      await dropConnections();
      await closed;
    };
    const organisation = (on: FastifyInstance = app) =>
      on.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': org.apiKey },
      });
    const assertBusy = (res: Awaited<ReturnType<typeof organisation>>) => {
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(res.json<{ code: string }>().code, 'database_busy');
    };

    before(async () => {
      await open();
      t = await startTestApp(
        'postgres',
        { apiKeyCacheMs: 0 },
        {
          async connectTo(target) {
            assert.equal(target.kind, 'postgres');
            const url = new URL(target.url);
            upstream = { host: url.hostname, port: Number(url.port === '' ? 5432 : url.port) };
            url.hostname = '127.0.0.1';
            url.port = String(port);
            relayUrl = url.toString();
            return { kind: 'postgres', url: relayUrl };
          },
          connectRetry: {
            pause: () => {
              pauses += 1;
              return Promise.resolve();
            },
          },
        },
      );
      org = await t.createOrg();
      app = await buildApp(t.deps, {
        logLevel: 'info',
        logStream: {
          write: (line) => {
            const entry = JSON.parse(line) as LogLine;
            if (CONNECTION_LINES.has(entry.msg)) lines.push(entry);
          },
        },
      });
      await app.ready();
    });

    /**
     * Runs `test` with an app of its own on the same database through the relay, whose store has
     * a pool of `poolSize` and a short DATABASE_CONNECT_TIMEOUT_MS (500 ms), so that a try is
     * given up soon; its log's connection lines and the pauses between its tries are its own.
     */
    async function withShortTimeout(
      poolSize: number,
      test: (short: {
        app: FastifyInstance;
        store: Store;
        lines: LogLine[];
        pauses: () => number;
      }) => Promise<void>,
    ): Promise<void> {
      let shortPauses = 0;
      const shortLines: LogLine[] = [];
      const store = openStore(
        { kind: 'postgres', url: relayUrl },
        {
          poolSize,
          connectTimeoutMs: 500,
          connectRetry: {
            pause: () => {
              shortPauses += 1;
              return Promise.resolve();
            },
          },
        },
      );
      // Its own store, and the key cache that reads it; no journal, whose writes would go to the
      // test app's pool.
      const deps: AppDeps = {
        ...t.deps,
        store,
        apiKeys: createApiKeyCache({ db: store.db, clock: t.deps.clock, stalenessMs: 0 }),
        journal: undefined,
      };
      const shortApp = await buildApp(deps, {
        logLevel: 'info',
        logStream: {
          write: (line) => {
            const entry = JSON.parse(line) as LogLine;
            if (CONNECTION_LINES.has(entry.msg)) shortLines.push(entry);
          },
        },
      });
      try {
        await shortApp.ready();
        await settle(store);
        await test({ app: shortApp, store, lines: shortLines, pauses: () => shortPauses });
      } finally {
        silent = false;
        for (const socket of sockets) socket.destroy();
        await shortApp.close();
        await store.close();
      }
    }

    // The relay relays again after each test, whatever became of it; a connection still waiting
    // for an answer (a test that failed) fails, so the pool can close.
    afterEach(() => {
      silent = false;
      startingUp = 0;
      for (const socket of sockets) socket.destroy();
    });

    after(async () => {
      if (!relay.listening) await open();
      await app?.close();
      await t?.close();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
    });

    it('answers 503 database_busy after the bounded tries, and serves again once it is back', async () => {
      assert.equal((await organisation()).statusCode, 200);
      await t.deps.journal?.flush();
      await down();
      pauses = 0;
      assertBusy(await organisation());
      assert.equal(pauses, 2, 'three tries, with a pause between');
      await open();
      assert.equal((await organisation()).statusCode, 200);
    });

    // Without a connect timeout the request waits as long as the relay stays silent: the test's
    // own timeout then fails it.
    it(
      'gives up a connection PostgreSQL never answers, then answers 503 database_busy after the bounded tries',
      { timeout: 60_000 },
      async () => {
        await withShortTimeout(TEST_POOL_SIZE, async (short) => {
          silent = true;
          silenced = 0;
          assertBusy(await organisation(short.app));
          assert.equal(short.pauses(), 2, 'three tries, with a pause between');
          assert.equal(silenced, 3, 'a connection per try');
          // Progress: the pool ends each connection it gave up, and the relay sees it close.
          await eventually(
            async () => (sockets.size === 0 ? true : undefined),
            30_000,
            'the connections given up to close',
          );
          silent = false;
          // Served again. A connection PostgreSQL is slow to answer on a loaded machine may
          // outlast the short timeout too: asked until served, in the same burst.
          await eventually(
            async () => ((await organisation(short.app)).statusCode === 200 ? true : undefined),
            30_000,
            'a request served once PostgreSQL answers',
          );
          assert.deepEqual(
            short.lines.map((line) => [line.level, line.msg, line.err?.code]),
            [
              [40, WARNING, '08001'],
              [30, AGAIN, undefined],
            ],
          );
          assert.ok((short.lines[1]?.refusals ?? 0) >= 3, JSON.stringify(short.lines[1]));
          // The log's message of an error goes on with its causes' (pg's own).
          assert.match(
            short.lines[0]?.err?.message ?? '',
            /^could not connect to PostgreSQL: Connection terminated due to connection timeout\b/,
          );
        });
      },
    );

    it('asks again while PostgreSQL is starting up (57P03): served once it accepts, 503 if it never does', async () => {
      await settle();
      lines.length = 0;
      pauses = 0;
      startingUp = 2;
      const served = await organisation();
      assert.equal(served.statusCode, 200, served.body);
      assert.equal(pauses, 2, 'refused twice, then relayed');
      assert.equal(startingUp, 0);

      await settle();
      pauses = 0;
      startingUp = 3;
      assertBusy(await organisation());
      assert.equal(pauses, 2, 'three tries, with a pause between');
      assert.equal(startingUp, 0);
      assert.equal((await organisation()).statusCode, 200);
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg, line.err?.code, line.refusals]),
        [
          [40, WARNING, '57P03', undefined],
          [30, AGAIN, undefined, 2],
          [40, WARNING, '57P03', undefined],
          [30, AGAIN, undefined, 3],
        ],
      );
    });

    it('fails a query whose connection is lost while it runs, and serves the next request', async () => {
      // Without a listener on the connection in use, its 'error' event would end the process.
      await settle();
      const running = sql`select pg_sleep(60)`.execute(t.deps.store.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      await eventually(
        async () => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and state = 'active' and query = 'select pg_sleep(60)'
          `.execute(t.deps.store.db);
          return rows[0]?.n === 1 ? true : undefined;
        },
        30_000,
        'the query to run',
      );
      await dropConnections();
      assert.match(String(await running), /Connection terminated unexpectedly/);
      assert.equal((await organisation()).statusCode, 200);
    });

    it("answers 503 database_busy at once when every connection of the pool stays busy for the timeout, logged as the pool's shortage", async () => {
      const size = 2;
      await withShortTimeout(size, async (short) => {
        // Every connection of the short app's pool taken, until the test lets them go. Opening
        // one may outlast the short timeout on a loaded machine: each is asked for until taken.
        let letGo!: () => void;
        const released = new Promise<void>((resolve) => {
          letGo = resolve;
        });
        const holders: Promise<void>[] = [];
        while (holders.length < size) {
          const { held } = await eventually(
            async () => {
              let taken!: () => void;
              const isTaken = new Promise<'taken'>((resolve) => {
                taken = () => resolve('taken');
              });
              const holding = short.store.db.connection().execute(async () => {
                taken();
                await released;
              });
              const outcome = await Promise.race([
                isTaken,
                holding.then(
                  () => 'ended',
                  () => 'failed',
                ),
              ]);
              return outcome === 'taken' ? { held: holding } : undefined;
            },
            30_000,
            'a connection of the pool taken',
          );
          holders.push(held);
        }
        const pausesBefore = short.pauses();
        const linesBefore = short.lines.length;
        try {
          // Two requests wait, and neither gets a connection in time.
          const answers = await Promise.all([organisation(short.app), organisation(short.app)]);
          for (const res of answers) assertBusy(res);
          assert.equal(short.pauses(), pausesBefore, 'not asked for again: 503 at once');
        } finally {
          // Let go whatever became of them, so that the pool can close.
          letGo();
          await Promise.all(holders);
        }
        // A connection handed out with no request waiting ends the burst.
        assert.equal((await organisation(short.app)).statusCode, 200);
        const logged = short.lines.slice(linesBefore);
        assert.deepEqual(
          logged.map((line) => [line.level, line.msg, line.err?.code, line.timeouts]),
          [
            [40, POOL_FULL, 'POOL_FULL', undefined],
            [30, POOL_KEEPS_UP, undefined, 2],
          ],
        );
        assert.match(
          logged[0]?.err?.message ?? '',
          /^all 2 connections of this instance's database pool stayed busy for 500 ms \(in use, or being opened\); no request was sent to PostgreSQL: timeout exceeded when trying to connect$/,
        );
        // Not told as PostgreSQL refusing a connection.
        assert.deepEqual(
          logged.filter((line) => line.msg === WARNING),
          [],
        );
      });
    });

    it('answers 503 database_busy, not 500, when its database does not exist (3D000: dropped under it)', async () => {
      const missing = new URL(relayUrl);
      missing.pathname = `/esim_missing_${randomBytes(4).toString('hex')}`;
      const store = openStore(
        { kind: 'postgres', url: missing.toString() },
        { poolSize: 2, connectRetry: { pause: () => Promise.resolve() } },
      );
      const deps: AppDeps = {
        ...t.deps,
        store,
        apiKeys: createApiKeyCache({ db: store.db, clock: t.deps.clock, stalenessMs: 0 }),
        journal: undefined,
      };
      const missingApp = await buildApp(deps, { logLevel: 'silent' });
      try {
        await missingApp.ready();
        assertBusy(await organisation(missingApp));
      } finally {
        await missingApp.close();
        await store.close();
      }
    });
  },
);

/**
 * A PostgreSQL ErrorResponse message: 'E', its length (itself included), then each field as a
 * code byte and a null-terminated string, and a final null byte.
 */
function errorResponse(fields: Readonly<Record<string, string>>): Buffer {
  const body = Buffer.from(
    `${Object.entries(fields)
      .map(([code, value]) => `${code}${value}\0`)
      .join('')}\0`,
  );
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const STARTING_UP = errorResponse({
  S: 'FATAL',
  V: 'FATAL',
  C: '57P03',
  M: 'the database system is starting up',
});

/** Answers as PostgreSQL does while it starts: FATAL 57P03 once the startup message is in, then closes. */
function answerStartingUp(client: Socket): void {
  let received = Buffer.alloc(0);
  let answered = false;
  client.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    // The startup message begins with its length, itself included.
    if (!answered && received.length >= 4 && received.length >= received.readInt32BE(0)) {
      answered = true;
      client.end(STARTING_UP);
    }
  });
}
