import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { esim, scratchDir, spawnEsim } from './helpers.js';
import type { Spawned } from './helpers.js';

// The log of `esim serve` as its operator reads it: on a pipe, JSON with one line per request
// (method, URL, status, time taken, a readable time) and a line for a failed callback delivery;
// with LOG_FORMAT=pretty, a readable line per request.

interface LogLine {
  level?: number;
  time?: unknown;
  reqId?: string;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  url?: string;
  statusCode?: number;
}

const jsonLines = (out: string): LogLine[] =>
  out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

async function listening(server: Spawned): Promise<string> {
  return eventually(
    async () => {
      if (server.child.exitCode !== null) throw new Error(`exited: ${server.stderr()}`);
      return /listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    },
    60_000,
    `the server to listen: ${server.stdout()}`,
  );
}

async function stop(server: Spawned): Promise<void> {
  if (server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exited;
}

describe('esim serve logs', () => {
  const data = scratchDir();
  const env = { DATA_DIR: data.path, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  const servers: Spawned[] = [];
  let receiver: Receiver | undefined;
  after(async () => {
    for (const server of servers) await stop(server);
    await receiver?.close();
    data.remove();
  });

  it('writes JSON on a pipe: one line per request, and a failed callback delivery', async () => {
    receiver = await startReceiver({ behaviours: { '/hook': { status: 500 } } });
    const server = spawnEsim(env, 'serve');
    servers.push(server);
    const url = await listening(server);
    const apiKey = /^API key: (esim_\S+)$/m.exec(server.stdout())?.[1] ?? '';
    // A script that waits for "listening" finds the service's line, after the demo's key: the
    // web framework's own line at binding says something else.
    const out = server.stdout();
    assert.equal(out.match(/listening/gi)?.length, 1, out);
    assert.ok(out.indexOf('API key: ') < out.search(/listening/i), out);
    assert.match(out, /"msg":"bound to http:\/\/127\.0\.0\.1:\d+; answering 503 until the start/);
    const orgId = /^Demo organisation created: .* \((\S+)\)$/m.exec(server.stdout())?.[1] ?? '';
    const updated = await esim(
      { DATA_DIR: data.path, LOG_LEVEL: 'silent' },
      'org',
      'update',
      orgId,
      '--callback-url',
      `${receiver.url}/hook`,
    );
    assert.equal(updated.code, 0, updated.err);

    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const organisation = await fetch(`${url}/v2.1/organisation`, { headers });
    assert.equal(organisation.status, 200);
    const order = await fetch(`${url}/v2.1/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: 'esim_1GB_7D_GB_V2', quantity: 1 }],
      }),
    });
    assert.equal(order.status, 200);
    const iccid = ((await order.json()) as { order: { iccids: string[] }[] }).order[0]?.iccids[0];
    for (const [step, body] of [
      ['install', {}],
      ['attach', { country: 'GB' }],
    ] as const) {
      const res = await fetch(`${url}/_sim/esims/${iccid}/${step}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, step);
    }

    // The first attach's callback meets a 500: the log says so, with the receiver and what next.
    const failed = await eventually(
      async () => jsonLines(server.stdout()).find((l) => l.msg?.startsWith('callback delivery')),
      30_000,
      'a failed delivery in the log',
    );
    assert.equal(failed.level, 40);
    assert.equal(failed.url, `${receiver.url}/hook`);
    assert.equal(failed.statusCode, 500);
    assert.match(failed.msg ?? '', /answered HTTP 500 \(attempt 1\); next attempt at /);

    const lines = jsonLines(server.stdout());
    const requests = lines.filter((l) => l.reqId !== undefined);
    // One line per request: no request id appears twice.
    const ids = requests.map((l) => l.reqId);
    assert.equal(new Set(ids).size, ids.length, server.stdout());
    const read = requests.find((l) => l.req?.url === '/v2.1/organisation');
    assert.ok(read !== undefined, server.stdout());
    assert.equal(read.req?.method, 'GET');
    assert.equal(read.res?.statusCode, 200);
    assert.equal(typeof read.responseTime, 'number');
    assert.match(String(read.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const placed = requests.find((l) => l.req?.url === '/v2.1/orders');
    assert.equal(placed?.req?.method, 'POST');
    await stop(server);

    // Beside the JSON, the server's own lines in plain text (docs/operations.md, "Logs"): where
    // it listens and, on SIGTERM, the drain and its end.
    const plain = server
      .stdout()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('{'));
    assert.ok(
      plain.some((line) =>
        /^eSIM bundle service \(simulator mode, sqlite\) listening on http:\/\/\S+$/.test(line),
      ),
      server.stdout(),
    );
    assert.deepEqual(plain.slice(-2), ['SIGTERM received, shutting down', 'stopped']);
  });

  it('writes a readable line per request with LOG_FORMAT=pretty', async () => {
    const server = spawnEsim({ ...env, LOG_FORMAT: 'pretty' }, 'serve');
    servers.push(server);
    const url = await listening(server);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    await eventually(
      async () =>
        /^\d\d:\d\d:\d\d GET \/readyz 200 \d+ ms$/m.test(server.stdout()) ? true : undefined,
      10_000,
      `a readable request line in: ${server.stdout()}`,
    );
    assert.doesNotMatch(server.stdout(), /^\{/m, 'no JSON line');
    await stop(server);
  });
});
