import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { createDemoOrganisation } from '../src/demo.js';
import { servedDocumentPaths } from '../src/http/openapi.js';
import { DATABASES, startTestApp } from './harness.js';
import type { TestApp } from './harness.js';

// "Try it out" works unedited: every request body of every OpenAPI document the app serves has an
// example, its schema accepts it, and a fresh demo database (what `npm start` creates) answers it
// with a 2xx when the examples are sent from the top of the page down. The one edit a reader
// makes is an ICCID: the examples that need one are sent last, with the ICCID the earlier
// examples issued, the simulator's first (they play the phone that installs and attaches it).

type Media = { schema?: unknown; example?: unknown };
type Operation = {
  operationId?: string;
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, Media> };
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: unknown };

interface Example {
  readonly name: string;
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly schema: unknown;
}

function examplesOf(doc: Document): Example[] {
  const found: Example[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const media = op.requestBody?.content?.['application/json'];
      if (media === undefined) continue;
      const name = `${method.toUpperCase()} ${path} (${op.operationId ?? '?'})`;
      assert.ok(media.example !== undefined, `${name} has a request example`);
      found.push({
        name,
        method: method.toUpperCase() as Example['method'],
        path,
        body: media.example as Record<string, unknown>,
        schema: media.schema,
      });
    }
  }
  return found;
}

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

const needsIccid = (e: Example): boolean => e.path.includes('{iccid}') || 'iccid' in e.body;

for (const kind of DATABASES) {
  describe(`OpenAPI request examples on a fresh demo database (${kind})`, () => {
    let probe: TestApp;
    let documents: string[];

    before(async () => {
      probe = await startTestApp(kind);
      documents = servedDocumentPaths(probe.app);
    });
    after(() => probe.close());

    it('finds the documents the app serves', () => {
      assert.ok(documents.includes('/v2.1/openapi.json'), documents.join(', '));
    });

    it('answers every request example of every document with a 2xx', async () => {
      for (const documentPath of documents) {
        const t = await startTestApp(kind);
        try {
          const demo = await createDemoOrganisation(t.deps);
          assert.ok(demo !== undefined);
          const doc = (await t.app.inject({ url: documentPath })).json<Document>();
          const ajv = new Ajv({ strict: false, allErrors: true });
          ajv.addSchema({
            $id: 'doc',
            components: jsonSchema(JSON.stringify(doc.components ?? {})),
          });
          const examples = examplesOf(doc);
          assert.ok(examples.length > 0, `${documentPath} has request bodies`);
          for (const e of examples) {
            const resolved = jsonSchema(
              JSON.stringify(e.schema).replaceAll('"#/components/', '"doc#/components/'),
            ) as object;
            const validate = ajv.compile(resolved);
            assert.ok(validate(e.body), `${e.name}: ${ajv.errorsText(validate.errors)}`);
          }
          let iccid = '';
          const send = async (e: Example): Promise<void> => {
            const path = e.path.replace('{iccid}', iccid);
            assert.doesNotMatch(path, /\{/, `${e.name}: only an ICCID is filled in`);
            const body = 'iccid' in e.body ? { ...e.body, iccid } : e.body;
            const res = await t.request(demo.apiKey, {
              method: e.method,
              url: path,
              payload: body,
            });
            assert.ok(
              res.statusCode >= 200 && res.statusCode < 300,
              `${documentPath} ${e.name}: ${res.statusCode} ${res.body}`,
            );
          };
          for (const e of examples.filter((x) => !needsIccid(x))) await send(e);
          const esims = await t.request(demo.apiKey, { url: '/v2.1/esims' });
          iccid = (esims.json<{ esims: { iccid: string }[] }>().esims[0]?.iccid ?? '') as string;
          assert.notEqual(iccid, '', 'an example issued an eSIM');
          // The simulated network first (it installs, attaches and numbers the eSIM, as a phone
          // would), then the API calls on it (an SMS needs the number).
          const onEsim = examples.filter(needsIccid);
          for (const e of onEsim.filter((x) => x.path.startsWith('/_sim'))) await send(e);
          for (const e of onEsim.filter((x) => !x.path.startsWith('/_sim'))) await send(e);
        } finally {
          await t.close();
        }
      }
    });
  });
}
