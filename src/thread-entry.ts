import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `new Worker()` is given to start a thread: a file, or code to evaluate. */
export interface ThreadEntry {
  readonly code: string | URL;
  readonly eval: boolean;
}

/**
 * Where a worker thread's code is, seen from the module that starts it (`here`, its
 * import.meta.url): beside the bundle (`dist/<bundled>`, built by scripts/build.mjs), beside that
 * module in tsc's output (`<name>.js`), or the TypeScript source (`<name>.ts`), which a worker can
 * load only through tsx's require hook (development and tests).
 */
export function threadEntry(here: string, bundled: string, name: string): ThreadEntry {
  if (basename(fileURLToPath(here)) === 'esim.cjs') {
    return { code: new URL(`./${bundled}`, here), eval: false };
  }
  if (here.endsWith('.js')) return { code: new URL(`./${name}.js`, here), eval: false };
  const require = createRequire(here);
  const source = fileURLToPath(new URL(`./${name}.ts`, here));
  const tsx = require.resolve('tsx/cjs/api');
  return {
    code: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`,
    eval: true,
  };
}
