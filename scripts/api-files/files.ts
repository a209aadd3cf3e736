import { clientFiles, serviceReExport } from './client.js';
import { liveDocuments } from './documents.js';
import type { VersionDocument } from './documents.js';
import { httpFile, postmanCollection } from './requests.js';

/**
 * Every generated file, by its path from the repository root, with its text: from the given
 * documents, or from those a simulator serves now.
 */
export async function apiFiles(
  documents?: readonly VersionDocument[],
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const version of documents ?? (await liveDocuments())) {
    const v = `v${version.version}`;
    const client = await clientFiles(version);
    files.set(`packages/client/src/${v}/openapi.ts`, client.types);
    files.set(`packages/client/src/${v}/index.ts`, client.index);
    files.set(`src/client/${v}/index.ts`, await serviceReExport(version.version));
    files.set(`docs/api/${v}.postman_collection.json`, await postmanCollection(version));
    files.set(`docs/api/${v}.http`, httpFile(version));
  }
  return files;
}
