import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import {
  DEMO_ACTIVE_ASSIGNMENT,
  DEMO_BUNDLE,
  DEMO_CALLBACK_ID,
  DEMO_ICCID,
  DEMO_INVENTORY_UNITS,
  DEMO_ORDER_REFERENCE,
  DEMO_QUEUED_ASSIGNMENTS,
  DEMO_USAGE_ID,
} from '../src/demo-data.js';
import { createDemoOrganisation } from '../src/demo.js';
import { servedDocumentPaths } from '../src/http/openapi.js';
import { DATABASES, startTestApp } from './harness.js';
import type { TestApp } from './harness.js';
import type { Document, PageOperation } from './docs/try-it.js';
import { pageOperations, prefilledRequest, startingValue } from './docs/try-it.js';

// "Try it out" works unedited (README, the top of every version's page): on a fresh demo
// database (what a simulator's first start creates), after Authorize with the demo key, every
// operation of every version's page, sent as the page prefills it and in the page's order, answers
// 2xx. What the page sends is test/docs/try-it.ts's model of it (test/docs/docs-page.test.ts
// checks the model against the page in Chromium). Each example is also valid against its schema.
// The one value the reader pastes is PUT /_sim/snapshot's body: what GET /_sim/snapshot answered.

const DOCUMENTS = ['2.1', '2.2', '2.3', '2.4', '2.5'].map((v) => `/v${v}/openapi.json`);

/** OpenAPI 3.0's boolean exclusive bounds back as JSON Schema's numbers, for Ajv. */
function jsonSchema(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const node = { ...(value as Record<string, unknown>) };
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (node[exclusive] === true) {
        node[exclusive] = node[bound];
        delete node[bound];
      } else if (node[exclusive] === false) delete node[exclusive];
    }
    return node;
  });
}

type RawDocument = Document & { components?: unknown };
type Schema = Record<string, unknown>;

/**
 * A schema validator for each set of components: the versions' documents, and the databases'
 * runs of them, share most of their schemas, each compiled once.
 */
const validatorsByComponents = new Map<
  string,
  { ajv: Ajv; validators: Map<string, ValidateFunction> }
>();

/** Every example the page starts with (bodies and parameters) is valid against its schema. */
function checkExamplesValid(documentPath: string, doc: RawDocument): void {
  const components = JSON.stringify(doc.components ?? {});
  let compiled = validatorsByComponents.get(components);
  if (compiled === undefined) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'doc', components: jsonSchema(components) });
    compiled = { ajv, validators: new Map() };
    validatorsByComponents.set(components, compiled);
  }
  const { ajv, validators } = compiled;
  const check = (what: string, schema: unknown, value: unknown): void => {
    const text = JSON.stringify(schema ?? {}).replaceAll('"#/components/', '"doc#/components/');
    let validate = validators.get(text);
    if (validate === undefined) {
      validate = ajv.compile(jsonSchema(text) as object);
      validators.set(text, validate);
    }
    assert.ok(validate(value), `${documentPath} ${what}: ${ajv.errorsText(validate.errors)}`);
  };
  for (const op of pageOperations(doc)) {
    for (const [type, media] of Object.entries(op.operation.requestBody?.content ?? {})) {
      const m = media as { example?: unknown; schema?: Schema };
      if (m.example !== undefined) check(`${op.name} body (${type})`, m.schema, m.example);
    }
    for (const p of op.operation.parameters ?? []) {
      const value = startingValue(p);
      if (value === undefined) continue;
      const schema = (p as { schema?: Schema }).schema ?? {};
      // Query and path values travel as text: a number or boolean parameter is checked as such.
      const typed =
        typeof value === 'string' && schema['type'] === 'integer' ? Number(value) : value;
      check(`${op.name} parameter ${p.name}`, schema, typed);
    }
  }
}

/** Sends the page's request for the operation; the answer. */
async function send(t: TestApp, doc: Document, op: PageOperation, apiKey: string, body?: string) {
  const request = prefilledRequest(doc, op, apiKey);
  const payload = body ?? request.body;
  return t.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: {
      ...request.headers,
      ...(request.contentType === undefined ? {} : { 'content-type': request.contentType }),
    },
    ...(payload === undefined ? {} : { payload }),
  });
}

const SNAPSHOT_EXPORT = 'simExportSnapshot';
const SNAPSHOT_IMPORT = 'simImportSnapshot';

