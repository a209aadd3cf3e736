import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DATABASES, eventually } from '../harness.js';
import type { Received } from '../receiver.js';
import { cliDatabase, runCli } from './cli-env.js';
import type { CliDatabase } from './cli-env.js';
import { startReceiverProcess, startServerProcess } from './processes.js';
import type { Proc, ReceiverProc } from './processes.js';

// Durability of the outbox: with callbacks flowing, a server is killed with SIGKILL; every event
// it had recorded must still reach the receiver (at least once), checked against the receiver's
// own log. On PostgreSQL two instances share the database: no event may be delivered by both at
// the same time, and none may be lost when one of them dies. The scenarios share one receiver
// process, each with a callback path of its own (its behaviour and its part of the log).

const ESIMS = 20;
const EVENTS_PER_ESIM = 6; // FirstAttachment, FirstUse, Utilisation 1/50/80/100 %

const SERVER_ENV = {
  CALLBACK_CONCURRENCY: '4',
  // One organisation here: room for both instances to deliver its callbacks at once.
  CALLBACK_ORG_CONCURRENCY: '8',
  // The receiver is slower than the timeout at first: its endpoint must not be paused for it,
  // nor backed off for long.
  CALLBACK_PAUSE_AFTER: '100000',
  CALLBACK_BACKOFF_MAX_SECONDS: '1',
  CALLBACK_TIMEOUT_MS: '1000',
  CALLBACK_CONNECT_TIMEOUT_MS: '500',
  CALLBACK_WORKER_INTERVAL_MS: '50',
  // Enough retries that no event fails for good while the receiver is slower than the timeout
  // (the events produced first are retried for as long as the production lasts).
  CALLBACK_RETRY_SCHEDULE: ['0.2', '0.5', ...Array.from({ length: 38 }, () => '1')].join(','),
};

/** Times a call answered 503 database_busy is made in all. */
const BUSY_ATTEMPTS = 10;

/** How long the deliveries may stand still before the wait for them fails. */
const STALL_MS = 30_000;

interface Delivery {
  id: string;
  status: string;
}

