import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenAPI3 } from 'openapi-typescript';
import { DATABASES } from '../harness.js';
import { CALLS } from './calls.js';
import type { ClientSession } from './session.js';
import { startClientSession } from './session.js';

// A client generated from the service's own OpenAPI document (openapi-typescript types, the
// openapi-fetch client) calls every operation of the document against a real server, the way
// integrators' generated clients do. The types are checked by `npm run typecheck`; this test
// fails when the document has an operation without a call in test/client/calls.ts. The types are
// the client package's v2.1 types (packages/client/src/v2.1/openapi.ts); test/api-files.test.ts
// fails when they no longer match the document (`npm run api:generate` regenerates them).

function operationIds(document: OpenAPI3): string[] {
  const ids: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
      if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) continue;
      const id = (operation as { operationId?: string }).operationId;
      assert.ok(id !== undefined, `${method.toUpperCase()} ${path} has no operationId`);
      ids.push(id);
    }
  }
  return ids;
}

for (const kind of DATABASES) {
  describe(`typed client generated from the OpenAPI document [${kind}]`, () => {
    let session: ClientSession;

    before(async () => {
      session = await startClientSession(kind);
    });
    after(() => session.close());

    it('has exactly one call per operation of the document', () => {
      const ids = operationIds(session.document);
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      const called = CALLS.map(([id]) => id);
      assert.equal(new Set(called).size, called.length, 'one call per operationId');
      const missing = ids.filter((id) => !called.includes(id));
      assert.deepEqual(missing, [], 'operations of the document without a call');
      const unknown = called.filter((id) => !ids.includes(id));
      assert.deepEqual(unknown, [], 'calls for operations the document does not have');
    });

    it('calls every operation successfully', async () => {
      for (const [id, call] of CALLS) {
        const { response, error } = await call(session.context);
        assert.ok(response.ok, `${id}: ${response.status} ${JSON.stringify(error)}`);
      }
    });
  });
}
