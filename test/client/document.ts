import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { openServices } from '../../src/main.js';

// The typed client of the interface: TypeScript types generated from the service's own OpenAPI
// document by openapi-typescript, used with openapi-fetch as an integrator would use them.
// `npm run client:types` writes them to test/client/openapi.d.ts; the typed-client test fails
// when that file no longer matches the document.

export const TYPES_FILE = new URL('./openapi.d.ts', import.meta.url);

const HEADER = `// Generated from /v2.1/openapi.json by openapi-typescript (npm run client:types). Do not edit.\n\n`;

/** The document a simulator serves, from an app on a throwaway in-memory database. */
export async function liveDocument(): Promise<OpenAPI3> {
  const services = await openServices(testConfig());
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(services.deps, { logLevel: 'silent' });
    const res = await app.inject({ method: 'GET', url: '/v2.1/openapi.json' });
    return res.json() as OpenAPI3;
  } finally {
    await app?.close();
    await services.close();
  }
}

/** The client types of a document, as the file holds them. */
export async function clientTypes(document: OpenAPI3): Promise<string> {
  return HEADER + astToString(await openapiTS(document, { alphabetize: true }));
}