/** The receiver process the scenarios share, and the log it appends every callback to. */
class SharedReceiver {
  dir = '';
  logFile = '';
  process: ReceiverProc | undefined;

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'esim-receiver-'));
    this.logFile = join(this.dir, 'receiver.jsonl');
    this.process = await startReceiverProcess(['--log', this.logFile]);
  }

  async stop(): Promise<void> {
    await this.process?.kill('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

class Scenario {
  db!: CliDatabase;
  env!: Record<string, string>;
  receiver!: ReceiverProc;
  logFile!: string;
  /** The scenario's callback path on the shared receiver. */
  hook: string;
  org!: { id: string; apiKey: string };
  servers: Proc[] = [];
  /** The receiver's log as read so far, and how many of its bytes that is. */
  private logged: Received[] = [];
  private logBytes = 0;

  constructor(
    private readonly shared: SharedReceiver,
    name: string,
  ) {
    this.hook = `/hook-${name}`;
  }

  async setUp(kind: 'sqlite' | 'postgres'): Promise<void> {
    this.db = await cliDatabase(kind);
    assert.ok(this.shared.process !== undefined, 'the shared receiver is running');
    this.receiver = this.shared.process;
    this.logFile = this.shared.logFile;
    // Slow while events are produced, so the kill surely comes mid-flow; fast afterwards.
    await this.slow();
    this.env = { DATABASE_URL: this.db.url, DATA_DIR: this.db.dataDir, ...SERVER_ENV };
    const created = await runCli(
      [
        'org',
        'create',
        '--name',
        'Durable',
        '--balance',
        '10000000',
        '--no-card',
        '--callback-url',
        `${this.receiver.url}${this.hook}`,
        '--callback-version',
        'V3',
        '--json',
      ],
      this.env,
    );
    assert.equal(created.code, 0, created.err);
    this.org = JSON.parse(created.out);
  }

  async tearDown(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.kill('SIGKILL')));
    await this.db?.drop();
  }

  /** The receiver answers this scenario's callbacks after a second (past the timeout). */
  slow(): Promise<void> {
    return this.receiver.behave(this.hook, { delayMs: 1000 });
  }

  /** The receiver answers this scenario's callbacks at once. */
  fast(): Promise<void> {
    return this.receiver.behave(this.hook, { delayMs: 20 });
  }

  async startServer(): Promise<Proc> {
    const server = await startServerProcess(this.env);
    this.servers.push(server);
    return server;
  }

  /**
   * One API or simulator call, which must succeed. A 503 database_busy (the shared PostgreSQL
   * server out of connections on a loaded machine) is retried after its Retry-After, as an
   * integrator would: it wrote nothing. Any other error, a 500 above all, fails.
   */
  async call(
    server: Proc,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt += 1) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': this.org.apiKey, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const retryAfter = Number(res.headers.get('retry-after'));
      if (res.status === 503 && text.includes('"database_busy"') && attempt < BUSY_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        continue;
      }
      // A 5xx comes with the servers' logs, where the service logged the error behind it.
      const logs = res.status >= 500 ? `\n${this.servers.map((s) => s.output()).join('\n')}` : '';
      assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}${logs}`);
      return JSON.parse(text) as Record<string, unknown>;
    }
  }

  /** Buys eSIMs and drives each through attach and use of its whole bundle: 6 events each. */
  async produceEvents(server: Proc): Promise<void> {
    const catalogue = (await this.call(
      server,
      'GET',
      '/v2.1/catalogue?countries=FR&orderBy=dataAmount',
    )) as unknown as {
      name: string;
      dataAmount: number;
      unlimited: boolean;
    }[];
    const bundle = catalogue.find((b) => !b.unlimited && b.dataAmount > 0);
    assert.ok(bundle);
    const order = await this.call(server, 'POST', '/v2.1/orders', {
      type: 'transaction',
      assign: true,
      order: [{ type: 'bundle', item: bundle.name, quantity: ESIMS }],
    });
    const iccids = (order['order'] as { iccids: string[] }[])[0]?.iccids ?? [];
    assert.equal(iccids.length, ESIMS);
    const bytes = bundle.dataAmount * 1_000_000;
    // The eSIMs side by side, each one's steps in order: the server commits them in groups
    // instead of one request at a time.
    await Promise.all(
      iccids.map(async (iccid) => {
        await this.call(server, 'POST', `/_sim/esims/${iccid}/install`, {});
        await this.call(server, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR' });
        for (const share of [0.6, 0.25, 0.15]) {
          await this.call(server, 'POST', `/_sim/esims/${iccid}/usage`, {
            bytes: Math.round(bytes * share),
          });
        }
      }),
    );
  }

  async outbox(server: Proc): Promise<Delivery[]> {
    const body = await this.call(server, 'GET', '/v2.1/callbacks?perPage=500');
    return body['callbacks'] as Delivery[];
  }

  /**
   * The receiver's log of this scenario's callbacks: its lines read so far and those it appended
   * since (only whole lines; the log is only ever appended to), so a wait that asks often does not
   * parse it all again.
   */
  log(): Received[] {
    // The receiver makes its log with the first callback it receives.
    if (!existsSync(this.logFile)) return [];
    const size = statSync(this.logFile).size;
    if (size > this.logBytes) {
      const added = Buffer.alloc(size - this.logBytes);
      const fd = openSync(this.logFile, 'r');
      try {
        readSync(fd, added, 0, added.length, this.logBytes);
      } finally {
        closeSync(fd);
      }
      const whole = added.lastIndexOf(0x0a) + 1;
      this.logBytes += whole;
      for (const line of added.subarray(0, whole).toString('utf8').split('\n')) {
        if (line === '') continue;
        const received = JSON.parse(line) as Received;
        if (received.path === this.hook) this.logged.push(received);
      }
    }
    return [...this.logged];
  }

  /** Waits until the receiver's log holds enough callbacks that deliveries are under way. */
  async flowing(atLeast: number): Promise<void> {
    await eventually(
      async () => (this.log().length >= atLeast ? true : undefined),
      30_000,
      'callbacks flowing',
    );
  }

  /** The outbox once every event in it is delivered (see everyEventDelivered for the wait). */
  async allDelivered(server: Proc): Promise<Delivery[]> {
    let seen = -1;
    let movedAt = Date.now();
    for (;;) {
      const rows = await this.outbox(server);
      const delivered = rows.filter((r) => r.status === 'delivered').length;
      if (rows.length === ESIMS * EVENTS_PER_ESIM && delivered === rows.length) return rows;
      const progress = delivered + this.log().length;
      if (progress !== seen) {
        seen = progress;
        movedAt = Date.now();
      }
      assert.ok(
        Date.now() - movedAt < STALL_MS,
        `no callback delivered for ${STALL_MS} ms: ${JSON.stringify(rows.filter((r) => r.status !== 'delivered'))}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Waits for every outbox event to be delivered; checks the log covers each of them. The wait
   * follows progress: it lasts as long as deliveries keep arriving, however slowly a loaded
   * machine makes them, and fails only when nothing moved for STALL_MS (more than a lapsed lease,
   * a retry round and a restart together), so a real loss still fails.
   */
  async everyEventDelivered(server: Proc): Promise<{ outbox: Delivery[]; log: Received[] }> {
    const outbox = await this.allDelivered(server);
    const log = this.log();
    const logged = new Set(
      log.filter((r) => r.status === 200).map((r) => String(r.headers['x-event-id'])),
    );
    const missing = outbox.filter((e) => !logged.has(e.id));
    assert.deepEqual(missing, [], 'every event in the outbox reached the receiver');
    return { outbox, log };
  }
}

