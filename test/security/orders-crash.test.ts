import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DatabaseTarget } from '../../src/config.js';
import { openStore } from '../../src/store/database.js';
import type { Store } from '../../src/store/database.js';
import { cliDatabase, runCli } from '../callbacks/cli-env.js';
import type { CliDatabase } from '../callbacks/cli-env.js';
import { startServerProcess } from '../callbacks/processes.js';
import type { Proc } from '../callbacks/processes.js';
import { DATABASES } from '../harness.js';

// Orders cut by a crash: 24 clients place orders as fast as the server takes them (each with a
// unique Idempotency-Key, spread over four organisations, so group commits of several orders are
// under way) until the server is killed with SIGKILL. After a restart: every order that was
// acknowledged (200 with its reference) is there and reads back; nothing is half-written (every
// order has its line, its inventory batch and its journal entry, and no batch or journal entry
// lacks its order); every balance is its opening amount less the orders kept; the idempotency
// records of the kept orders replay their answer; and `esim ledger verify` passes.

const CLIENTS = 24;
const ORGANISATIONS = 4;
const OPENING = 1_000_000_000;

interface Org {
  id: string;
  apiKey: string;
}

interface Acknowledged {
  org: Org;
  key: string;
  reference: string;
  total: number;
}

function targetOf(url: string): DatabaseTarget {
  return url.startsWith('sqlite:')
    ? { kind: 'sqlite', path: url.slice('sqlite:'.length) }
    : { kind: 'postgres', url };
}

function order(server: Proc, org: Org, bundle: string, key: string): Promise<Response> {
  return fetch(`${server.url}/v2.1/orders`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': org.apiKey,
      'idempotency-key': key,
    },
    body: JSON.stringify({
      type: 'transaction',
      assign: false,
      order: [{ type: 'bundle', item: bundle, quantity: 1 }],
    }),
  });
}

/** One client: orders until a request fails to get an answer (the server is gone). */
async function client(
  server: Proc,
  org: Org,
  bundle: string,
  acknowledged: Acknowledged[],
): Promise<void> {
  for (;;) {
    const key = randomUUID();
    let res: Response;
    try {
      res = await order(server, org, bundle, key);
    } catch {
      return;
    }
    const body = (await res.json().catch(() => undefined)) as
      { orderReference?: string; total?: number } | undefined;
    if (res.status !== 200 || body?.orderReference === undefined) {
      throw new Error(`order answered ${res.status}: ${JSON.stringify(body)}`);
    }
    acknowledged.push({ org, key, reference: body.orderReference, total: body.total ?? 0 });
  }
}

for (const kind of DATABASES) {
  describe(`security: orders cut by SIGKILL under load [${kind}]`, () => {
    let db: CliDatabase;
    let env: Record<string, string>;
    let store: Store;
    const orgs: Org[] = [];
    const servers: Proc[] = [];

    before(async () => {
      db = await cliDatabase(kind);
      env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir };
      for (let i = 0; i < ORGANISATIONS; i += 1) {
        const created = await runCli(
          ['org', 'create', '--name', `Crash Orders ${i}`, '--balance', String(OPENING), '--json'],
          env,
        );
        assert.equal(created.code, 0, created.err);
        orgs.push(JSON.parse(created.out) as Org);
      }
      store = openStore(targetOf(db.url), { poolSize: 2 });
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.kill('SIGKILL')));
      await store?.close();
      await db?.drop();
    });

    it('keeps every acknowledged order, whole, and nothing else, with a ledger that verifies', async (t) => {
      const first = await startServerProcess(env);
      servers.push(first);
      const anyOrg = orgs[0];
      assert.ok(anyOrg !== undefined);
      const catalogue = await fetch(`${first.url}/v2.1/catalogue?perPage=1`, {
        headers: { 'x-api-key': anyOrg.apiKey },
      });
      const bundle = ((await catalogue.json()) as { name: string }[])[0]?.name;
      assert.ok(bundle !== undefined, 'the built-in catalogue has a bundle');

      const acknowledged: Acknowledged[] = [];
      const clients = Array.from({ length: CLIENTS }, (_, i) =>
        client(first, orgs[i % ORGANISATIONS] ?? anyOrg, bundle, acknowledged),
      );
      // Kill once the load is well under way (or after 4 s on a very slow machine).
      const started = Date.now();
      while (acknowledged.length < 300 && Date.now() - started < 4000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.kill('SIGKILL');
      await Promise.all(clients);
      assert.ok(acknowledged.length > 0, 'some orders were acknowledged before the kill');
      t.diagnostic(`${acknowledged.length} orders acknowledged before SIGKILL`);

      const second = await startServerProcess(env);
      servers.push(second);
      await checkKept(store, second, acknowledged, orgs);
      const verify = await runCli(['ledger', 'verify'], env);
      assert.equal(verify.code, 0, `${verify.out}\n${verify.err}`);
    });
  });
}

async function checkKept(
  store: Store,
  server: Proc,
  acknowledged: readonly Acknowledged[],
  orgs: readonly Org[],
): Promise<void> {
  const db = store.db;
  const orders = await db.selectFrom('orders').select(['reference', 'total']).execute();
  const kept = new Set(orders.map((o) => o.reference));
  const missing = acknowledged.filter((a) => !kept.has(a.reference));
  assert.deepEqual(missing, [], 'acknowledged orders missing after the restart');

  const items = await db.selectFrom('order_items').select('order_reference').execute();
  const batches = await db.selectFrom('inventory_batches').select('order_reference').execute();
  const entries = await db
    .selectFrom('ledger_entries')
    .select(['reference', 'balance_delta'])
    .where('kind', '=', 'order')
    .execute();
  const count = (refs: readonly string[]) =>
    refs.reduce((m, r) => m.set(r, (m.get(r) ?? 0) + 1), new Map<string, number>());
  for (const [what, refs] of [
    ['line', items.map((i) => i.order_reference)],
    ['inventory batch', batches.map((b) => b.order_reference)],
    ['journal entry', entries.map((e) => e.reference)],
  ] as const) {
    const byOrder = count(refs);
    for (const o of orders) assert.equal(byOrder.get(o.reference), 1, `${what} of ${o.reference}`);
    for (const r of byOrder.keys()) assert.ok(kept.has(r), `${what} without its order: ${r}`);
  }
  const charged = orders.reduce((sum, o) => sum + Number(o.total), 0);
  const balances = await db.selectFrom('organisations').select(['id', 'balance']).execute();
  const total = balances
    .filter((b) => orgs.some((o) => o.id === b.id))
    .reduce((sum, b) => sum + Number(b.balance), 0);
  assert.equal(
    total,
    OPENING * orgs.length - charged,
    'balances are the opening less the orders kept',
  );

  // Through the restarted server: a sample of acknowledged orders reads back, and replaying its
  // Idempotency-Key answers with the same order.
  const bundle = (await db.selectFrom('order_items').select('item').executeTakeFirstOrThrow()).item;
  for (const a of acknowledged.filter((_, i) => i % Math.ceil(acknowledged.length / 20) === 0)) {
    const read = await fetch(`${server.url}/v2.1/orders/${a.reference}`, {
      headers: { 'x-api-key': a.org.apiKey },
    });
    assert.equal(read.status, 200, `GET order ${a.reference}`);
    const replay = await order(server, a.org, bundle, a.key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await replay.json()) as { orderReference: string }).orderReference, a.reference);
  }
}
