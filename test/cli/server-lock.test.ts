import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Proc } from '../callbacks/processes.js';
import { startServerProcess } from '../callbacks/processes.js';
import { esim, scratchDir, spawnEsim } from './helpers.js';

// One server process per SQLite file: a second `esim serve` on the same file is refused at start
// with one line pointing at PostgreSQL, CLI commands keep working beside the server, and a server
// that died without cleaning up never blocks the next start.

describe('one esim serve per SQLite file', () => {
  const data = scratchDir();
  const env = { DATA_DIR: data.path, LOG_LEVEL: 'silent', DEMO_ON_FIRST_START: 'false' };
  const servers: Proc[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.kill('SIGKILL')));
    data.remove();
  });

  async function readyz(server: Proc): Promise<number> {
    return (await fetch(`${server.url}/readyz`)).status;
  }

  it('refuses a second server on the same file with one line, and the first keeps serving', async () => {
    const first = await startServerProcess(env);
    servers.push(first);
    const second = spawnEsim({ ...env, PORT: '0' }, 'serve');
    assert.equal(await second.exited, 78);
    const lines = second.stderr().trimEnd().split('\n');
    assert.equal(lines.length, 1, second.stderr());
    assert.match(
      lines[0] ?? '',
      /^esim: configuration error: DATABASE_URL: .*esim\.sqlite is in use by another esim serve .*a SQLite database serves one instance; to run several, use PostgreSQL/,
    );
    assert.doesNotMatch(second.stdout(), /listening/);
    assert.equal(await readyz(first), 200);

    const created = await esim(env, 'org', 'create', '--name', 'Beside The Server', '--json');
    assert.equal(created.code, 0, created.err);
    const list = await esim(env, 'org', 'list');
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /Beside The Server/);
  });

  it('starts after a server was killed without cleaning up (SIGKILL)', async () => {
    const [first] = servers;
    assert.ok(first);
    await first.kill('SIGKILL');
    assert.ok(existsSync(join(data.path, 'esim.sqlite.lock')), 'the lock file is left behind');
    const next = await startServerProcess(env);
    servers.push(next);
    assert.equal(await readyz(next), 200);
    // The lock it now holds refuses another, as before.
    const third = spawnEsim({ ...env, PORT: '0' }, 'serve');
    assert.equal(await third.exited, 78);
  });

  it('lets the next server start after a clean stop', async () => {
    const running = servers.at(-1);
    assert.ok(running);
    await running.kill('SIGTERM');
    assert.equal(await running.exited, 0);
    const next = await startServerProcess(env);
    servers.push(next);
    assert.equal(await readyz(next), 200);
  });

  it('does not hold a second file: another data directory serves beside it', async () => {
    const other = scratchDir();
    try {
      const beside = await startServerProcess({ ...env, DATA_DIR: other.path });
      servers.push(beside);
      assert.equal(await readyz(beside), 200);
      await beside.kill('SIGTERM');
    } finally {
      other.remove();
    }
  });
});
