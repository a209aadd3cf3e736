import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type * as ClientV25 from 'esim-bundle-service-client/v2.5';
import type * as Verify from 'esim-bundle-service-client/verify';
import type { Packed } from './packing.js';
import {
  CLIENT_DIR,
  ROOT,
  VERSIONS,
  installScratchDir,
  installedModule,
  installedPackages,
  integratorTsconfig,
  manifest,
  pack,
  run,
  typecheck,
  typescriptBlocks,
} from './packing.js';

// The client package as an integrator gets it without the server: packages/client packed alone,
// its tarball installed into an empty project as `npm install <tarball>` does (install scripts
// allowed, dependencies from npm's cache first), then its clients and signature check loaded
// and an integrator's strict TypeScript, the READMEs' examples included, checked against it.
// test/package/install.test.ts runs the same clients against a real server, through the
// service package that depends on this one.
//
// The install's budget is 10 s and fewer than 10 packages. The time asserted is the CPU time of
// npm and its children (user + system, from /proc), which other work on a shared machine does
// not stretch as it does the wall clock; the install runs with nothing to fetch (no dependency,
// or one npm's cache holds), so the CPU time is the time. The wall clock is printed beside it.

const INSTALL_BUDGET_SECONDS = 10;
const PACKAGE_BUDGET = 10;

type ClientModule = typeof ClientV25;
type VerifyModule = typeof Verify;

/** CPU seconds (user + system) that this process's finished children used, from /proc (Linux). */
function childrenCpuSeconds(ticksPerSecond: number): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // proc(5): after "pid (comm) ", the 3rd field (state) on; cutime and cstime are the 16th, 17th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

