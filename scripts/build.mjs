// `npm run build`: compiles src/ into dist/ in four steps, after the client package.
// 0. tsc builds the client package (packages/client/dist/: the typed clients and the signature
//    check), which the service package's `./client/v2.x` and `./verify` re-export.
// 1. tsc (incremental) emits one JavaScript module per source file, with source maps: the
//    package's library entry points (`./verify`, `./client/v2.x`) and a type check of the
//    shipped code; a second tsc run (tsconfig.lib.json) writes the type declarations of those
//    entry points, the only ones the package ships.
// 2. The request validators and response serialisers of every route are generated as
//    JavaScript (scripts/schema-code.mjs, run on tsc's output) into
//    dist/precompiled-schemas.cjs, which the bundle takes in place of
//    src/http/precompiled-schemas.ts: a start loads them instead of compiling them.
// 3. esbuild bundles the command-line interface and its dependencies into one CommonJS file,
//    dist/esim.cjs (and the SQLite checkpointer's thread into dist/wal-checkpointer-worker.cjs,
//    the callback sender's into dist/callback-sender-worker.cjs, the callback delivery thread's
//    into dist/callback-delivery-worker.cjs),
//    and its launcher into dist/esim.js, which `npm start` and bin/esim.js run
//    with plain node. Loading one file instead of about a thousand modules is most of what makes
//    the service start fast. Left outside the bundle: native code (better-sqlite3, the optional
//    pg-native). @fastify/swagger-ui serves its own files (the /docs page): they are copied to
//    dist/swagger-ui/static, where the bundled plugin looks for them.
//    Beside it, dist/first-start.sqlite: a database with every migration applied and the
//    built-in catalogue loaded (scripts/first-start-image.mjs), which a first start copies.
// 4. A real start of the bundle (empty data directory, one request, shutdown) writes V8's code
//    cache of it, dist/esim.cjs.cache, which the launcher gives V8 (src/cli/launcher.ts).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeFirstStartImage } from './first-start-image.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');
const bundle = join(dist, 'esim.cjs');
const codeCache = `${bundle}.cache`;

const client = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', join('packages', 'client', 'tsconfig.json')],
  { cwd: root, stdio: 'inherit' },
);
const tsc = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  { cwd: root, stdio: 'inherit' },
);
const declarations = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.lib.json'],
  { cwd: root, stdio: 'inherit' },
);

const schemaCode = join(dist, 'precompiled-schemas.cjs');
const { generateSchemaCode } = await import('./schema-code.mjs');
writeFileSync(schemaCode, (await generateSchemaCode()).source);

/** The bundle's precompiled-schemas module is the generated one. */
const precompiledSchemas = {
  name: 'precompiled-schemas',
  setup(plugin) {
    plugin.onResolve({ filter: /\/precompiled-schemas\.js$/ }, () => ({ path: schemaCode }));
  },
};

/**
 * @fastify/swagger-ui finds its files from its own directory (index.js: ./static, lib/routes.js:
 * ../static); in the bundle both look in dist/swagger-ui, a copy of the package's static/.
 */
const swaggerUiFiles = {
  name: 'swagger-ui-files',
  setup(plugin) {
    plugin.onLoad(
      { filter: /[\\/]@fastify[\\/]swagger-ui[\\/](index|lib[\\/]routes)\.js$/ },
      (file) => {
        const dir = /routes\.js$/.test(file.path) ? '/swagger-ui/lib' : '/swagger-ui';
        const source = readFileSync(file.path, 'utf8');
        return { contents: source.replaceAll('__dirname', `(__dirname + '${dir}')`), loader: 'js' };
      },
    );
  },
};
/**
 * Node.js modules that a dependency loads with itself but uses only on paths a start never takes
 * (Fastify's HTTPS and HTTP/2 servers, prom-client's push to a Prometheus gateway): in the bundle
 * they are loaded on first use. With zlib (the QR code library's, loaded on first use in the
 * sources) they cost about 5 ms of a start's CPU (bench/start.md).
 * Each line must be found as written (the versions are pinned): a dependency that changed stops
 * the build here instead of quietly loading them again.
 */
/** The stand-in each patched file gets: the module, required on first use of any of its members. */
const LAZY_BUILTIN =
  'function lazyBuiltin(id) { let loaded; ' +
  'return new Proxy({}, { get: (_target, key) => (loaded ??= require(id))[key] }); }\n';
