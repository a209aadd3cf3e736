import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { apiFiles } from '../scripts/api-files/files.js';
import { liveDocuments, operationsOf } from '../scripts/api-files/documents.js';
import type { VersionDocument } from '../scripts/api-files/documents.js';

// The files generated from each version's OpenAPI document, committed so that they can be
// downloaded and shipped without a build: the client package's typed client
// (packages/client/src/v2.x/) and the service package's re-export of it (src/client/v2.x/), the
// Postman collection and the .http file (docs/api/). They must be what the documents give
// today: `npm run api:generate` rewrites them.

const ROOT = new URL('../', import.meta.url);

interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: { method: string; url: { raw: string }; body?: { raw: string } };
}

function requests(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((item) => (item.item === undefined ? [item] : requests(item.item)));
}

describe('files generated from the OpenAPI documents', () => {
  let documents: VersionDocument[];
  let generated: Map<string, string>;
  before(async () => {
    documents = await liveDocuments();
    generated = await apiFiles(documents);
  });

  it('are committed as the documents give them today', () => {
    const stale = [...generated]
      .filter(([path, text]) => {
        try {
          return readFileSync(new URL(path, ROOT), 'utf8') !== text;
        } catch {
          return true; // missing
        }
      })
      .map(([path]) => path);
    assert.deepEqual(stale, [], 'stale or missing: run npm run api:generate');
    assert.equal(generated.size, documents.length * 5);
  });

  it('hold every operation of each version, with its request body example', () => {
    for (const { version, document } of documents) {
      const operations = operationsOf(document);
      const collection = JSON.parse(
        generated.get(`docs/api/v${version}.postman_collection.json`) ?? '{}',
      ) as { info: { schema: string }; item: PostmanItem[] };
      assert.equal(
        collection.info.schema,
        'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
      );
      const inCollection = requests(collection.item).map(
        (r) => `${r.request?.method} ${r.request?.url.raw}`,
      );
      const expected = operations.map(
        (op) => `${op.method} {{baseUrl}}${op.path.replace(/\{([^}]+)\}/g, '{{$1}}')}`,
      );
      assert.deepEqual(inCollection.sort(), [...expected].sort(), `v${version} collection`);
      for (const request of requests(collection.item)) {
        if (request.request?.body !== undefined) JSON.parse(request.request.body.raw);
      }

      const http = generated.get(`docs/api/v${version}.http`) ?? '';
      const blocks = http.split(/^### /m).slice(1);
      assert.deepEqual(
        blocks.map((b) => b.slice(0, b.indexOf(':'))),
        operations.map((op) => op.operationId),
        `v${version} .http file`,
      );
      for (const op of operations.filter((o) => o.body?.example !== undefined)) {
        const block = blocks.find((b) => b.startsWith(`${op.operationId}:`)) ?? '';
        const body = block.slice(block.indexOf('\n\n') + 2);
        assert.deepEqual(JSON.parse(body), op.body?.example, `${op.operationId} body`);
      }

      const client = generated.get(`packages/client/src/v${version}/index.ts`) ?? '';
      for (const op of operations) {
        assert.match(client, new RegExp(`^  ${op.operationId}\\(input`, 'm'), op.operationId);
      }
    }
  });
});