function overlapping(log: readonly Received[]): string[] {
  const byEvent = new Map<string, Received[]>();
  for (const r of log) {
    const id = String(r.headers['x-event-id']);
    byEvent.set(id, [...(byEvent.get(id) ?? []), r]);
  }
  const clashes: string[] = [];
  for (const [id, list] of byEvent) {
    const sorted = [...list].sort((a, b) => a.receivedAt - b.receivedAt);
    for (let i = 1; i < sorted.length; i += 1) {
      const prev = sorted[i - 1];
      const cur = sorted[i];
      if (prev !== undefined && cur !== undefined && cur.receivedAt < prev.respondedAt)
        clashes.push(id);
    }
  }
  return clashes;
}

// The scenarios, each on a database and servers of its own, mostly wait on the servers' deliveries:
// they run side by side.
describe('callbacks and SIGKILL', { concurrency: true }, () => {
  const receiver = new SharedReceiver();
  before(() => receiver.start());
  after(() => receiver.stop());

  for (const kind of DATABASES) {
    describe(`callbacks survive SIGKILL and restart [${kind}]`, { concurrency: 1 }, () => {
      const s = new Scenario(receiver, `restart-${kind}`);
      before(() => s.setUp(kind));
      after(() => s.tearDown());

      it('delivers every event recorded before the kill at least once', async () => {
        const first = await s.startServer();
        await s.produceEvents(first);
        await s.flowing(4);
        await first.kill('SIGKILL');
        assert.ok(s.log().length < ESIMS * EVENTS_PER_ESIM, 'the kill came mid-flow');
        await s.fast();

        const second = await s.startServer();
        const { log } = await s.everyEventDelivered(second);
        assert.deepEqual(overlapping(log), []);
      });
    });
  }

  if (DATABASES.includes('postgres')) {
    describe(
      'two instances on one PostgreSQL database, one killed mid-flow',
      { concurrency: 1 },
      () => {
        const s = new Scenario(receiver, 'two-instances');
        before(() => s.setUp('postgres'));
        after(() => s.tearDown());

        it('never delivers an event from both at once and loses none', async () => {
          const a = await s.startServer();
          const b = await s.startServer();
          await s.produceEvents(a);
          const instancesSeen = (): number =>
            new Set(
              s.log().map((r) => /instance\/(\S+)/.exec(String(r.headers['user-agent']))?.[1]),
            ).size;
          // On a loaded machine the second instance may claim its first callbacks a little later:
          // follow the deliveries until both have sent some, while most are still to come.
          for (let n = 12; n <= (ESIMS * EVENTS_PER_ESIM) / 2 && instancesSeen() < 2; n += 4) {
            await s.flowing(n);
          }
          assert.equal(instancesSeen(), 2, 'both instances were delivering');
          await a.kill('SIGKILL');
          await s.fast();
          const { log } = await s.everyEventDelivered(b);
          assert.deepEqual(
            overlapping(log),
            [],
            'no event was delivered by two instances at the same time',
          );
        });
      },
    );
  }
});