const LAZY_BUILTINS = [
  {
    file: /[\\/]fastify[\\/]lib[\\/]server\.js$/,
    lines: [
      ["const https = require('node:https')", "const https = lazyBuiltin('node:https')"],
      ["const http2 = require('node:http2')", "const http2 = lazyBuiltin('node:http2')"],
    ],
    append: LAZY_BUILTIN,
  },
  {
    file: /[\\/]prom-client[\\/]lib[\\/]pushgateway\.js$/,
    lines: [
      ["const https = require('https');", "const https = lazyBuiltin('https');"],
      [
        "const { gzipSync } = require('zlib');",
        "const gzipSync = (...args) => require('zlib').gzipSync(...args);",
      ],
    ],
    append: LAZY_BUILTIN,
  },
];
/**
 * The router (find-my-way) compiles small functions with `new Function` as routes are added:
 * a prefix matcher for every static node of its trees, and for every route's handler a function
 * that builds its parameters object and one that picks a handler by constraints (used only when
 * a request carries constraints, which this service never sets). A start adds some 420 routes
 * (every version's, their HEAD twins, the portal's), so it compiled about a thousand functions
 * that code caching cannot keep, most of which no request ever calls. In the bundle each is
 * compiled on its first call instead, by a stand-in that compiles it exactly as the router would
 * have, puts it in its own place and calls it: the functions, and so the routing, are the same
 * from then on (bench/start.md). Lines must be found as written, as for LAZY_BUILTINS.
 */
const LAZY_ROUTER_FUNCTIONS = [
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
    lines: [
      [
        'this.matchPrefix = kind === NODE_TYPES.STATIC ? compilePrefixMatch(prefix) : null',
        'this.matchPrefix = kind === NODE_TYPES.STATIC ? matchPrefixOnFirstCall(this, prefix) : null',
      ],
      [
        'this.matchPrefix = compilePrefixMatch(childPrefix)',
        'this.matchPrefix = matchPrefixOnFirstCall(this, childPrefix)',
      ],
    ],
    append:
      'function matchPrefixOnFirstCall(node, prefix) { return function matchPrefix(path, i) { ' +
      'node.matchPrefix = compilePrefixMatch(prefix); return node.matchPrefix(path, i); }; }\n',
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    lines: [
      [
        '_createParamsObject: this._compileCreateParamsObject(params)',
        '_createParamsObject: createParamsObjectOnFirstCall(this, params)',
      ],
      [
        'this._compileGetHandlerMatchingConstraints(constrainer, constraints)',
        'this._getHandlerMatchingConstraints = matchConstraintsOnFirstCall(constrainer)',
      ],
    ],
    // Both are called as methods: of the handler object, and of the handler storage.
    append:
      'function createParamsObjectOnFirstCall(storage, params) { ' +
      'return function _createParamsObject(param0, param1, param2, param3, extraParams) { ' +
      'this._createParamsObject = storage._compileCreateParamsObject(params); ' +
      'return this._createParamsObject(param0, param1, param2, param3, extraParams); }; }\n' +
      'function matchConstraintsOnFirstCall(constrainer) { ' +
      'return function _getHandlerMatchingConstraints(derivedConstraints) { ' +
      'this._compileGetHandlerMatchingConstraints(constrainer); ' +
      'return this._getHandlerMatchingConstraints(derivedConstraints); }; }\n',
  },
];
/** Applies LAZY_BUILTINS and LAZY_ROUTER_FUNCTIONS to the dependencies' files as they are bundled. */
const dependencyPatches = {
  name: 'dependency-patches',
  setup(plugin) {
    for (const { file, lines, append } of [...LAZY_BUILTINS, ...LAZY_ROUTER_FUNCTIONS]) {
      plugin.onLoad({ filter: file }, (loaded) => {
        let source = readFileSync(loaded.path, 'utf8');
        for (const [line, lazy] of lines) {
          if (source.split(line).length !== 2) {
            throw new Error(`${loaded.path}: no longer has ${line} exactly once`);
          }
          source = source.replace(line, lazy);
        }
        // After the file's "use strict": a function declaration is hoisted.
        return { contents: `${source}\n${append}`, loader: 'js' };
      });
    }
  },
};
rmSync(join(dist, 'swagger-ui'), { recursive: true, force: true });
cpSync(
  join(require.resolve('@fastify/swagger-ui'), '..', 'static'),
  join(dist, 'swagger-ui', 'static'),
  { recursive: true },
);

