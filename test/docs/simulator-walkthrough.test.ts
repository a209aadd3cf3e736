import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scratchDir } from '../cli/helpers.js';
import type { Shell } from './walkthrough.js';
import {
  bash,
  installEsimCommand,
  startWalkthroughServer,
  stopShell,
  walkthroughEnv,
} from './walkthrough.js';

// docs/simulator.md's walk-through runs as printed: its shell blocks, taken from the page, run
// with bash in an empty folder where `npx esim` finds the package's command in
// node_modules/.bin, as in a project that installed the package. The block that starts the
// server runs in the background; the blocks after it run as one terminal session. The only
// setting added is PORT=0, so that the server takes a free port (the walk-through reads the
// address from data/server.json).

describe('the simulator walk-through of docs/simulator.md', () => {
  const dir = scratchDir();
  const env = walkthroughEnv();
  let server: Shell | undefined;

  after(async () => {
    await stopShell(server);
    dir.remove();
  });

  it('runs as printed: fixture, server, network, journal, snapshots, reset to the fixture', async () => {
    installEsimCommand(dir.path);
    const started = await startWalkthroughServer(dir.path, env);
    server = started.server;
    assert.ok(existsSync(join(dir.path, 'seed.yaml')));
    assert.match(server.out(), /Fixture organisation: Acme Travel/);

    // npx found `esim` in node_modules/.bin for the blocks above (the fixture, the server); in
    // the blocks below `npx esim` runs that same file without npx's own half second of
    // processor per call, so the walk's time goes to the service's commands.
    const bin = join(dir.path, 'node_modules', '.bin', 'esim');
    const npxEsim = `npx() { if [ "\${1-}" = esim ]; then shift; '${bin}' "$@"; else command npx "$@"; fi; }\n`;
    const run = await bash(npxEsim + started.rest.join('\n'), dir.path, env).done;
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /^89\d{17} fleet-1$/m, 'the fixture eSIM is listed');
    assert.match(run.out, /^Active$/m, 'the new bundle is Active after 400 MB');

    // The journal: the three calls made with the key, newest first, by the CLI and by the route.
    const call = (method: string, path: string) =>
      new RegExp(`^\\S+Z {2}${method} +${path} +200 +\\d+ ms {2}org [0-9a-f-]{36}$`, 'm');
    assert.match(run.out, call('GET', '/v2\\.1/esims/89\\d{17}/bundles'));
    assert.match(run.out, call('POST', '/v2\\.1/orders'));
    assert.match(run.out, call('GET', '/v2\\.1/esims'));
    assert.match(run.out, /^3 calls, newest first$/m);
    assert.match(
      run.out,
      /^GET \/v2\.1\/esims\/89\d{17}\/bundles 200\nPOST \/v2\.1\/orders 200\nGET \/v2\.1\/esims 200$/m,
    );

    assert.match(run.out, /^the eSIMs are those saved$/m);
    assert.match(run.out, /^1$/m, 'back to the fixture: one eSIM');
    const clock = /\{[^{}]*"offsetSeconds"[^{}]*\}\s*$/.exec(run.out)?.[0] ?? '{}';
    assert.equal((JSON.parse(clock) as { offsetSeconds?: number }).offsetSeconds, 0, run.out);
    assert.ok(existsSync(join(dir.path, 'snapshot.json')));
  });
});
