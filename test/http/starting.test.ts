import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { startGate } from '../../src/http/starting.js';
import type { StartGate } from '../../src/http/starting.js';
import type { TestApp, TestOrg } from '../harness.js';
import { DATABASES, startTestApp } from '../harness.js';

// A first start listens before it has loaded the built-in catalogue: the liveness probe answers,
// the readiness probe and the API say 503 "starting" until the start is complete.

for (const kind of DATABASES) {
  describe(`a starting instance (${kind})`, () => {
    let test: TestApp;
    let org: TestOrg;
    let gate: StartGate;
    let app: FastifyInstance;

    before(async () => {
      test = await startTestApp(kind);
      org = await test.createOrg({ balance: 1_000 });
      gate = startGate();
      app = await buildApp(test.deps, { logLevel: 'silent', startGate: gate });
    });
    after(async () => {
      await app.close();
      await test.close();
    });

    it('answers only the liveness probe until the gate opens, then everything', async () => {
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
      for (const url of ['/readyz', '/v2.1/catalogue?perPage=1', '/v2.1/no-such-route']) {
        const res = await app.inject({ url, headers: { 'x-api-key': org.apiKey } });
        assert.equal(res.statusCode, 503, url);
        assert.equal(res.headers['retry-after'], '1', url);
        // Readable by a browser's script: the simulator's CORS headers come with it.
        assert.equal(res.headers['access-control-allow-origin'], '*', url);
        assert.deepEqual(res.json(), {
          message: 'this instance is starting; retry shortly',
          code: 'starting',
        });
      }
      gate.open();
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
      const catalogue = await app.inject({
        url: '/v2.1/catalogue?perPage=1',
        headers: { 'x-api-key': org.apiKey },
      });
      assert.equal(catalogue.statusCode, 200, catalogue.body);
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    });
  });
}
