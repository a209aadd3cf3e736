// npm run client:types: regenerates test/client/openapi.d.ts from the live OpenAPI document.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TYPES_FILE, clientTypes, liveDocument } from './document.js';

writeFileSync(TYPES_FILE, await clientTypes(await liveDocument()));
console.log(`wrote ${fileURLToPath(TYPES_FILE)}`);
