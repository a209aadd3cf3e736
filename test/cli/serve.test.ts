import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { esim, scratchDir, spawnEsim } from './helpers.js';
import type { Spawned } from './helpers.js';

// A newcomer's first minutes: `esim serve` on an empty data directory (the default SQLite file,
// a generated master key) prints a demo API key and a curl line that answer 200, and a restart
// keeps both working without creating a second demo organisation.

const STARTUP_MS = 60_000;

async function started(server: Spawned): Promise<string> {
  const listening = eventually(
    async () => {
      if (server.child.exitCode !== null) {
        throw new Error(`server exited early: ${server.stderr()}`);
      }
      return /listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    },
    STARTUP_MS,
    'the server to listen',
  );
  return listening.catch((error: unknown) => {
    throw new Error(`${String(error)}\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}`);
  });
}

async function stop(server: Spawned): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

interface OrganisationBody {
  organisations: {
    name: string;
    balance: number;
    users: { role: string; emailAddress: string }[];
  }[];
}

describe('esim serve, first start and restart', () => {
  const data = scratchDir();
  const env = { DATA_DIR: data.path, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  let running: Spawned | undefined;
  after(async () => {
    if (running !== undefined && running.child.exitCode === null) await stop(running);
    data.remove();
  });

  let apiKey = '';
  let masterKey = '';

  it('creates the demo organisation and prints its key and a curl line that works', async () => {
    running = spawnEsim(env, 'serve');
    const url = await started(running);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(url, /:0$/, 'the real port is printed');
    const out = running.stdout();
    apiKey = /^API key: (esim_\S+)$/m.exec(out)?.[1] ?? '';
    assert.ok(apiKey, out);
    const curl = /^Try it: +(curl .*)$/m.exec(out)?.[1];
    assert.equal(curl, `curl -H 'X-API-Key: ${apiKey}' ${url}/v2.1/organisation`);

    const res = await fetch(`${url}/v2.1/organisation`, { headers: { 'X-API-Key': apiKey } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as OrganisationBody;
    assert.equal(body.organisations[0]?.name, 'Demo Organisation');
    assert.equal(body.organisations[0]?.balance, 100_000);
    assert.deepEqual(
      body.organisations[0]?.users.map((u) => u.role),
      ['Admin'],
    );
    const byQuery = await fetch(`${url}/v2.1/organisation?api_key=${encodeURIComponent(apiKey)}`);
    assert.equal(byQuery.status, 200);
    const health = await fetch(`${url}/readyz`);
    assert.equal(health.status, 200);

    const keyFile = join(data.path, 'master.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the master key is private');
    masterKey = readFileSync(keyFile, 'utf8');
    assert.match(masterKey.trim(), /^[0-9a-f]{64}$/);
    assert.ok(existsSync(join(data.path, 'esim.sqlite')), 'the default SQLite file is used');
    assert.equal(running.stdout().includes(masterKey.trim()), false);

    assert.equal(await stop(running), 0);
    assert.match(running.stdout(), /SIGTERM received, shutting down[\s\S]*stopped/);
  });

  it('on restart reuses the master key, so the same key still works, and adds no demo', async () => {
    // Listening on every interface this time: the address printed is one a client can reach.
    running = spawnEsim({ ...env, HOST: '0.0.0.0' }, 'serve');
    const url = await started(running);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(running.stdout(), /API key:/);
    // Where the key is (the portal's Reveal), not a command that would replace it.
    const exists = /^Demo organisation (\S+) exists: (.*)$/m.exec(running.stdout());
    assert.ok(exists !== null, running.stdout());
    assert.equal(
      exists[2],
      `its API key is on the portal's API page, ${url}/portal/api ("Reveal key").`,
    );
    assert.doesNotMatch(running.stdout(), /rotate-key/);
    // A user added meanwhile gets a link to this server's real port (it is not 8080).
    const added = await esim(
      { DATA_DIR: data.path, LOG_LEVEL: 'silent' },
      'user',
      'add',
      exists[1] ?? '',
      '--email',
      'ops@demo.example',
      '--first-name',
      'Ops',
      '--last-name',
      'User',
      '--role',
      'Developer',
    );
    assert.equal(added.code, 0, added.err);
    const link = /set-password link .*: (\S+)$/m.exec(added.out)?.[1] ?? '';
    assert.ok(link.startsWith(`${url}/portal/set-password?token=`), added.out);
    assert.equal((await fetch(link)).status, 200, 'the link opens the set-password page');
    assert.equal(readFileSync(join(data.path, 'master.key'), 'utf8'), masterKey);
    const res = await fetch(`${url}/v2.1/organisation`, { headers: { 'X-API-Key': apiKey } });
    assert.equal(res.status, 200);
    assert.equal(await stop(running), 0);

    const list = await esim({ DATA_DIR: data.path, LOG_LEVEL: 'silent' }, 'org', 'list', '--json');
    assert.equal(list.code, 0, list.err);
    assert.equal((JSON.parse(list.out) as unknown[]).length, 1);
  });
});
