import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { scratchDir, spawnEsimIn } from './helpers.js';
import type { Spawned } from './helpers.js';

// The CLI finds a local server by itself: a running simulator records its address in its data
// folder, and `esim sim …` reads it; otherwise HOST and PORT as the server reads them, and
// ESIM_URL or --url when given. Reproduces `PORT=41873 node bin/esim.js sim clock`, which once
// answered "cannot reach http://127.0.0.1:8080".

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

async function run(cwd: string, env: Record<string, string>, ...argv: string[]) {
  const cli = spawnEsimIn(cwd, env, ...argv);
  const code = await cli.exited;
  return { code, out: cli.stdout(), err: cli.stderr() };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('the CLI finds the running server', () => {
  const checkout = scratchDir();
  const elsewhere = scratchDir();
  let server: Spawned | undefined;
  let port = 0;
  after(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    checkout.remove();
    elsewhere.remove();
  });

  it('reads the address the server recorded in its data folder', async () => {
    port = await freePort();
    // Another server of this data folder in the middle of writing its record (servers started
    // at once on one PostgreSQL database): its temporary file is its own, and so is this one's.
    mkdirSync(join(checkout.path, 'data', 'server.json.tmp'), { recursive: true });
    server = spawnEsimIn(checkout.path, { PORT: String(port), LOG_LEVEL: 'warn' }, 'serve');
    const url = await started(server);
    assert.equal(url, `http://127.0.0.1:${port}`);
    assert.ok(existsSync(join(checkout.path, 'data', 'server.json')));
    // No PORT, no URL: the record in ./data says where the server is.
    const clock = await run(checkout.path, {}, 'sim', 'clock');
    assert.equal(clock.code, 0, clock.err);
    assert.match(JSON.parse(clock.out).now, /^\d{4}-\d\d-\d\dT/);
  });

  it('uses PORT as the server does when there is no record', async () => {
    const clock = await run(elsewhere.path, { PORT: String(port) }, 'sim', 'clock');
    assert.equal(clock.code, 0, clock.err);
    assert.match(JSON.parse(clock.out).now, /^\d{4}-\d\d-\d\dT/);
  });

  it('prefers ESIM_URL and --url to the record', async () => {
    const wrong = `http://127.0.0.1:${await freePort()}`;
    const byEnv = await run(checkout.path, { ESIM_URL: wrong }, 'sim', 'clock');
    assert.equal(byEnv.code, 1);
    assert.match(byEnv.err, new RegExp(`cannot reach ${wrong}`));
    assert.doesNotMatch(byEnv.err, /production/);
    // A shell set for production is told why there is no simulator to reach.
    const production = await run(
      checkout.path,
      { ESIM_URL: wrong, MODE: 'production' },
      'sim',
      'clock',
    );
    assert.equal(production.code, 1);
    assert.match(production.err, /a production server has no \/_sim/);
    const byFlag = await run(
      checkout.path,
      { ESIM_URL: wrong },
      'sim',
      'clock',
      '--url',
      `http://127.0.0.1:${port}`,
    );
    assert.equal(byFlag.code, 0, byFlag.err);
  });

  it('removes the record when the server stops', async () => {
    assert.ok(server !== undefined);
    server.child.kill('SIGTERM');
    await server.exited;
    assert.equal(existsSync(join(checkout.path, 'data', 'server.json')), false);
  });
});
