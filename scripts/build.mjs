// `npm run build`: compiles src/ into dist/ in two steps.
// 1. tsc (incremental) emits one JavaScript module per source file, with source maps: the
//    package's library entry points (`./verify`) and a type check of the shipped code.
// 2. esbuild bundles the command-line entry point and its dependencies into one file,
//    dist/esim.js, which `npm start` and bin/esim.js run with plain node. Loading one file
//    instead of about a thousand modules is most of what makes the service start fast.
//    Left outside the bundle: native code (better-sqlite3, the optional pg-native) and packages
//    that read their own files at run time (@fastify/swagger-ui serves its assets).
//    Between the two, the request validators and response serialisers of every route are
//    generated as JavaScript (src/http/schema-code.ts, run from tsc's output) into
//    dist/precompiled-schemas.cjs, which the bundle takes in place of
//    src/http/precompiled-schemas.ts: a start then loads them instead of compiling them.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

const tsc = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  { cwd: root, stdio: 'inherit' },
);

const schemaCode = join(root, 'dist', 'precompiled-schemas.cjs');
const { generateSchemaCode } = await import(
  pathToFileURL(join(root, 'dist', 'http', 'schema-code.js')).href
);
const generated = await generateSchemaCode();
writeFileSync(schemaCode, generated.source);

/** The bundle's precompiled-schemas module is the generated one. */
const precompiledSchemas = {
  name: 'precompiled-schemas',
  setup(plugin) {
    plugin.onResolve({ filter: /\/precompiled-schemas\.js$/ }, () => ({ path: schemaCode }));
  },
};

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/esim.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'pg-native', '@fastify/swagger-ui'],
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __esimRequire } from 'node:module'; const require = __esimRequire(import.meta.url);",
  },
  plugins: [precompiledSchemas],
  logLevel: 'warning',
});

process.exit(tsc.status ?? 1);
