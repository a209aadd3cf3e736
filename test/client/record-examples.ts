// npm run openapi:examples: records a real answer of every operation (the typed-client calls on
// a fresh simulator) into src/http/openapi-examples.ts, the examples of the OpenAPI document.
// Arrays are cut to two items and secrets replaced, so the examples stay short and safe to show.
import { writeFileSync } from 'node:fs';
import { CALLS } from './calls.js';
import { startClientSession } from './session.js';

const FILE = new URL('../../src/http/openapi-examples.ts', import.meta.url);

/** Values that would show a secret or the recording machine's receiver address. */
const REPLACED: Readonly<Record<string, string>> = {
  apiKey: 'esim_EXAMPLE-KEY-NOT-A-REAL-ONE',
  callbackUrl: 'https://acme.example/esim-callbacks',
  url: 'https://acme.example/esim-callbacks',
};

function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(trim);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      typeof item === 'string' && REPLACED[key] !== undefined ? REPLACED[key] : trim(item),
    ]),
  );
}

const session = await startClientSession('sqlite');
const examples: Record<string, unknown> = {};
try {
  for (const [id, call] of CALLS) {
    const { response, data } = await call(session.context);
    if (!response.ok) throw new Error(`${id}: ${response.status}`);
    // Only JSON answers: the files (CSV, ZIP) carry their examples in their route schemas.
    const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
    if (json && data !== undefined && data !== '') examples[id] = trim(data);
  }
} finally {
  await session.close();
}
writeFileSync(
  FILE,
  `// Recorded by \`npm run openapi:examples\` (test/client/record-examples.ts); see openapi-responses.ts.\n` +
    `export const EXAMPLES: Readonly<Record<string, unknown>> = ${JSON.stringify(examples, null, 2)};\n`,
);
console.log(`recorded ${Object.keys(examples).length} examples`);
