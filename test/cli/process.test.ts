import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scratchDir, spawnEsim } from './helpers.js';

// bin/esim.js as a real process: output on the right streams and real exit codes.

describe('bin/esim.js', () => {
  it('creates an organisation and prints one JSON object', async () => {
    const data = scratchDir();
    try {
      const env = { DATABASE_URL: `sqlite:${join(data.path, 'cli.sqlite')}`, DATA_DIR: data.path };
      const run = spawnEsim(
        env,
        'org',
        'create',
        '--name',
        'Process Org',
        '--balance',
        '42',
        '--json',
      );
      assert.equal(await run.exited, 0, run.stderr());
      const created = JSON.parse(run.stdout()) as { id: string; apiKey: string; balance: number };
      assert.match(created.apiKey, /^esim_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.balance, 42);
      const list = spawnEsim(env, 'org', 'list');
      assert.equal(await list.exited, 0, list.stderr());
      assert.match(list.stdout(), new RegExp(`^${created.id}  Process Org  0\\.42 USD`, 'm'));
    } finally {
      data.remove();
    }
  });

  it('stops quietly when its reader closes stdout early (esim … | head)', async () => {
    const data = scratchDir();
    try {
      const env = { DATABASE_URL: `sqlite:${join(data.path, 'cli.sqlite')}`, DATA_DIR: data.path };
      const run = spawnEsim(env, 'catalogue', 'list');
      // Close the reading end after the first chunk, as `head -n 1` does.
      run.child.stdout?.once('data', () => run.child.stdout?.destroy());
      assert.equal(await run.exited, 0, run.stderr());
      assert.doesNotMatch(run.stderr(), /EPIPE|Error/);
    } finally {
      data.remove();
    }
  });

  it('exits 2 for bad arguments also when its reader has closed stderr (esim sim 2>&1 | head -1)', async () => {
    for (const argv of [['sim'], ['nonsense'], ['org', 'list', '--bogus']]) {
      const run = spawnEsim({}, ...argv);
      // The reading end closes before the command writes its usage: every write meets EPIPE.
      run.child.stderr?.destroy();
      assert.equal(await run.exited, 2, `esim ${argv.join(' ')}`);
    }
  });

  it('prints its help on stdout and exits 0', async () => {
    const run = spawnEsim({}, '--help');
    assert.equal(await run.exited, 0, run.stderr());
    assert.equal(run.stderr(), '');
    assert.match(
      run.stdout(),
      /^Usage: esim <command> \[options\]\n[\s\S]*esim serve[\s\S]*Exit codes: 0 done/,
    );
  });

  it('exits 2 with the usage on stderr for an unknown command', async () => {
    const run = spawnEsim({}, 'frobnicate');
    assert.equal(await run.exited, 2);
    assert.equal(run.stdout(), '');
    assert.match(run.stderr(), /unknown command "frobnicate"[\s\S]*Usage: esim <command>/);
  });
});
