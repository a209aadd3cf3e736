import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { API_PREFIX, openApiPath, registeredRoutes } from '../src/http/openapi.js';
import { startTestApp } from './harness.js';
import type { TestApp } from './harness.js';

// The document is generated from the route schemas, so these checks keep holding as routes are
// added, and fail when a route is registered without a schema that documents it.

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
  callbacks?: Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  [extension: `x-${string}`]: unknown;
}
interface Document {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>> };
}

async function fetchDocument(t: TestApp): Promise<Document> {
  const res = await t.app.inject({ method: 'GET', url: `${API_PREFIX}/openapi.json` });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.json<Document>();
}

/** Routes the document must describe: every route not hidden on purpose (HEAD mirrors GET). */
function documentedRoutes(t: TestApp): { method: string; path: string }[] {
  return registeredRoutes(t.app)
    .filter((r) => !r.hidden && r.method !== 'HEAD' && !r.url.startsWith('/docs'))
    .map((r) => ({ method: r.method.toLowerCase(), path: openApiPath(r.url) }));
}

describe('OpenAPI document (simulator mode)', () => {
  let t: TestApp;
  let doc: Document;

  before(async () => {
    t = await startTestApp('sqlite');
    doc = await fetchDocument(t);
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.0.1 document, served without an API key', async () => {
    assert.equal(doc.openapi, '3.0.1');
    assert.equal(doc.info.version, '2.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors ?? [], [], JSON.stringify(result.errors, null, 2));
    assert.equal(result.valid, true);
  });

  it('declares both security schemes of the interface, the servers and the tags', () => {
    assert.deepEqual(doc.components.securitySchemes['apiKeyAuth'], {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: doc.components.securitySchemes['apiKeyAuth']?.['description'],
    });
    assert.equal(doc.components.securitySchemes['apiKeyQueryAuth']?.['in'], 'query');
    assert.equal(doc.components.securitySchemes['apiKeyQueryAuth']?.['name'], 'api_key');
    assert.ok(doc.servers.length > 0 && doc.servers.every((s) => s.url !== ''));
    const tagNames = new Set(doc.tags.map((t) => t.name));
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const tag of operation.tags ?? []) assert.ok(tagNames.has(tag), `tag ${tag} listed`);
      }
    }
  });

  it('covers every route the app registers, each with a summary, a tag and a 2xx response', () => {
    const routes = documentedRoutes(t);
    assert.ok(routes.some((r) => r.path === `${API_PREFIX}/organisation` && r.method === 'get'));
    for (const { method, path } of routes) {
      const operation = doc.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is missing from the document`);
      assert.ok(operation.summary, `${method.toUpperCase()} ${path} has no summary`);
      assert.ok((operation.tags ?? []).length > 0, `${method.toUpperCase()} ${path} has no tag`);
      assert.ok(
        Object.keys(operation.responses).some((s) => /^2/.test(s)),
        `${method.toUpperCase()} ${path} documents no 2xx response`,
      );
    }
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const op of documented)
      assert.ok(registered.has(op), `${op} is documented but not served`);
  });

  it('gives every operation under the base path its security and error responses', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith(`${API_PREFIX}/`)) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        assert.ok(schemes.includes('apiKeyAuth'), `${name} accepts the X-API-Key header`);
        assert.equal(
          schemes.includes('apiKeyQueryAuth'),
          method === 'get' || method === 'head',
          `${name}: api_key is accepted on GET/HEAD only`,
        );
        for (const status of ['400', '403', '500']) {
          const response = operation.responses[status];
          assert.ok(response, `${name} documents ${status}`);
          assert.ok(response.content?.['application/json'], `${name} ${status} has a body`);
        }
        if (path.includes('{')) assert.ok(operation.responses['404'], `${name} documents 404`);
        if (method === 'post') {
          assert.ok(operation.responses['409'], `${name} documents 409`);
          const headers = (operation.parameters ?? []).filter((p) => p.in === 'header');
          assert.ok(
            headers.some((p) => p.name.toLowerCase() === 'idempotency-key'),
            `${name} documents the Idempotency-Key header`,
          );
        }
        if (operation.requestBody !== undefined) {
          for (const status of ['413', '415']) {
            assert.ok(operation.responses[status], `${name} documents ${status}`);
          }
        }
      }
    }
    const topUp = doc.paths[`${API_PREFIX}/organisation/balance`]?.['post'];
    assert.ok(topUp?.responses['503'], 'top-up documents 503');
  });

  it('marks extensions and the simulator control plane', () => {
    const organisation = doc.paths[`${API_PREFIX}/organisation`]?.['get'];
    assert.equal(organisation?.['x-extension'], undefined, 'a spec operation is no extension');
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path.startsWith('/_sim')) {
          assert.equal(operation['x-simulator'], true, `${method} ${path} is x-simulator`);
        }
      }
    }
    const extension = doc.paths[`${API_PREFIX}/orders`]?.['get'];
    assert.equal(extension?.['x-extension'], true, 'GET /orders is an extension');
  });

  it('describes the usage callback, V3 signed and V2 reduced, on GET /organisation', () => {
    const callbacks = doc.paths[`${API_PREFIX}/organisation`]?.['get']?.callbacks;
    const usage = callbacks?.['usage']?.['{$response.body#/organisations/0/callbackUrl}']?.[
      'post'
    ] as
      | {
          parameters: { name: string; in: string }[];
          requestBody: { content: Record<string, { schema: { oneOf: { $ref: string }[] } }> };
        }
      | undefined;
    assert.ok(usage, 'callback operation present');
    const headers = usage.parameters.map((p) => p.name);
    for (const h of [
      'X-Signature-SHA256',
      'X-Event-Id',
      'X-Event-Timestamp',
      'X-Delivery-Attempt',
      'User-Agent',
    ]) {
      assert.ok(headers.includes(h), `header ${h}`);
    }
    const refs = usage.requestBody.content['application/json']?.schema.oneOf.map((s) => s.$ref);
    assert.deepEqual(refs, [
      '#/components/schemas/UsageCallbackV3',
      '#/components/schemas/UsageCallbackV2',
    ]);
    const schemas = (doc.components as unknown as { schemas: Record<string, unknown> }).schemas;
    const v3 = schemas['UsageCallbackV3'] as {
      properties: { bundle: { properties: Record<string, unknown> } };
    };
    const v2 = schemas['UsageCallbackV2'] as typeof v3;
    assert.deepEqual(Object.keys(v3.properties.bundle.properties).sort(), [
      'description',
      'endTime',
      'id',
      'initialQuantity',
      'name',
      'reference',
      'remainingQuantity',
      'startTime',
      'unlimited',
    ]);
    assert.deepEqual(Object.keys(v2.properties.bundle.properties).sort(), [
      'endTime',
      'id',
      'initialQuantity',
      'name',
      'remainingQuantity',
      'startTime',
    ]);
  });

  it('serves the interactive documentation page at /docs without a key', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    const html =
      page.statusCode === 302
        ? await t.app.inject({ method: 'GET', url: String(page.headers['location']) })
        : page;
    assert.equal(html.statusCode, 200);
    assert.match(String(html.headers['content-type']), /^text\/html/);
    assert.match(html.body, /swagger-ui/i);
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.deepEqual(json.json(), doc);
  });
});

describe('OpenAPI document (production mode)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite', { mode: 'production' });
  });
  after(() => t.close());

  it('has no simulator section', async () => {
    const doc = await fetchDocument(t);
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/_sim')),
      [],
    );
  });
});
