import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { esim, scratchDir, spawnEsimIn } from './helpers.js';
import type { Spawned } from './helpers.js';

// A CI run starts from a known state: `esim serve` with SEED_FILE loads the fixture on an empty
// database and prints each organisation's fixed key; under SIM_SEED two runs from an empty
// database issue the same ICCIDs; `esim sim export` / `import` save and restore the whole state
// and `esim sim reset --to-seed` goes back to the fixture. The servers are real processes, as is
// the first export (a command finding the server from its working folder); the other commands
// run in-process against them.

const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url));
const ACME = 'esim_AcmeTravelFixtureKey00000000000000000000001';

async function started(server: Spawned): Promise<string> {
  return eventually(
    async () => {
      if (server.child.exitCode !== null) throw new Error(`exited: ${server.stderr()}`);
      return /listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    },
    60_000,
    'the server to listen',
  );
}

/** A command as a real process started in `cwd`: it finds the server from its working folder. */
async function runProcess(cwd: string, env: Record<string, string>, ...argv: string[]) {
  const cli = spawnEsimIn(cwd, env, ...argv);
  const code = await cli.exited;
  return { code, out: cli.stdout(), err: cli.stderr() };
}

/** A command in-process, against the server whose data folder is in `cwd`. */
function run(cwd: string, env: Record<string, string>, ...argv: string[]) {
  return esim({ DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'silent', ...env }, ...argv);
}

async function iccidsOf(url: string): Promise<string[]> {
  const res = await fetch(`${url}/v2.1/esims`, { headers: { 'X-API-Key': ACME } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { esims: { iccid: string }[] }).esims.map((e) => e.iccid).sort();
}

describe('fixtures, seeds and snapshots through the CLI', () => {
  const first = scratchDir();
  const second = scratchDir();
  const servers: Spawned[] = [];
  const env = { SEED_FILE: SEED, SIM_SEED: '7', PORT: '0', LOG_LEVEL: 'warn' };
  after(async () => {
    for (const s of servers) {
      if (s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    }
    first.remove();
    second.remove();
  });

  let url = '';
  let seeded: string[] = [];

  it('loads the fixture on the first start and prints the fixed keys', async () => {
    const server = spawnEsimIn(first.path, env, 'serve');
    servers.push(server);
    url = await started(server);
    assert.match(
      server.stdout(),
      new RegExp(`Fixture organisation: Acme Travel \\(\\S+\\), API key ${ACME}, 2 eSIMs`),
    );
    assert.doesNotMatch(server.stdout(), /Demo organisation/);
    seeded = await iccidsOf(url);
    assert.equal(seeded.length, 2);
  });

  it('issues the same ICCIDs in another run from an empty database under the same SIM_SEED', async () => {
    const server = spawnEsimIn(second.path, env, 'serve');
    servers.push(server);
    const other = await started(server);
    assert.deepEqual(await iccidsOf(other), seeded);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('exports, then imports the whole state with the clock', async () => {
    const file = join(first.path, 'snapshot.json');
    const exported = await runProcess(first.path, {}, 'sim', 'export', file);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.out, /exported 2 organisations and 2 eSIMs at \S+ to /);
    assert.ok(existsSync(file));

    assert.equal((await run(first.path, {}, 'sim', 'advance', '--days', '8')).code, 0);
    const order = await fetch(`${url}/v2.1/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': ACME, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: 'esim_1GB_7D_FR_V2', quantity: 1 }],
      }),
    });
    assert.equal(order.status, 200);
    assert.equal((await iccidsOf(url)).length, 3);

    const imported = await run(first.path, {}, 'sim', 'import', file);
    assert.equal(imported.code, 0, imported.err);
    assert.match(imported.out, /imported 2 organisations and 2 eSIMs; the clock is at /);
    assert.deepEqual(await iccidsOf(url), seeded);
    const clock = JSON.parse((await run(first.path, {}, 'sim', 'clock')).out) as {
      offsetSeconds: number;
    };
    assert.ok(clock.offsetSeconds < 86_400, 'the clock is back where it was saved');

    writeFileSync(join(first.path, 'bad.json'), '{"format": "something else"}');
    const bad = await run(first.path, {}, 'sim', 'import', join(first.path, 'bad.json'));
    assert.equal(bad.code, 1);
    assert.match(bad.err, /answered 400: body field version is required/);
  });

  it('goes back to the seeded state with reset --to-seed', async () => {
    assert.equal((await run(first.path, {}, 'sim', 'advance', '--days', '2')).code, 0);
    const reset = await run(first.path, {}, 'sim', 'reset', '--to-seed');
    assert.equal(reset.code, 0, reset.err);
    assert.deepEqual(await iccidsOf(url), seeded);
    const clock = JSON.parse((await run(first.path, {}, 'sim', 'clock')).out) as {
      offsetSeconds: number;
    };
    assert.equal(clock.offsetSeconds, 0);
  });

  it('refuses a bad fixture file at start, naming the field (exit 78)', async () => {
    const dir = scratchDir();
    try {
      const file = join(dir.path, 'seed.json');
      writeFileSync(file, JSON.stringify({ organisations: [{ name: 'A', balance: 'lots' }] }));
      const server = spawnEsimIn(dir.path, { SEED_FILE: file, PORT: '0' }, 'serve');
      assert.equal(await server.exited, 78);
      assert.match(
        server.stderr(),
        /SEED_FILE: SEED_FILE .*seed\.json: organisations\/0\/balance: Expected integer/,
      );
    } finally {
      dir.remove();
    }
  });
});
