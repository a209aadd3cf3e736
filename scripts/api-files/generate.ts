// npm run api:generate: from each version's OpenAPI document, the typed client of the client
// package (packages/client/src/v2.x/, re-exported by the service package's src/client/v2.x/)
// and the request collections (docs/api/v2.x.postman_collection.json, docs/api/v2.x.http). test/api-files.test.ts fails when a committed file no longer matches.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiFiles } from './files.js';

const root = new URL('../../', import.meta.url);
for (const [path, text] of await apiFiles()) {
  const file = new URL(path, root);
  mkdirSync(new URL('.', file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${fileURLToPath(file)}`);
}