describe('the client package, packed alone and installed into an empty project', () => {
  const work = installScratchDir();
  const project = join(work.path, 'app');
  let packed: Packed | undefined;

  after(() => work.remove());

  it('packs the built clients, the signature check, README and licence, and nothing else', () => {
    const source = statSync(join(CLIENT_DIR, 'src', 'runtime.ts')).mtimeMs;
    const built = join(CLIENT_DIR, 'dist', 'runtime.js');
    assert.ok(existsSync(built) && statSync(built).mtimeMs >= source, 'run npm run build');
    packed = pack(CLIENT_DIR, work.path);
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/runtime.js',
      'dist/verify.js',
      'dist/verify.d.ts',
      ...VERSIONS.flatMap((v) => [`dist/v${v}/index.js`, `dist/v${v}/index.d.ts`]),
    ];
    assert.deepEqual(
      expected.filter((f) => !packed?.files.includes(f)),
      [],
      'files the package must ship',
    );
    const unwanted = packed.files.filter(
      (f) =>
        f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.includes('src/'),
    );
    assert.deepEqual(unwanted, [], 'files the package must not ship');

    const client = manifest(CLIENT_DIR);
    assert.equal(client.name, 'esim-bundle-service-client');
    assert.notEqual(client.private, true, 'a private package cannot be published');
    assert.equal(client.license, 'Apache-2.0');
    assert.deepEqual(client.dependencies ?? {}, {}, 'the READMEs say: no dependencies');
    assert.equal(
      readFileSync(join(CLIENT_DIR, 'LICENSE'), 'utf8'),
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
      "the service's licence",
    );
    const service = manifest(ROOT);
    assert.equal(client.version, service.version, 'published together, with one version');
    assert.equal(
      service.dependencies?.[client.name],
      client.version,
      'the service depends on the client of its own version',
    );
  });

  it(`installs alone from the tarball with fewer than ${PACKAGE_BUDGET} packages, in under ${INSTALL_BUDGET_SECONDS} s of CPU`, () => {
    assert.ok(packed !== undefined);
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }),
    );
    const ticks = Number(run('getconf', ['CLK_TCK'], project).stdout.trim());
    const cpuBefore = childrenCpuSeconds(ticks);
    const started = performance.now();
    const install = run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball],
      project,
    );
    const wall = (performance.now() - started) / 1000;
    const cpu = childrenCpuSeconds(ticks) - cpuBefore;
    const packages = installedPackages(project);
    const summary = `${packages.length} package(s), ${cpu.toFixed(2)} s CPU, ${wall.toFixed(2)} s wall`;
    console.log(`client package install: ${summary}`);

    assert.ok(packages.length < PACKAGE_BUDGET, summary);
    assert.ok(cpu < INSTALL_BUDGET_SECONDS, summary);
    assert.doesNotMatch(install.stderr, /EBADENGINE|Unsupported engine/);
    // Nothing built on install: no install scripts, no native addon.
    for (const { dir, manifest: installedManifest } of packages) {
      const scripts = Object.keys(installedManifest.scripts ?? {});
      assert.deepEqual(
        scripts.filter((s) => ['preinstall', 'install', 'postinstall'].includes(s)),
        [],
        dir,
      );
      assert.ok(!existsSync(join(dir, 'binding.gyp')) && installedManifest.gypfile !== true, dir);
    }
  });

  it("calls each version's own path through the installed clients", async () => {
    for (const version of VERSIONS) {
      const { createClient, EsimApiError } = await installedModule<ClientModule>(
        project,
        `esim-bundle-service-client/v${version}`,
      );
      const asked: { url: string; init: RequestInit | undefined }[] = [];
      const answers = [
        Response.json({ iccid: '8944000000000000017' }),
        Response.json({ message: 'eSIM not found', code: 'not_found' }, { status: 404 }),
      ];
      const client = createClient({
        baseUrl: 'http://esim.test:8080/',
        apiKey: 'esim_key',
        fetch: (url, init) => {
          asked.push({ url: String(url), init });
          const answer = answers.shift();
          assert.ok(answer !== undefined);
          return Promise.resolve(answer);
        },
      });
      const esim = await client.getEsim({ path: { iccid: '8944000000000000017' } });
      assert.equal(esim.iccid, '8944000000000000017');
      await assert.rejects(
        () => client.getEsim({ path: { iccid: '8944 0000/1' } }),
        (error: unknown) => {
          assert.ok(error instanceof EsimApiError, String(error));
          assert.equal(error.status, 404);
          assert.equal(error.code, 'not_found');
          assert.match(error.message, /eSIM not found/);
          return true;
        },
      );
      assert.deepEqual(
        asked.map((a) => a.url),
        [
          `http://esim.test:8080/v${version}/esims/8944000000000000017`,
          `http://esim.test:8080/v${version}/esims/8944%200000%2F1`,
        ],
      );
      const headers = new Headers(asked[0]?.init?.headers);
      assert.equal(headers.get('x-api-key'), 'esim_key', `v${version}`);
      assert.equal(asked[0]?.init?.method, 'GET');
    }
  });

  it('checks a callback signature with the installed verify', async () => {
    const { verifyCallbackSignature } = await installedModule<VerifyModule>(
      project,
      'esim-bundle-service-client/verify',
    );
    const body = '{"iccid":"8944000000000000017","alertType":"Utilisation","bundle":{"name":"é"}}';
    const signature = createHmac('sha256', 'esim_key').update(body, 'utf8').digest('base64');
    assert.equal(verifyCallbackSignature(body, signature, 'esim_key'), true);
    assert.equal(verifyCallbackSignature(Buffer.from(body, 'utf8'), signature, 'esim_key'), true);
    assert.equal(
      verifyCallbackSignature(new TextEncoder().encode(body), signature, 'esim_key'),
      true,
    );
    assert.equal(verifyCallbackSignature(body, signature, 'esim_other'), false);
    assert.equal(verifyCallbackSignature(`${body} `, signature, 'esim_key'), false);
    assert.equal(verifyCallbackSignature(body, '', 'esim_key'), false);
  });

  it("type-checks a call per version, the signature check and the READMEs' examples under --strict", () => {
    const lines = [
      "import { verifyCallbackSignature } from 'esim-bundle-service-client/verify';",
      ...VERSIONS.map(
        (v, i) => `import { createClient as v${i} } from 'esim-bundle-service-client/v${v}';`,
      ),
      "const options = { baseUrl: 'http://127.0.0.1:8080', apiKey: 'esim_x' };",
      ...VERSIONS.flatMap((v, i) => [
        `const iccid${i}: string = (await v${i}(options).getEsim({ path: { iccid: '8944' } })).iccid;`,
        `// @ts-expect-error v${v}: the path parameter is required`,
        `await v${i}(options).getEsim({});`,
        `// @ts-expect-error v${v}: no such operation`,
        `await v${i}(options).getEverything();`,
      ]),
      "const ok: boolean = verifyCallbackSignature('{}', 'signature', 'esim_x');",
      '// @ts-expect-error the API key is required',
      "verifyCallbackSignature('{}', 'signature');",
      `export { ok, ${VERSIONS.map((_v, i) => `iccid${i}`).join(', ')} };`,
      '',
    ];
    const files = new Map([['app.ts', lines.join('\n')]]);
    // Every example of the client in the READMEs and the callbacks guide, as printed.
    for (const doc of ['README.md', 'packages/client/README.md', 'docs/callbacks.md']) {
      const blocks = typescriptBlocks(readFileSync(join(ROOT, doc), 'utf8')).filter((b) =>
        b.includes("from 'esim-bundle-service-client/"),
      );
      assert.ok(blocks.length > 0, `${doc} shows the client package`);
      blocks.forEach((block, i) =>
        files.set(`${doc.replaceAll('/', '-')}-${i}.ts`, `${block}export {};\n`),
      );
    }
    for (const [name, text] of files) writeFileSync(join(project, name), text);
    writeFileSync(join(project, 'tsconfig.json'), integratorTsconfig([...files.keys()]));
    typecheck(project);
  });
});
