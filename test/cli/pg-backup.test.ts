import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { DATABASES, freshDatabase } from '../databases.js';
import type { TestDatabase } from '../databases.js';
import { appFor, esim, scratchDir } from './helpers.js';

// PostgreSQL is backed up with its own tools (docs/operations.md): a pg_dump of a database that
// took orders restores with pg_restore into an empty database, where `esim ledger verify` passes
// and the service sees the same organisations, orders and balances. `esim backup` points there.

const run = promisify(execFile);

async function hasTool(name: string): Promise<boolean> {
  try {
    await run(name, ['--version']);
    return true;
  } catch {
    return false;
  }
}

const skip = !DATABASES.includes('postgres')
  ? 'PostgreSQL is not reachable'
  : !(await hasTool('pg_dump')) || !(await hasTool('pg_restore'))
    ? 'pg_dump and pg_restore are not installed'
    : false;

interface Snapshot {
  organisations: string;
  orders: string | null;
  balance: number;
}

async function snapshot(env: Record<string, string>, apiKey: string): Promise<Snapshot> {
  const list = await esim(env, 'org', 'list', '--json');
  assert.equal(list.code, 0, list.err);
  const { app, close } = await appFor(env);
  try {
    const headers = { 'x-api-key': apiKey };
    const orders = await app.inject({ method: 'GET', url: '/v2.1/orders', headers });
    const org = await app.inject({ method: 'GET', url: '/v2.1/organisation', headers });
    const balance = (org.json() as { organisations: { balance: number }[] }).organisations[0]
      ?.balance;
    return {
      organisations: list.out,
      orders: orders.headers['x-total-count']?.toString() ?? null,
      balance: balance ?? Number.NaN,
    };
  } finally {
    await close();
  }
}

describe('pg_dump and pg_restore of the PostgreSQL database', { skip }, () => {
  const dir = scratchDir();
  let source: TestDatabase | undefined;
  let target: TestDatabase | undefined;
  let env: Record<string, string> = {};
  let apiKey = '';
  after(async () => {
    await source?.drop();
    await target?.drop();
    dir.remove();
  });

  before(async () => {
    source = await freshDatabase('postgres');
    assert.equal(source.target.kind, 'postgres');
    env = { DATABASE_URL: source.target.url, DATA_DIR: dir.path, LOG_LEVEL: 'silent' };
    const created = await esim(
      env,
      ...['org', 'create', '--name', 'Dumped Org', '--balance', '100000'],
      ...['--groups', 'Standard eSIM Bundles', '--json'],
    );
    assert.equal(created.code, 0, created.err);
    apiKey = (JSON.parse(created.out) as { apiKey: string }).apiKey;
    const { app, close } = await appFor(env);
    try {
      const headers = { 'x-api-key': apiKey };
      const catalogue = await app.inject({
        method: 'GET',
        url: '/v2.1/catalogue?countries=FR',
        headers,
      });
      const bundle = (catalogue.json() as { name: string; price: number }[]).find(
        (b) => b.price > 0,
      );
      assert.ok(bundle);
      const item = bundle.name;
      for (let quantity = 1; quantity <= 5; quantity++) {
        const placed: LightMyRequestResponse = await app.inject({
          method: 'POST',
          url: '/v2.1/orders',
          headers,
          payload: {
            type: 'transaction',
            assign: false,
            order: [{ type: 'bundle', item, quantity }],
          },
        });
        assert.equal(placed.statusCode, 200, placed.body);
      }
    } finally {
      await close();
    }
  });

  it('restores into an empty database where the ledger verifies and nothing is missing', async () => {
    assert.ok(source?.target.kind === 'postgres');
    const dump = join(dir.path, 'esim.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, source.target.url]);

    target = await freshDatabase('postgres');
    assert.ok(target.target.kind === 'postgres');
    await run('pg_restore', [
      '--no-owner',
      '--exit-on-error',
      `--dbname=${target.target.url}`,
      dump,
    ]);
    const restoredEnv = { ...env, DATABASE_URL: target.target.url };

    const verify = await esim(restoredEnv, 'ledger', 'verify');
    assert.equal(verify.code, 0, verify.err);
    assert.match(verify.out, /the ledger balances/);
    const migrate = await esim(restoredEnv, 'migrate');
    assert.equal(migrate.out, 'database is up to date');

    const before = await snapshot(env, apiKey);
    assert.equal(before.orders, '5');
    assert.deepEqual(await snapshot(restoredEnv, apiKey), before);
  });

  it('esim backup and esim restore point PostgreSQL users to pg_dump', async () => {
    for (const command of ['backup', 'restore']) {
      const result = await esim(env, command, join(dir.path, 'x.sqlite'));
      assert.equal(result.code, 1);
      assert.match(result.err, /DATABASE_URL is PostgreSQL: back it up with pg_dump/);
    }
  });
});
