import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_PREFIX, LIVE_OPERATIONS } from '../src/http/openapi.js';
import { startTestApp } from './harness.js';
import type { TestApp } from './harness.js';

// The live v2.1 routes outside the contract: each is in the OpenAPI document with the
// operationId a generated client names its method after, a summary, a tag the document lists and
// describes, described responses and an example of its success response. The live service
// answers them, so they are part of the interface: never marked x-extension.

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  'x-extension'?: unknown;
  responses: Record<
    string,
    {
      description?: string;
      content?: Record<string, { example?: unknown; schema?: { example?: unknown } }>;
    }
  >;
}

const LIVE_ROUTES: readonly [string, string, string][] = [
  ['get', '/v2.1/organisation/groups', 'listOrganisationGroups'],
  ['get', '/v2.1/networks', 'listNetworks'],
  ['post', '/v2.1/inventory/refund', 'refundInventory'],
  ['get', '/v2.1/esims/{iccid}/refresh', 'refreshEsim'],
  ['put', '/v2.1/esims', 'updateEsims'],
  ['delete', '/v2.1/esims/{iccid}/bundles/{name}', 'revokeBundleByName'],
  ['get', '/v2.1/esims/qr/{reference}', 'getInstallQrCodes'],
  ['get', '/v2.1/esims/csv/{reference}', 'getInstallCsv'],
];

describe('OpenAPI document: the live v2.1 routes', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, Operation>>;
  let tags: { name: string; description?: string }[];

  before(async () => {
    t = await startTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/v2.1/openapi.json' });
    assert.equal(res.statusCode, 200);
    paths = res.json().paths;
    tags = res.json().tags;
  });
  after(() => t.close());

  for (const [method, path, operationId] of LIVE_ROUTES) {
    it(`${method.toUpperCase()} ${path} is ${operationId}, described, with an example`, () => {
      const operation = paths[path]?.[method];
      assert.ok(operation !== undefined, `${method} ${path} is documented`);
      assert.equal(operation.operationId, operationId);
      assert.ok((operation.summary ?? '').length > 10);
      assert.equal(operation['x-extension'], undefined, 'a live route is no extension');
      assert.equal(operation.tags?.length, 1, 'one tag');
      const tag = tags.find((t) => t.name === operation.tags?.[0]);
      assert.ok((tag?.description ?? '') !== '', `tag ${operation.tags?.[0]} listed and described`);
      for (const [status, response] of Object.entries(operation.responses)) {
        assert.ok((response.description ?? '') !== '', `${status} has a description`);
      }
      const success = operation.responses['200'];
      assert.ok(success !== undefined);
      assert.notEqual(success.description, 'Default Response');
      const content = success.content ?? {};
      const types = Object.keys(content);
      assert.ok(types.length > 0);
      if (types.includes('application/json')) {
        const json = content['application/json'];
        assert.ok((json?.example ?? json?.schema?.example) !== undefined, 'JSON example');
      }
    });
  }

  it('lists exactly the live operations the document generator knows', () => {
    const listed = LIVE_ROUTES.map(
      ([method, path]) => `${method.toUpperCase()} ${path.slice(API_PREFIX.length)}`,
    ).sort();
    assert.deepEqual([...LIVE_OPERATIONS].sort(), listed);
  });

  it('still marks the additions of this service as extensions', () => {
    for (const [method, path] of [
      ['get', '/v2.1/orders'],
      ['get', '/v2.1/esims/assignments'],
      ['get', '/v2.1/callbacks'],
    ] as const) {
      assert.equal(paths[path]?.[method]?.['x-extension'], true, `${method} ${path}`);
    }
  });

  it('gives every operation a different operationId', () => {
    const ids = Object.values(paths).flatMap((ops) =>
      Object.values(ops)
        .map((o) => o.operationId)
        .filter((id): id is string => id !== undefined),
    );
    assert.equal(new Set(ids).size, ids.length);
  });
});
