import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { PrecompiledSchemas } from '../../src/http/precompiled-schemas.js';
import { schemaCompilers } from '../../src/http/schema-compilers.js';
import type { SchemaCompilers } from '../../src/http/schema-compilers.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startTestApp } from '../harness.js';

// The bundle loads every route's validators and serialisers from code generated at build time
// (dist/precompiled-schemas.cjs) instead of compiling them at start. That code must cover every
// schema of the app, and answer exactly as the schemas compiled at run time do.

const GENERATED = fileURLToPath(new URL('../../dist/precompiled-schemas.cjs', import.meta.url));

const generated = (): { PRECOMPILED_SCHEMAS: PrecompiledSchemas } =>
  createRequire(import.meta.url)(GENERATED) as { PRECOMPILED_SCHEMAS: PrecompiledSchemas };

const REQUESTS: InjectOptions[] = [
  { method: 'GET', url: '/v2.1/catalogue?perPage=2' },
  { method: 'GET', url: '/v2.1/catalogue?perPage=abc' },
  { method: 'GET', url: '/v2.1/catalogue?perPage=2&page=0' },
  { method: 'GET', url: '/v2.1/organisation' },
  { method: 'GET', url: '/v2.1/esims?perPage=1' },
  { method: 'GET', url: '/v2.1/esims/not-an-iccid' },
  { method: 'GET', url: '/v2.1/networks?countries=FR' },
  { method: 'GET', url: '/v2.1/inventory' },
  {
    method: 'POST',
    url: '/v2.1/orders',
    payload: { type: 'validate', order: [{ type: 'bundle', item: 'x', quantity: '2' }] },
  },
  { method: 'POST', url: '/v2.1/orders', payload: { type: 'validate', order: 'none' } },
  { method: 'POST', url: '/v2.1/orders', payload: { type: 'validate', Order: [] } },
  { method: 'GET', url: '/healthz' },
  { method: 'GET', url: '/readyz' },
];

describe('precompiled schemas', { skip: !existsSync(GENERATED) && 'run npm run build' }, () => {
  let test: TestApp;
  let org: TestOrg;
  let precompiledApp: FastifyInstance;
  let schemas: SchemaCompilers;

  before(async () => {
    test = await startTestApp('sqlite');
    org = await test.createOrg({ balance: 10_000 });
    schemas = schemaCompilers({ precompiled: generated().PRECOMPILED_SCHEMAS });
    precompiledApp = await buildApp(test.deps, { logLevel: 'silent', schemas });
    await precompiledApp.ready();
  });
  after(async () => {
    await precompiledApp.close();
    await test.close();
  });

  it('cover every schema of the app: nothing is compiled at start', () => {
    const counts = schemas.counts();
    assert.equal(counts.compiled, 0, 'schemas missing from dist/: run npm run build');
    assert.ok(counts.precompiled > 100, `only ${counts.precompiled} precompiled`);
  });

  it('cover production mode as well (generated from simulator mode, a superset of routes)', async () => {
    const production = schemaCompilers({ precompiled: generated().PRECOMPILED_SCHEMAS });
    const config = { ...test.deps.config, mode: 'production' as const };
    const app = await buildApp(
      { ...test.deps, config },
      { logLevel: 'silent', schemas: production },
    );
    try {
      await app.ready();
      assert.equal(production.counts().compiled, 0);
    } finally {
      await app.close();
    }
  });

  it('validate and serialise exactly as the schemas compiled at run time', async () => {
    for (const request of REQUESTS) {
      const headers = { 'x-api-key': org.apiKey };
      const compiled = await test.app.inject({ ...request, headers });
      const loaded = await precompiledApp.inject({ ...request, headers });
      const what = `${request.method} ${request.url}`;
      assert.equal(loaded.statusCode, compiled.statusCode, what);
      assert.equal(loaded.body, compiled.body, what);
    }
  });
});
