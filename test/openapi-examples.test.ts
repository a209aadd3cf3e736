import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { startTestApp } from './harness.js';
import type { TestApp } from './harness.js';

// Every operation of the OpenAPI document is documented for a generated client: a stable
// operationId, a summary, a description of each response (never Fastify's "Default Response")
// and an example of its success answer that its own response schema accepts. An operation that
// answers a file instead of JSON (CSV, a ZIP of QR codes) gives its media type a schema, and a
// textual one an example.

type Operation = {
  operationId?: string;
  summary?: string;
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: unknown; example?: unknown }> }
  >;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('OpenAPI operations: ids, summaries, response descriptions and examples', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>>; components?: unknown };

  before(async () => {
    t = await startTestApp('sqlite');
    doc = (await t.app.inject({ url: '/v2.1/openapi.json' })).json();
  });
  after(() => t.close());

  const operations = (): [string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
    );

  it('gives every operation a lowerCamelCase operationId and a summary', () => {
    assert.ok(operations().length >= 46);
    for (const [name, op] of operations()) {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z0-9]+$/, name);
      assert.ok((op.summary ?? '').length > 0, `${name} has a summary`);
    }
  });

  it('describes every response', () => {
    for (const [name, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const description = response.description ?? '';
        assert.ok(description !== '' && description !== 'Default Response', `${name} ${status}`);
      }
    }
  });

  it('gives every success answer an example that its schema accepts', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    // The document's own components, so the response schemas' $refs resolve.
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const [name, op] of operations()) {
      const success = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'))?.[1];
      const content = success?.content ?? {};
      assert.ok(Object.keys(content).length > 0, `${name} documents what it answers`);
      // JSON, or a JSON file format of its own (a simulator snapshot, +json).
      const jsonType = Object.keys(content).find(
        (type) => type === 'application/json' || type.endsWith('+json'),
      );
      const media = jsonType === undefined ? undefined : content[jsonType];
      if (media === undefined) {
        for (const [type, file] of Object.entries(content)) {
          const schema = file.schema as { type?: string; example?: unknown } | undefined;
          assert.equal(schema?.type, 'string', `${name} ${type} is a file`);
          if (type.startsWith('text/')) {
            const example = file.example ?? schema?.example;
            assert.equal(typeof example, 'string', `${name} ${type} has an example`);
          }
        }
        continue;
      }
      const schema = media.schema as { example?: unknown } | undefined;
      const example = media.example ?? schema?.example;
      assert.ok(example !== undefined, `${name} has an example`);
      const resolved = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'),
      );
      const validate = ajv.compile(resolved);
      assert.ok(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`);
    }
  });
});
