import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { openApiPath, registeredRoutes } from '../../src/http/openapi.js';
import { LATER_VERSIONS } from '../../src/http/versions/index.js';
import { startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// Each later version's OpenAPI document: valid, covering the version's routes, with the
// operations the live service documents for that version (the reference's lists, below) unless
// docs/versions.md explains the difference, and an example its schema accepts on every request
// body and every JSON answer.

// The live operations per version, as the reference lists them (later-versions.md): v2.4 is
// spec24's 26 operations plus the three deprecated ones of its navigation and `GET /`; v2.5 is
// spec25's 32 plus the suspension read of the migration guide.
const V21 = [
  'GET /organisation',
  'POST /organisation/balance',
  'GET /organisation/groups',
  'GET /catalogue',
  'GET /catalogue/bundle/{name}',
  'GET /networks',
  'POST /orders',
  'GET /orders',
  'GET /orders/{orderReference}',
  'GET /inventory',
  'POST /inventory/refund',
  'GET /esims',
  'PUT /esims',
  'POST /esims/apply',
  'GET /esims/{iccid}',
  'GET /esims/{iccid}/history',
  'GET /esims/{iccid}/refresh',
  'GET /esims/{iccid}/location',
  'POST /esims/{iccid}/sms',
  'GET /esims/{iccid}/bundles',
  'POST /esims/{iccid}/bundles',
  'GET /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}',
  'GET /esims/qr/{reference}',
  'GET /esims/csv/{reference}',
];
const V22 = [
  ...V21,
  'GET /esims/assignments',
  'DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}',
  'GET /esims/{iccid}/compatible/{bundle}',
];
const V23 = [...V22, 'GET /'];
const SPEC24 = [
  'GET /esims',
  'PUT /esims',
  'POST /esims/apply',
  'GET /esims/assignments',
  'GET /esims/{iccid}',
  'GET /esims/{iccid}/history',
  'GET /esims/{iccid}/refresh',
  'GET /esims/{iccid}/compatible/{bundle}',
  'POST /esims/{iccid}/sms',
  'GET /esims/{iccid}/bundles',
  'POST /esims/{iccid}/bundles',
  'GET /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}',
  'GET /esims/{iccid}/location',
  'GET /organisation',
  'POST /organisation/balance',
  'GET /organisation/groups',
  'GET /orders',
  'POST /orders',
  'GET /orders/{orderReference}',
  'GET /inventory',
  'POST /inventory/refund',
  'GET /catalogue',
  'GET /catalogue/bundle/{name}',
  'GET /networks',
];
const DEPRECATED = [
  'GET /esims/qr/{reference}',
  'GET /esims/csv/{reference}',
  'DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}',
];
const SPEC25 = [
  ...SPEC24,
  ...DEPRECATED,
  'DELETE /esims/{iccid}',
  'POST /esims/{iccid}/suspend',
  'GET /catalogue/prices',
];
const REFERENCE: Record<string, string[]> = {
  '2.2': V22,
  '2.3': V23,
  '2.4': [...SPEC24, ...DEPRECATED, 'GET /'],
  '2.5': [...SPEC25, 'GET /esims/{iccid}/suspend'],
};

/**
 * The differences docs/versions.md explains: the rows of its "Operations" table, whose first
 * cell is the operation and second the versions it concerns ("2.2-2.5" or a list).
 */
function explained(): Map<string, Set<string>> {
  const text = readFileSync(new URL('../../docs/versions.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Operations')) ?? '';
  const rows = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const op = /^`(GET|POST|PUT|DELETE) ([^`]+)`$/.exec(cells[1] ?? '');
    if (op === null) continue;
    const versions = new Set<string>();
    for (const part of (cells[2] ?? '').split(',')) {
      const range = /^(2\.\d)\s*[-–]\s*(2\.\d)$/.exec(part.trim());
      if (range === null) {
        versions.add(part.trim());
        continue;
      }
      for (let v = Number(range[1]); v <= Number(range[2]) + 1e-9; v += 0.1) {
        versions.add(v.toFixed(1));
      }
    }
    rows.set(`${op[1]} ${op[2]}`, versions);
  }
  return rows;
}

type Media = { schema?: unknown; example?: unknown };
type Operation = {
  operationId?: string;
  deprecated?: boolean;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media>; headers?: object }>;
};
type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: unknown;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('the later versions’ OpenAPI documents', () => {
  let t: TestApp;
  const docs = new Map<string, Document>();

  before(async () => {
    t = await startTestApp('sqlite');
    for (const version of LATER_VERSIONS) {
      const res = await t.app.inject({ url: `${version.prefix}/openapi.json` });
      assert.equal(res.statusCode, 200);
      docs.set(version.name, res.json<Document>());
    }
  });
  after(() => t.close());

  const operationsOf = (name: string, prefix: string): Map<string, Operation> => {
    const doc = docs.get(name);
    const ops = new Map<string, Operation>();
    for (const [path, item] of Object.entries(doc?.paths ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const bare = path.slice(prefix.length) === '' ? '/' : path.slice(prefix.length);
        ops.set(`${method.toUpperCase()} ${bare}`, op);
      }
    }
    return ops;
  };

  it('are valid OpenAPI 3.0.1 documents of their version', async () => {
    // One validator for every document: it compiles the OpenAPI 3.0 schema once.
    const validator = new Validator();
    for (const version of LATER_VERSIONS) {
      const doc = docs.get(version.name) as Document;
      assert.equal(doc.openapi, '3.0.1');
      assert.equal(doc.info.version, `${version.name}.0`);
      const result = await validator.validate(doc as unknown as Record<string, unknown>);
      assert.deepEqual(
        result.errors ?? [],
        [],
        `v${version.name}: ${JSON.stringify(result.errors)}`,
      );
    }
  });

  it('cover every route registered in the version, and nothing of another version', () => {
    for (const version of LATER_VERSIONS) {
      const ops = operationsOf(version.name, version.prefix);
      const routes = registeredRoutes(t.app, version).filter(
        (r) => !r.hidden && r.method !== 'HEAD',
      );
      assert.ok(routes.length > 20);
      for (const r of routes) {
        const path = openApiPath(r.url).slice(version.prefix.length) || '/';
        assert.ok(ops.has(`${r.method} ${path}`), `v${version.name} documents ${r.method} ${path}`);
      }
      assert.equal(ops.size, routes.length, `v${version.name}: one operation per route`);
    }
  });

  it('list the live operations of the version, every difference explained in docs/versions.md', () => {
    const explanations = explained();
    const unexplained: string[] = [];
    for (const version of LATER_VERSIONS) {
      const served = new Set(operationsOf(version.name, version.prefix).keys());
      const reference = new Set(REFERENCE[version.name] ?? []);
      const differences = [
        ...[...served].filter((op) => !reference.has(op)).map((op) => `served, not live: ${op}`),
        ...[...reference].filter((op) => !served.has(op)).map((op) => `live, not served: ${op}`),
      ];
      for (const difference of differences) {
        const op = difference.slice(difference.indexOf(': ') + 2);
        if (!explanations.get(op)?.has(version.name))
          unexplained.push(`v${version.name} ${difference}`);
      }
    }
    assert.deepEqual(unexplained, []);
  });

  it('give every JSON request body and answer an example that its schema accepts', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    // A schema is compiled once: the versions share most of their schemas and components, and
    // the answers of one operation share their error schemas.
    const componentIds = new Map<string, string>();
    const validators = new Map<string, ValidateFunction>();
    for (const version of LATER_VERSIONS) {
      const doc = docs.get(version.name) as Document;
      const components = JSON.stringify(doc.components);
      let id = componentIds.get(components);
      if (id === undefined) {
        id = `doc${version.name}`;
        componentIds.set(components, id);
        ajv.addSchema({ $id: id, components: doc.components });
      }
      const check = (where: string, media: Media | undefined): void => {
        if (media === undefined) return;
        const schema = media.schema as { example?: unknown } | undefined;
        const example = media.example ?? schema?.example;
        assert.ok(example !== undefined, `${where} has an example`);
        const resolved = JSON.stringify(schema).replaceAll('"#/components/', `"${id}#/components/`);
        let validate = validators.get(resolved);
        if (validate === undefined) {
          validate = ajv.compile(JSON.parse(resolved) as object);
          validators.set(resolved, validate);
        }
        assert.ok(validate(example), `${where}: ${ajv.errorsText(validate.errors)}`);
      };
      for (const [name, op] of operationsOf(version.name, version.prefix)) {
        check(`v${version.name} ${name} request`, op.requestBody?.content?.['application/json']);
        for (const [status, response] of Object.entries(op.responses ?? {})) {
          check(`v${version.name} ${name} ${status}`, response.content?.['application/json']);
        }
      }
    }
  });

  it('mark the deprecated apply route, and document the 503 of background processing with its reference', () => {
    for (const version of LATER_VERSIONS) {
      const ops = operationsOf(version.name, version.prefix);
      assert.equal(ops.get('POST /esims/{iccid}/bundles')?.deprecated, true, `v${version.name}`);
      for (const op of [
        'POST /orders',
        'GET /orders/{orderReference}',
        'POST /esims/apply',
        'POST /esims/{iccid}/bundles',
      ]) {
        const answer = ops.get(op)?.responses?.['503'];
        const media = answer?.content?.['application/json'];
        const schema = media?.schema as
          { properties?: Record<string, unknown>; example?: { code?: string } } | undefined;
        assert.ok(schema?.properties?.['orderReference'], `v${version.name} ${op} 503`);
        const example = (media?.example ?? schema?.example) as { code?: string } | undefined;
        assert.equal(example?.code, 'processing');
        assert.ok(answer?.headers !== undefined && 'Retry-After' in answer.headers);
      }
    }
    const v21 = t.app.swagger() as unknown as Document;
    const v21Order = v21.paths['/v2.1/orders']?.['post'];
    assert.equal(v21Order?.responses?.['503'], undefined, 'v2.1 is unchanged');
  });
});
