import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import createClient from 'openapi-fetch';
import type { OpenAPI3 } from 'openapi-typescript';
import { BUILT_IN_GROUPS } from '../../src/domain/catalogue/naming.js';
import { saveCard } from '../../src/payments/cards.js';
import type { CallbackWorker } from '../../src/callbacks/delivery-worker.js';
import { createCallbackWorker } from '../../src/callbacks/delivery-worker.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import type { Receiver } from '../receiver.js';
import { startReceiver } from '../receiver.js';
import type { CallContext } from './calls.js';
import { CALLS } from './calls.js';
import { TYPES_FILE, clientTypes } from './document.js';
import type { paths } from './openapi.js';

// A client generated from the service's own OpenAPI document (openapi-typescript types, the
// openapi-fetch client) calls every operation of the document against a real server, the way
// integrators' generated clients do. The types are checked by `npm run typecheck`; this test
// fails when the document has an operation without a call in test/client/calls.ts, or when the
// generated types no longer match the document (`npm run client:types` regenerates them).

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
    let t: TestApp;
    let document: OpenAPI3;
    let context: CallContext;
    let receiver: Receiver;
    let worker: CallbackWorker;

    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(kind);
      const org = await t.createOrg({
        balance: 1_000_000,
        groups: BUILT_IN_GROUPS,
        callbackUrl: `${receiver.url}/hook`,
        callbackVersion: 'V3',
      });
      worker = createCallbackWorker(t.deps, { warn: () => undefined });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      document = (await (await fetch(`${address}/v2.1/openapi.json`)).json()) as OpenAPI3;
      const server = document.servers?.[0]?.url ?? '';
      context = {
        // The base URL the way a generated client resolves the document's relative server.
        client: createClient<paths>({
          baseUrl: new URL(server, address).toString().replace(/\/$/, ''),
          headers: { 'X-API-Key': org.apiKey },
        }),
        deliverCallbacks: () => worker.drain(),
        bundle: '',
        orderReference: '',
        applyReference: '',
        iccid: '',
        assignmentIds: [],
        callbackId: '',
        faultId: '',
      };
    });
    after(async () => {
      await worker.stop();
      await t.close();
      await receiver.close();
    });

    it('has exactly one call per operation of the document', () => {
      const ids = operationIds(document);
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
        const { response, error } = await call(context);
        assert.ok(response.ok, `${id}: ${response.status} ${JSON.stringify(error)}`);
      }
    });

    it('uses types generated from this very document', async () => {
      const committed = readFileSync(TYPES_FILE, 'utf8');
      assert.ok(
        committed === (await clientTypes(document)),
        'test/client/openapi.d.ts is stale: run npm run client:types',
      );
    });
  });
}
