import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import semver from 'semver';
import type * as ClientV25 from '../../src/client/v2.5/index.js';
import type * as Verify from '../../src/verify.js';
import { eventually } from '../harness.js';
import type { Receiver } from '../receiver.js';
import { startReceiver } from '../receiver.js';
import {
  CLIENT_DIR,
  ROOT,
  VERSIONS,
  installScratchDir,
  installedPackages,
  integratorTsconfig,
  manifest,
  pack,
  resolveInstalled,
  run,
  typecheck,
} from './packing.js';

// The package as an integrator gets it: `npm pack`, installed from the tarball into an empty
// folder (with the client package it depends on, packed beside it as they are published
// together), `npx esim serve` there (a YAML fixture with a fixed key), then called through the
// service package's typed clients (esim-bundle-service/client/v2.x, the client package's) and
// receiver helper (esim-bundle-service/verify) on a real signed callback, and an integrator's
// TypeScript checked against the packaged declarations. The install must warn of no engine on
// this Node.js, and every installed package must accept each Node.js line the README names.
// test/package/client.test.ts installs the client package alone.
//
// The tarballs are packed from the dist/ that `npm run build` made (`npm test` rebuilds it when a
// source is newer), with --ignore-scripts so that `prepare` does not build it a second time.
// Dependencies come from npm's cache first (--prefer-offline). better-sqlite3's native addon is
// taken from this checkout's own installation of the same version: compiling it again takes
// minutes and tests better-sqlite3's installer, not this package. The folder is in memory where
// the machine has room (installScratchDir): writing the installation to a disk costs seconds of
// the kernel's time. The package's entry points are resolved by one node process for all of them.

const KEY = 'esim_PackagedFixtureKey0000000000000000000000001';
const OTHER_KEY = 'esim_PackagedFixtureKey0000000000000000000000002';

type ClientModule = typeof ClientV25;
type VerifyModule = typeof Verify;

/** The first version of each Node.js line the README's quick start names ("20.19+ or 22+"). */
function readmeNodeVersions(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const named = /^Node\.js ([\d.+ or]+), on a fresh clone:$/m.exec(readme)?.[1];
  assert.ok(named !== undefined, 'the README names the Node.js versions');
  return named.split(' or ').map((v) => semver.coerce(v.replace('+', ''))?.version ?? v);
}

/** Relative links of a Markdown file (not web addresses, not anchors of the same file). */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => (m[1] ?? '').split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z][a-z+.-]*:/i.test(target));
}

