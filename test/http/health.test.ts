import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { openStore } from '../../src/store/database.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

for (const kind of DATABASES) {
  describe(`health and readiness [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind);
    });
    after(() => t.close());

    it('answers /healthz and /readyz without a key, outside the base path', async () => {
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(health.json(), { status: 'ok' });
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
      assert.equal((await t.app.inject({ method: 'HEAD', url: '/readyz' })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/v2.1/healthz' })).statusCode, 404);
    });
  });
}

describe('readiness without a database', () => {
  it('answers 503 {message} with Retry-After while liveness stays 200', async () => {
    const t = await startTestApp('sqlite');
    // Nothing listens on port 1: every query fails at once with a refused connection.
    const unreachable = openStore({ kind: 'postgres', url: 'postgres://esim@127.0.0.1:1/none' });
    const app = await buildApp({ ...t.deps, store: unreachable }, { logLevel: 'silent' });
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.headers['retry-after'], '5');
      assert.equal(typeof (ready.json() as { message: unknown }).message, 'string');
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await app.close();
      await unreachable.close();
      await t.close();
    }
  });
});