for (const kind of DATABASES) {
  describe(`"Try it out" on a fresh demo database, every version (${kind})`, () => {
    /** The demo organisation holds what the examples name (src/demo-data.ts). */
    const checkDemo = async (t: TestApp, apiKey: string): Promise<void> => {
      const get = async (url: string) => {
        const res = await t.request(apiKey, { url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        return res.json<Record<string, unknown>>();
      };
      // When one of these fails, the service now draws the demo's identifiers differently:
      // update the constant src/demo-data.ts names, from what the demo holds now.
      const bundles = (await get(`/v2.1/esims/${DEMO_ICCID}/bundles`)) as {
        bundles: { name: string; assignments: { id: string; bundleState: string }[] }[];
      };
      assert.deepEqual(
        bundles.bundles.flatMap((b) => b.assignments.map((a) => `${a.id} ${a.bundleState}`)),
        [
          `${DEMO_ACTIVE_ASSIGNMENT} Active`,
          `${DEMO_QUEUED_ASSIGNMENTS[0]} Queued`,
          `${DEMO_QUEUED_ASSIGNMENTS[1]} Queued`,
        ],
        'DEMO_ICCID and the DEMO_*_ASSIGNMENT ids',
      );
      const order = (await get(`/v2.1/orders/${DEMO_ORDER_REFERENCE}`)) as {
        order: { iccids: string[] }[];
      };
      assert.deepEqual(order.order[0]?.iccids, [DEMO_ICCID]);
      const callback = (await get(`/v2.1/callbacks/${DEMO_CALLBACK_ID}`)) as {
        alertType: string;
        status: string;
      };
      assert.deepEqual([callback.alertType, callback.status], ['FirstAttachment', 'undeliverable']);
      const inventory = (await get('/v2.1/inventory')) as {
        bundles: { name: string; available: { id: number; remaining: number }[] }[];
      };
      assert.deepEqual(
        inventory.bundles.map((b) => [b.name, b.available.map((a) => [a.id, a.remaining])]),
        [[DEMO_BUNDLE, [[DEMO_USAGE_ID, DEMO_INVENTORY_UNITS]]]],
        'DEMO_USAGE_ID',
      );
      const esim = (await get(`/v2.5/esims/${DEMO_ICCID}`)) as Record<string, string>;
      assert.deepEqual(
        [esim['profileStatus'], esim['customerRef'], esim['msisdn']?.slice(0, 2)],
        ['Installed', 'fleet-7', '33'],
      );
      const location = (await get(`/v2.1/esims/${DEMO_ICCID}/location`)) as Record<string, string>;
      assert.match(JSON.stringify(location), /"FR"|France/);
      const organisation = (await get('/v2.1/organisation')) as {
        organisations: { balance: number; callbackUrl: string }[];
      };
      assert.equal(organisation.organisations[0]?.balance, 100_000, '1,000.00 USD left');
      assert.match(organisation.organisations[0]?.callbackUrl ?? '', /\/_sim\/callback-receiver$/);
    };

    for (const documentPath of DOCUMENTS) {
      it(`${documentPath}: every operation as prefilled, from the top of the page down, answers 2xx`, async () => {
        const t = await startTestApp(kind);
        try {
          if (documentPath === DOCUMENTS[0]) {
            // The documents walked here are the app's: each a tab of /docs and listed at /.
            assert.deepEqual(servedDocumentPaths(t.app), DOCUMENTS);
          }
          const demo = await createDemoOrganisation(t.deps);
          assert.ok(demo !== undefined);
          if (documentPath === DOCUMENTS[0]) await checkDemo(t, demo.apiKey);
          const doc = (await t.app.inject({ url: documentPath })).json<RawDocument>();
          checkExamplesValid(documentPath, doc);
          const operations = pageOperations(doc);
          assert.ok(operations.length > 30, `${documentPath} has its operations`);
          let snapshot: string | undefined;
          for (const op of operations) {
            const request = prefilledRequest(doc, op, demo.apiKey);
            let body: string | undefined;
            if (op.operation.operationId === SNAPSHOT_IMPORT) {
              // The page cannot prefill a snapshot: its description says where the body comes from.
              assert.match(op.operation.description ?? '', /what GET \/_sim\/snapshot answered/);
              assert.ok(snapshot !== undefined, 'GET /_sim/snapshot comes before');
              body = snapshot;
            } else {
              assert.deepEqual(request.missing, [], `${op.name}: the page fills in everything`);
            }
            const res = await send(t, doc, op, demo.apiKey, body);
            assert.ok(
              res.statusCode >= 200 && res.statusCode < 300,
              `${documentPath} ${op.name} ${request.method} ${request.url}: ${res.statusCode} ${res.body.slice(0, 300)}`,
            );
            if (op.operation.operationId === SNAPSHOT_EXPORT) snapshot = res.body;
          }
        } finally {
          await t.close();
        }
      });
    }
  });
}