describe('the package, packed and installed into an empty folder', () => {
  const work = installScratchDir();
  const project = join(work.path, 'app');
  const data = join(work.path, 'data');
  let tarballs: string[] = [];
  let receiver: Receiver | undefined;
  let server: ChildProcess | undefined;
  let serverOut = '';
  let url = '';

  after(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      // npx runs the command in a child of its own: end the whole group this test started.
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await receiver?.close();
    work.remove();
  });

  /**
   * The installed package's module for a specifier, resolved as the integrator's code would: the
   * package's entry points all resolved at once, by one node process.
   */
  const specifiers = [
    ...VERSIONS.map((v) => `esim-bundle-service/client/v${v}`),
    'esim-bundle-service/verify',
  ];
  let resolved: Map<string, string> | undefined;
  const installed = async <T>(specifier: string): Promise<T> => {
    resolved ??= new Map(
      resolveInstalled(project, specifiers).map((path, i) => [specifiers[i] ?? '', path]),
    );
    const path = resolved.get(specifier);
    assert.ok(path !== undefined, specifier);
    return (await import(pathToFileURL(path).href)) as T;
  };

  it('packs the built service, its clients, its licence and nothing of the sources', () => {
    for (const built of ['dist/esim.js', 'dist/client/v2.5/index.js', 'dist/verify.d.ts']) {
      assert.ok(existsSync(join(ROOT, built)), `${built} is missing: run npm run build`);
    }
    const service = pack(ROOT, work.path);
    tarballs = [service.tarball, pack(CLIENT_DIR, work.path).tarball];
    const files = service.files;
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/esim.js',
      'dist/esim.js',
      'dist/esim.cjs',
      'dist/verify.js',
      'dist/verify.d.ts',
      'docs/simulator.md',
      'src/portal/static/portal.css',
      ...VERSIONS.flatMap((v) => [
        `dist/client/v${v}/index.js`,
        `dist/client/v${v}/index.d.ts`,
        `docs/api/v${v}.postman_collection.json`,
        `docs/api/v${v}.http`,
      ]),
    ];
    assert.deepEqual(
      expected.filter((f) => !files.includes(f)),
      [],
      'files the package must ship',
    );
    const unwanted = files.filter(
      (f) =>
        f.endsWith('.map') ||
        f.startsWith('test/') ||
        f.startsWith('scripts/') ||
        (f.startsWith('src/') && !f.startsWith('src/portal/static/')) ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    assert.deepEqual(unwanted, [], 'files the package must not ship');

    // The README's links, and those of the docs it links, lead to files in the package.
    const broken = files
      .filter((f) => f.endsWith('.md'))
      .flatMap((f) =>
        relativeLinks(readFileSync(join(ROOT, f), 'utf8'))
          .map((target) => normalize(join(dirname(f), decodeURIComponent(target))))
          .filter((target) => !files.includes(target))
          .map((target) => `${f} -> ${target}`),
      );
    assert.deepEqual(broken, [], 'links to files the package does not ship');

    const { private: unpublishable, license } = manifest(ROOT);
    assert.notEqual(unpublishable, true, 'a private package cannot be published');
    assert.equal(license, 'Apache-2.0');
    const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    assert.match(licence, /^\s*Apache License\s+Version 2\.0, January 2004/);
    assert.match(licence, /END OF TERMS AND CONDITIONS/);
  });

  it('installs from the tarball into an empty folder, with no engine warning', () => {
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }),
    );
    const install = run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs],
      project,
    );
    assert.doesNotMatch(`${install.stderr}${install.stdout}`, /EBADENGINE|Unsupported engine/);
    // npm checks engines against the running Node.js only: every other line the README names
    // (and `engines` admits) is checked here against each installed package's engines.
    const versions = readmeNodeVersions();
    const engines = manifest(ROOT).engines?.node ?? '';
    for (const version of versions) assert.ok(semver.satisfies(version, engines), version);
    const refused = installedPackages(project).flatMap(({ dir, manifest: installed }) =>
      versions
        .filter((v) => !semver.satisfies(v, installed.engines?.node ?? '*'))
        .map((v) => `${installed.name}@${installed.version} (${dir}): Node.js ${v}`),
    );
    assert.deepEqual(refused, [], 'packages whose engines refuse a Node.js the README names');
    const sqlite = (root: string) => join(root, 'node_modules', 'better-sqlite3');
    const version = (root: string) =>
      (JSON.parse(readFileSync(join(sqlite(root), 'package.json'), 'utf8')) as { version: string })
        .version;
    assert.equal(version(project), version(ROOT), 'better-sqlite3 of the package and the checkout');
    const addon = join('build', 'Release', 'better_sqlite3.node');
    mkdirSync(join(sqlite(project), 'build', 'Release'), { recursive: true });
    copyFileSync(join(sqlite(ROOT), addon), join(sqlite(project), addon));
    assert.ok(existsSync(join(project, 'node_modules', '.bin', 'esim')), 'the esim command');
  });

  it('serves with `npx esim serve`, loading a YAML fixture', async () => {
    receiver = await startReceiver();
    const seed = join(work.path, 'seed.yaml');
    writeFileSync(
      seed,
      [
        'organisations:',
        '  - name: Packaged Travel',
        `    apiKey: ${KEY}`,
        '    balance: 100000',
        `    callbackUrl: ${receiver.url}/hook`,
        '    callbackVersion: V3',
        '    esims:',
        '      - bundles: [{ name: esim_1GB_7D_FR_V2, state: Active, usedMb: 600 }]',
        '  - name: Other Org',
        `    apiKey: ${OTHER_KEY}`,
        '',
      ].join('\n'),
    );
    const child = spawn('npx', ['esim', 'serve'], {
      cwd: project,
      detached: true,
      env: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        DATA_DIR: data,
        PORT: '0',
        HOST: '127.0.0.1',
        SEED_FILE: seed,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = child;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (serverOut += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (serverOut += chunk));
    url = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${serverOut}`);
        return /listening on (http:\/\/\S+)/.exec(serverOut)?.[1];
      },
      120_000,
      'the installed service to listen',
    );
    assert.match(
      serverOut,
      new RegExp(`Fixture organisation: Packaged Travel \\(\\S+\\), API key ${KEY}, 1 eSIM\\n`),
    );
    const home = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
    assert.equal(home.status, 200);
    const portal = await fetch(`${url}/portal/static/portal.css`);
    assert.equal(portal.status, 200, 'the portal stylesheet ships with the package');
    const docs = await fetch(`${url}/docs/static/index.html`);
    assert.equal(docs.status, 200, 'the API documentation page ships with the package');
  });

  it('answers through the packaged typed client of every version', async () => {
    for (const version of VERSIONS) {
      const { createClient } = await installed<ClientModule>(
        `esim-bundle-service/client/v${version}`,
      );
      const client = createClient({ baseUrl: url, apiKey: KEY });
      const organisation = await client.getOrganisation();
      assert.match(JSON.stringify(organisation), /Packaged Travel/, `v${version}`);
    }

    const v25 = await installed<ClientModule>('esim-bundle-service/client/v2.5');
    const client = v25.createClient({ baseUrl: url, apiKey: KEY });
    const catalogue = await client.listCatalogue({ query: { countries: 'FR', perPage: 5 } });
    assert.equal(catalogue.bundles.length, 5);
    const bundle = await client.getCatalogueBundle({ path: { name: 'esim_1GB_7D_FR_V2' } });
    assert.equal(bundle.name, 'esim_1GB_7D_FR_V2');
    const order = await client.placeOrder({
      body: {
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: 'esim_1GB_7D_FR_V2', quantity: 1 }],
      },
    });
    const iccid = order.order[0]?.iccids?.[0];
    assert.ok(iccid !== undefined, JSON.stringify(order));
    const esim = await client.getEsim({ path: { iccid } });
    assert.equal(esim.iccid, iccid);
    // Install data by media type: CSV as text, QR codes as the bytes of a ZIP.
    const reference = order.orderReference;
    assert.ok(reference !== undefined);
    const csv = await client.getInstallCsv({ path: { reference } });
    assert.equal(typeof csv, 'string');
    assert.ok(csv.includes(iccid), csv);
    const zip = await client.getInstallQrCodes({ path: { reference } });
    assert.ok(zip instanceof Uint8Array);
    assert.equal(Buffer.from(zip.subarray(0, 2)).toString('latin1'), 'PK');

    const other = v25.createClient({ baseUrl: url, apiKey: OTHER_KEY });
    await assert.rejects(
      () => other.getEsim({ path: { iccid } }),
      (error: unknown) => {
        assert.ok(error instanceof v25.EsimApiError, String(error));
        assert.equal(error.status, 404);
        assert.equal(typeof error.code, 'string');
        return true;
      },
      "another organisation's eSIM is not found",
    );
  });

  it('verifies a delivered callback with esim-bundle-service/verify', async () => {
    const { verifyCallbackSignature } = await installed<VerifyModule>('esim-bundle-service/verify');
    const hook = receiver;
    assert.ok(hook !== undefined);
    const [delivery] = await eventually(
      async () => {
        const got = hook.at('/hook');
        return got.length > 0 ? got : undefined;
      },
      60_000,
      'a usage callback from the installed service',
    );
    assert.ok(delivery !== undefined);
    const signature = String(delivery.headers['x-signature-sha256']);
    assert.equal(verifyCallbackSignature(delivery.rawBody, signature, KEY), true);
    assert.equal(verifyCallbackSignature(delivery.rawBody, signature, OTHER_KEY), false);
    assert.equal(verifyCallbackSignature(`${delivery.rawBody} `, signature, KEY), false);
  });

  it("type-checks an integrator's code against the packaged types", () => {
    // The service's integrators run Node.js: their project has no DOM declarations.
    writeFileSync(join(project, 'tsconfig.json'), integratorTsconfig(['app.ts'], ['ES2022']));
    writeFileSync(
      join(project, 'app.ts'),
      [
        "import { createClient, EsimApiError } from 'esim-bundle-service/client/v2.5';",
        "import { createClient as createV21 } from 'esim-bundle-service/client/v2.1';",
        "import { verifyCallbackSignature } from 'esim-bundle-service/verify';",
        "const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'esim_x' });",
        "const esim = await client.getEsim({ path: { iccid: '8944' } });",
        'const iccid: string = esim.iccid;',
        "await createV21({ baseUrl: 'http://127.0.0.1:8080' }).simAdvanceClock({ body: { seconds: 60 } });",
        '// @ts-expect-error the path parameter is required',
        'await client.getEsim({});',
        '// @ts-expect-error no such operation',
        'await client.getEverything();',
        "const ok: boolean = verifyCallbackSignature('{}', 'signature', 'esim_x');",
        'export { iccid, ok, EsimApiError };',
        '',
      ].join('\n'),
    );
    typecheck(project);
  });
});
