import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import type { main as Main } from './main.js';

// dist/esim.js, the compiled `esim` command (scripts/build.mjs bundles this file alone). It runs
// the bundle of the whole CLI, dist/esim.cjs, with V8's code cache for it, dist/esim.cjs.cache:
// the bytecode of every function a start runs, written by the build after a real start. With it
// a start neither parses the 4.7 MB bundle nor compiles those functions again (Node.js 20 has no
// module compile cache). A cache from another build, another Node.js or other V8 flags is not
// used: the bundle is then compiled as without one.
// ESIM_CODE_CACHE_OUT=<file> (the build's own setting) writes the cache when the command ends.

declare const ESIM_BUILD_ID: string | undefined;

const BUILD = typeof ESIM_BUILD_ID === 'string' ? ESIM_BUILD_ID : '';
const bundle = fileURLToPath(new URL('./esim.cjs', import.meta.url));
const cacheFile = `${bundle}.cache`;
const header = Buffer.from(`esim code cache ${BUILD}\n`, 'latin1');

/** The cache when it belongs to this build. */
function readCache(): Buffer | undefined {
  if (BUILD === '' || !existsSync(cacheFile)) return undefined;
  const file = readFileSync(cacheFile);
  return file.subarray(0, header.length).equals(header) ? file.subarray(header.length) : undefined;
}

const cachedData = readCache();
// A function declaration, not a parenthesised expression, which V8 would compile eagerly, all of
// it, when there is no cache. The bundle begins with "use strict": the whole of it is strict code,
// as the ES modules it was made from are. The build writes the bundle in ASCII alone: read as
// Latin-1, it becomes a one-byte string with no UTF-8 to decode.
const script = new Script(
  `function esim(exports, require, module, __filename, __dirname, __esimUrl) {${readFileSync(bundle, 'latin1')}\n}\nesim;`,
  { filename: bundle, ...(cachedData === undefined ? {} : { cachedData }) },
);

/** Whether this start used the code cache (informative, and checked by test/cli/start.test.ts). */
export const codeCache: 'used' | 'rejected' | 'none' =
  cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used';

type Wrapper = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  url: string,
) => void;
const loaded: { exports: object } = { exports: {} };
(script.runInThisContext() as Wrapper)(
  loaded.exports,
  createRequire(bundle),
  loaded,
  bundle,
  dirname(bundle),
  pathToFileURL(bundle).href,
);

export const main = (loaded.exports as { main: typeof Main }).main;

const cacheOut = process.env['ESIM_CODE_CACHE_OUT'];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    if (cacheOut !== undefined && cacheOut !== '') {
      writeFileSync(cacheOut, Buffer.concat([header, script.createCachedData()]));
    }
    // Once the command is done, a leftover handle (a socket, a timer) must not keep it alive.
    setTimeout(() => process.exit(), 2000).unref();
  });
}
