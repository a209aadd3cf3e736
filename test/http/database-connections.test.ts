import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
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

interface LogLine {
  level: number;
  msg: string;
  refusals?: number;
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
            if (entry.msg.startsWith('PostgreSQL')) {
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
//   drops packets does; the pool gives it up after DATABASE_CONNECT_TIMEOUT_MS (the app's is
//   short here);
// - starting up: the relay answers the next connections as PostgreSQL does while it starts
//   (FATAL 57P03 after the startup message), then relays again.
// Each is asked for again like a refused connection; after the bounded tries a request is
// answered 503 database_busy, not 500, and once PostgreSQL answers again it is served. The same
// timeout bounds a wait for the pool's own connections when the test holds every one; and a
// connection the relay drops while its query runs fails that query, not the process.
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
    /** Drops every connection through the relay, and waits until the pool has let go of them. */
    const dropConnections = async () => {
      for (const socket of sockets) socket.destroy();
      await eventually(
        async () => (t.deps.store.poolStats?.().total === 0 ? true : undefined),
        30_000,
        'the pool to drop its clients',
      );
    };
    /**
     * The calls journaled so far written now (the journal writes a few seconds after a call, which
     * would take a connection in the middle of a test), then every connection dropped.
     */
    const settle = async () => {
      await t.deps.journal?.flush();
      await dropConnections();
    };
    /** The relay stops listening and drops every connection: PostgreSQL is gone for the app. */
    const down = async () => {
      const closed = new Promise<void>((resolve) => relay.close(() => resolve()));
      await dropConnections();
      await closed;
    };
    const organisation = () =>
      app.inject({
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
        // Short, so that the silent relay's connections are given up soon; long enough for a
        // connection that PostgreSQL answers, on a loaded machine.
        { apiKeyCacheMs: 0, databaseConnectTimeoutMs: 500 },
        {
          async connectTo(target) {
            assert.equal(target.kind, 'postgres');
            const url = new URL(target.url);
            upstream = { host: url.hostname, port: Number(url.port === '' ? 5432 : url.port) };
            url.hostname = '127.0.0.1';
            url.port = String(port);
            return { kind: 'postgres', url: url.toString() };
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
            if (entry.msg.startsWith('PostgreSQL')) lines.push(entry);
          },
        },
      });
      await app.ready();
    });

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
        await settle();
        silent = true;
        silenced = 0;
        pauses = 0;
        lines.length = 0;
        assertBusy(await organisation());
        assert.equal(pauses, 2, 'three tries, with a pause between');
        assert.equal(silenced, 3, 'a connection per try');
        // Progress: the pool ends each connection it gave up, and the relay sees it close.
        await eventually(
          async () => (sockets.size === 0 ? true : undefined),
          30_000,
          'the connections given up to close',
        );
        silent = false;
        assert.equal((await organisation()).statusCode, 200);
        assert.deepEqual(
          lines.map((line) => [line.level, line.msg, line.err?.code, line.refusals]),
          [
            [40, WARNING, '08001', undefined],
            [30, AGAIN, undefined, 3],
          ],
        );
        // The log's message of an error goes on with its causes' (pg's own).
        assert.match(
          lines[0]?.err?.message ?? '',
          /^could not connect to PostgreSQL: Connection terminated due to connection timeout\b/,
        );
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

    it('answers 503 database_busy when no connection of the pool comes free within the timeout', async () => {
      await settle();
      lines.length = 0;
      pauses = 0;
      // Every connection of the app's pool taken, until the test lets them go.
      let letGo!: () => void;
      const released = new Promise<void>((resolve) => {
        letGo = resolve;
      });
      let taken = 0;
      let allTaken!: () => void;
      const everyTaken = new Promise<void>((resolve) => {
        allTaken = resolve;
      });
      const holders = Array.from({ length: TEST_POOL_SIZE }, () =>
        t.deps.store.db.connection().execute(async () => {
          taken += 1;
          if (taken === TEST_POOL_SIZE) allTaken();
          await released;
        }),
      );
      await everyTaken;
      assertBusy(await organisation());
      assert.equal(pauses, 2, 'three waits, with a pause between');
      letGo();
      await Promise.all(holders);
      assert.equal((await organisation()).statusCode, 200);
      // The burst ends when a new connection is made.
      await dropConnections();
      assert.equal((await organisation()).statusCode, 200);
      assert.deepEqual(
        lines.map((line) => [line.level, line.msg, line.err?.code, line.refusals]),
        [
          [40, WARNING, '08001', undefined],
          [30, AGAIN, undefined, 3],
        ],
      );
      assert.match(
        lines[0]?.err?.message ?? '',
        /^could not connect to PostgreSQL: timeout exceeded when trying to connect\b/,
      );
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
