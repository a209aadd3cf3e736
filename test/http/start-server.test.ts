import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { scratchDir } from '../cli/helpers.js';

// startServer as an embedding program calls it: a start that fails part-way (here the metrics
// port is taken) leaves nothing held, so the same process can start the server again on the
// same SQLite file.

describe('startServer on a SQLite file', () => {
  it('releases the database when the metrics port cannot be opened, so a retry starts', async () => {
    const data = scratchDir();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const env = {
      DATA_DIR: data.path,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DEMO_ON_FIRST_START: 'false',
      METRICS_HOST: '127.0.0.1',
    };
    const quiet = (): void => undefined;
    try {
      await assert.rejects(
        startServer(loadConfig({ ...env, METRICS_PORT: String(port) }), quiet),
        /in use|EADDRINUSE/i,
      );
      const server = await startServer(loadConfig({ ...env, METRICS_PORT: '0' }), quiet);
      try {
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      } finally {
        await server.close();
      }
    } finally {
      taken.close();
      data.remove();
    }
  });

  it('is ready before the demo organisation of a first start exists; its printed key then works', async () => {
    const data = scratchDir();
    const lines: string[] = [];
    const env = { DATA_DIR: data.path, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
    const server = await startServer(loadConfig(env), (line) => void lines.push(line));
    try {
      // The demo is made after the instance opened: nothing of it is printed yet, and a caller
      // meanwhile gets the answers of an empty database.
      assert.equal(lines.join('\n').includes('API key:'), false, lines.join('\n'));
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      assert.equal((await fetch(`${server.url}/v2.1/organisation`)).status, 403);
      await server.announced;
      const out = lines.join('\n');
      const apiKey = /^API key: (esim_\S+)$/m.exec(out)?.[1] ?? '';
      assert.ok(apiKey, out);
      assert.match(out, /API key: [\s\S]*listening on /, 'the listening line still comes last');
      const res = await fetch(`${server.url}/v2.1/organisation`, {
        headers: { 'X-API-Key': apiKey },
      });
      assert.equal(res.status, 200);
    } finally {
      await server.close();
      data.remove();
    }
  });
});
