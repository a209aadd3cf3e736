import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { parseExposition } from '../prometheus-text.js';
import { esim, scratchDir, spawnEsim } from './helpers.js';
import type { Spawned } from './helpers.js';

// `esim serve` in production mode, as an operator runs it: rate limits on by default, /metrics
// only on METRICS_PORT (with the process metrics), never on the public port.

const STARTUP_MS = 60_000;

describe('esim serve in production: metrics port and rate limits', () => {
  const data = scratchDir();
  const env = {
    MODE: 'production',
    MASTER_KEY: 'cd'.repeat(32),
    DATABASE_URL: `sqlite:${join(data.path, 'esim.sqlite')}`,
    DATA_DIR: data.path,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  let server: Spawned | undefined;
  after(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    data.remove();
  });

  it('serves /metrics on its own port and limits requests by default', async () => {
    const created = await esim(env, 'org', 'create', '--name', 'Prod Co', '--json');
    assert.equal(created.code, 0, created.err);
    const { apiKey } = JSON.parse(created.out) as { apiKey: string };

    const running = spawnEsim(env, 'serve');
    server = running;
    const urls = await eventually(
      async () => {
        if (running.child.exitCode !== null) throw new Error(`exited: ${running.stderr()}`);
        const api = /listening on (http:\/\/\S+)/.exec(running.stdout())?.[1];
        const metrics = /metrics on (http:\/\/\S+)\/metrics/.exec(running.stdout())?.[1];
        return api !== undefined && metrics !== undefined ? { api, metrics } : undefined;
      },
      STARTUP_MS,
      'the server and its metrics listener',
    );
    assert.notEqual(urls.api, urls.metrics);

    const res = await fetch(`${urls.api}/v2.1/organisation`, { headers: { 'x-api-key': apiKey } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.equal(res.headers.get('x-ratelimit-limit'), '10');
    assert.equal(res.headers.get('x-ratelimit-remaining'), '9');
    assert.ok(!Number.isNaN(Date.parse(res.headers.get('x-ratelimit-reset') ?? '')));

    const hidden = await fetch(`${urls.api}/metrics`);
    assert.equal(hidden.status, 404, 'not on the public port');
    await hidden.arrayBuffer();

    const scraped = await fetch(`${urls.metrics}/metrics`);
    assert.equal(scraped.status, 200);
    const m = parseExposition(await scraped.text());
    assert.ok(m.types.has('process_cpu_seconds_total'), 'process metrics in a server process');
    assert.equal(
      m.value('esim_http_requests_total', {
        method: 'GET',
        route: '/v2.1/organisation',
        status: '200',
      }),
      1,
    );
    assert.equal(
      m.value('esim_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
      1,
    );
  });
});