rmSync(codeCache, { force: true });
const buildId = randomUUID();
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/esim.cjs',
  format: 'cjs',
  external: ['better-sqlite3', 'pg-native'],
  // The sources are ES modules: import.meta.url is the bundle's own URL, which the launcher
  // passes in as __esimUrl. (A banner would come before the bundle's "use strict".)
  define: { 'import.meta.url': '__esimUrl' },
  // Without the dependencies' comments and indentation: 4.7 MB instead of 7.1, which a start
  // reads and holds as one string (names are kept: stack traces and Function#name read as before).
  minifyWhitespace: true,
  plugins: [precompiledSchemas, swaggerUiFiles, dependencyPatches],
});
// The bundle in ASCII alone: the few other characters (in comments and the portal's template
// strings) as \u escapes, which mean the same. The launcher then reads it as Latin-1, straight
// into a one-byte string, instead of decoding UTF-8 into a two-byte one of twice the size.
const bundleText = readFileSync(bundle, 'utf8').replace(
  /[\u0080-\uffff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
writeFileSync(bundle, bundleText);
// The SQLite checkpointer's thread (src/store/wal-checkpointer.ts) is a file of its own, loaded
// by a worker_thread from beside the bundle.
await build({
  ...common,
  entryPoints: ['src/store/wal-checkpointer-worker.ts'],
  outfile: 'dist/wal-checkpointer-worker.cjs',
  format: 'cjs',
  external: ['better-sqlite3'],
});
// The callback sender's thread (src/callbacks/sender-thread.ts), likewise.
await build({
  ...common,
  entryPoints: ['src/callbacks/sender-thread-worker.ts'],
  outfile: 'dist/callback-sender-worker.cjs',
  format: 'cjs',
});
// The callback delivery thread (src/workers/delivery-thread.ts), likewise: the delivery worker
// with its database drivers. Modules it takes in name their own URL (the threads they would
// start, which it never does): import.meta.url is this file's.
await build({
  ...common,
  entryPoints: ['src/workers/delivery-thread-worker.ts'],
  outfile: 'dist/callback-delivery-worker.cjs',
  format: 'cjs',
  external: ['better-sqlite3', 'pg-native'],
  define: { 'import.meta.url': '__workerUrl' },
  banner: { js: "var __workerUrl = require('node:url').pathToFileURL(__filename).href;" },
});
await build({
  ...common,
  entryPoints: ['src/cli/launcher.ts'],
  outfile: 'dist/esim.js',
  format: 'esm',
  define: { ESIM_BUILD_ID: JSON.stringify(buildId) },
});
// The database a first start copies (src/store/first-start-image.ts), made before the code cache's
// start so that start is a first start as users run it.
await writeFirstStartImage(join(dist, 'first-start.sqlite'));
await writeCodeCache();

/** Starts the bundle on an empty data directory, asks it one request, stops it. */
async function writeCodeCache() {
  const data = mkdtempSync(join(tmpdir(), 'esim-code-cache-'));
  const child = spawn(process.execPath, [join(dist, 'esim.js'), 'serve'], {
    cwd: root,
    // Simulator mode on a scratch directory, whatever the build's environment configures; only
    // NODE_OPTIONS is kept, since V8 takes a cache only under the flags it was made with.
    env: {
      PATH: process.env.PATH,
      ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }),
      MODE: 'simulator',
      DATA_DIR: data,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ESIM_CODE_CACHE_OUT: codeCache,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        output += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(output);
        if (found) resolve(found[1]);
      });
      void exited.then(() => reject(new Error(`the service exited: ${output}`)));
    });
    for (const path of ['/healthz', '/readyz']) await (await fetch(url + path)).arrayBuffer();
    child.kill('SIGTERM');
    await exited;
  } catch (error) {
    child.kill('SIGKILL');
    console.error(`build: no code cache (${error instanceof Error ? error.message : error})`);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

process.exit(
  [client, tsc, declarations].map((run) => run.status ?? 1).find((status) => status !== 0) ?? 0,
);
