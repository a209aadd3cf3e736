import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import SQLite from 'better-sqlite3';
import { scratchDir } from './helpers.js';
import { encodeMissingBundleJson, seedBuiltInCatalogue } from '../../src/domain/catalogue/seed.js';
import { migrate, openStore } from '../../src/store/database.js';
import { copyFirstStartImage } from '../../src/store/first-start-image.js';

// `npm start` is what the README tells everyone to run: it must serve from the compiled
// JavaScript in dist/ with plain node, with no TypeScript compiler loaded at run time.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface ProcessInfo {
  pid: number;
  ppid: number;
  argv: string[];
}

function processes(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        // Field 4 of /proc/<pid>/stat, after the parenthesised command name.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return [{ pid: Number(name), ppid, argv }];
      } catch {
        return []; // gone meanwhile
      }
    });
}

function descendants(root: number): ProcessInfo[] {
  const all = processes();
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

describe('npm start', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  const data = scratchDir();
  let serverPid: number | undefined;
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      DATA_DIR: data.path,
      PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  after(async () => {
    if (serverPid !== undefined) process.kill(serverPid, 'SIGTERM');
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    data.remove();
  });

  it('serves from dist/ with plain node: no tsx anywhere in its process tree', async () => {
    const url = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
        return /listening on (http:\/\/\S+)/.exec(output)?.[1];
      },
      60_000,
      'npm start to listen',
    );
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    // The docs page's files are copied into dist/ for the bundled @fastify/swagger-ui.
    for (const file of ['/docs/', '/docs/static/swagger-ui-bundle.js', '/docs/static/logo.svg']) {
      const res = await fetch(`${url}${file}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, file);
    }
    const apiKey = /^API key: (esim_\S+)$/m.exec(output)?.[1] ?? '';
    assert.ok(apiKey, 'the demo key of a fresh data directory');
    // The first start began with the prepared database: its catalogue is the built-in one.
    const bundle = await fetch(`${url}/v2.1/catalogue/bundle/esim_1GB_7D_FR_V2`, {
      headers: { 'X-API-Key': apiKey },
    });
    assert.equal(bundle.status, 200);
    assert.equal(((await bundle.json()) as { name: string }).name, 'esim_1GB_7D_FR_V2');

    assert.ok(child.pid !== undefined);
    const tree = descendants(child.pid);
    const server = tree.find(
      (p) => p.argv.includes('serve') && p.argv.some((a) => /node$/.test(a)),
    );
    assert.ok(server, JSON.stringify(tree));
    serverPid = server.pid;
    assert.deepEqual(server.argv.slice(1), ['dist/esim.js', 'serve']);
    const everything = [child.pid, ...tree.map((p) => p.pid)];
    for (const p of tree) {
      assert.doesNotMatch(p.argv.join(' '), /tsx|esbuild|typescript|\.ts\b/, `pid ${p.pid}`);
    }
    assert.ok(everything.length <= 3, `npm, at most a shell, node: ${JSON.stringify(tree)}`);

    process.kill(server.pid, 'SIGTERM');
    serverPid = undefined;
    assert.equal(await exited, 0, output);
  });
});

describe('the compiled start', () => {
  it('copies a prepared first database: what the migrations and the built-in catalogue make', async () => {
    // dist/first-start.sqlite stands in for the migrations and the catalogue seed of a first
    // start (src/store/first-start-image.ts): its tables, indexes and bundles must be theirs.
    const data = scratchDir();
    try {
      const path = join(data.path, 'made.sqlite');
      const store = openStore({ kind: 'sqlite', path });
      try {
        await migrate(store);
        await seedBuiltInCatalogue(store.db, '2026-01-01T00:00:00.000Z');
        await encodeMissingBundleJson(store.db);
      } finally {
        await store.close();
      }
      const copied = join(data.path, 'copied.sqlite');
      assert.equal(copyFirstStartImage(join(ROOT, 'dist', 'first-start.sqlite'), copied), true);
      assert.equal(statSync(copied).mode & 0o777, 0o600, 'the copy is private');
      assert.equal(copyFirstStartImage(copied, copied), false, 'an existing file is kept');
      const contents = (file: string): unknown => {
        const db = new SQLite(file, { readonly: true });
        try {
          return {
            schema: db
              .prepare(
                "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
              )
              .all(),
            migrations: db.prepare('SELECT name FROM kysely_migration ORDER BY name').all(),
            bundles: db
              .prepare('SELECT * FROM bundles ORDER BY name')
              .all()
              .map((row) => ({ ...(row as object), created_at: undefined })),
            others: ['bundle_countries', 'bundle_groups', 'catalogue_state'].map((table) =>
              db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all(),
            ),
          };
        } finally {
          db.close();
        }
      };
      assert.deepEqual(contents(copied), contents(path), 'rebuild with `npm run build`');
    } finally {
      data.remove();
    }
  });

  it('gives V8 the code cache the build wrote for the bundle', () => {
    // dist/esim.js reports whether V8 took dist/esim.cjs.cache: without it every start parses
    // and compiles the whole bundle again (docs/operations.md, "Start time").
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "console.log((await import('./dist/esim.js')).codeCache)"],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'used');
  });

  it('is ready without loading HTTPS, TLS, HTTP/2 or zlib, which only later work uses', async () => {
    // docs/operations.md, "Start time": Fastify's HTTPS and HTTP/2 servers, prom-client's push
    // to a gateway, the callback sender and the QR and ZIP libraries (which bring zlib) load
    // them on first use. The list is read in the serving process once /readyz answers 200.
    const data = scratchDir();
    try {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const address = probe.address();
      await new Promise((resolve) => probe.close(resolve));
      assert.ok(address !== null && typeof address === 'object');
      const script = `
        import http from 'node:http';
        const { main } = await import('./dist/esim.js');
        void main(['serve']);
        const status = () => new Promise((resolve) => {
          http.get({ host: '127.0.0.1', port: ${address.port}, path: '/readyz' }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          }).on('error', () => resolve(0));
        });
        while ((await status()) !== 200) await new Promise((resolve) => setTimeout(resolve, 5));
        process.stdout.write('MODULES ' + JSON.stringify(process.moduleLoadList) + '\\n');
        process.exit(0);
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'],
          DATA_DIR: data.path,
          PORT: String(address.port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 0, output);
      const line = output.split('\n').find((l) => l.startsWith('MODULES '));
      assert.ok(line !== undefined, output);
      const loaded = new Set(JSON.parse(line.slice('MODULES '.length)) as string[]);
      // The list is the serving process's: it holds the HTTP server's module.
      assert.ok(loaded.has('NativeModule http'), line);
      for (const name of ['https', 'tls', 'http2', 'zlib']) {
        assert.ok(!loaded.has(`NativeModule ${name}`), `a start loaded node:${name}`);
      }
    } finally {
      data.remove();
    }
  });

  it('runs the bundle as strict code, as the ES modules it is made from', () => {
    // The launcher wraps dist/esim.cjs in a function: its "use strict" must come first.
    const bundle = readFileSync(new URL('dist/esim.cjs', `file://${ROOT}`), 'utf8');
    assert.ok(bundle.startsWith('"use strict";'), bundle.slice(0, 80));
  });
});
