import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../databases.js';
import { cliDatabase, esim, scratchDir, spawnEsim } from './helpers.js';
import type { CliResult, Env, Spawned } from './helpers.js';
import { main } from '../../src/cli/main.js';

// A fixture file loads all or nothing: `esim serve` with a SEED_FILE whose second organisation
// is wrong (a bundle the catalogue lacks, the first one's key again, a balance short of its
// eSIMs, a callback URL only the use case refuses) exits 78 naming the field and leaves no
// organisation behind, so the corrected file loads on the next start. A YAML file of nested
// aliases is refused the same way instead of crashing the start.

const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url));

interface FixtureFile {
  organisations: Record<string, unknown>[];
}

const seed = (): FixtureFile => JSON.parse(readFileSync(SEED, 'utf8')) as FixtureFile;

/**
 * `esim serve` in-process, for a start that must be refused: one that serves instead is stopped
 * (the SIGTERM it listens for, once it listens for it) and answers 0, which fails the test.
 */
async function refusedServe(env: Env): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const listeners = process.listenerCount('SIGTERM');
  const stop = async (): Promise<void> => {
    while (process.listenerCount('SIGTERM') <= listeners) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    process.emit('SIGTERM', 'SIGTERM');
  };
  const code = await main(['serve'], env, {
    out: (line) => {
      out.push(line);
      if (/listening on/.test(line)) void stop();
    },
    err: (line) => void err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Starts `esim serve`; resolves with the exit code, or 'listening' once it serves. */
function started(run: Spawned): Promise<number | null | 'listening'> {
  const listening = new Promise<'listening'>((resolve) => {
    run.child.stdout?.on('data', () => {
      if (/listening on/.test(run.stdout())) resolve('listening');
    });
  });
  return Promise.race([run.exited, listening]);
}

for (const kind of DATABASES) {
  describe(`SEED_FILE loads all or nothing [${kind}]`, () => {
    let database: Awaited<ReturnType<typeof cliDatabase>>;
    let env: Env;
    const files = scratchDir();

    before(async () => {
      database = await cliDatabase(kind);
      env = { ...database.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    });
    after(async () => {
      await database.dispose();
      files.remove();
    });

    const organisations = async (): Promise<string> => {
      const listed = await esim(env, 'org', 'list', '--json');
      assert.equal(listed.code, 0, listed.err);
      return listed.out;
    };

    /** The seed with its second organisation changed. */
    const withSecond = (name: string, change: Record<string, unknown>): string => {
      const fixture = seed();
      fixture.organisations[1] = { ...fixture.organisations[1], ...change };
      const file = join(files.path, `${name}.json`);
      writeFileSync(file, JSON.stringify(fixture));
      return file;
    };

    it('exits 78 naming the field of a bad second organisation, and writes nothing', async () => {
      const first = seed().organisations[0] ?? {};
      // [file, message, found only once something was written]
      const bad: [string, RegExp, boolean][] = [
        [
          withSecond('unknown-bundle', { esims: [{ bundles: [{ name: 'esim_no_such_bundle' }] }] }),
          /organisations\/1\/esims\/0\/bundles\/0\/name: bundle "esim_no_such_bundle"/,
          false,
        ],
        [
          withSecond('same-key', { apiKey: first['apiKey'] }),
          /organisations\/1\/apiKey: the same key as organisations\/0\/apiKey/,
          false,
        ],
        [
          withSecond('short', {
            balance: 1,
            esims: [{ bundles: [{ name: 'esim_1GB_7D_FR_V2' }] }],
          }),
          /organisations\/1\/balance: 1 minor units do not pay/,
          false,
        ],
        // Only the use case finds this one, after the first organisation was written: the
        // transaction takes that back too.
        [
          withSecond('callback', { callbackUrl: 'ftp://acme.example/hook' }),
          /organisations\/1: callbackUrl must be an http or https URL/,
          true,
        ],
      ];
      // In-process: test/cli/production-refuses.test.ts starts real processes that exit 78.
      // The file is checked against the catalogue and the rules before anything is written
      // (src/domain/simulator/fixture-load.ts): those checks read the catalogue with the same
      // query on either database, so they run on the first database (SQLite); what the
      // transaction must take back runs on each.
      const cases = bad.filter(([, , written]) => written || kind === DATABASES[0]);
      for (const [file, message] of cases) {
        const run = await refusedServe({ ...env, SEED_FILE: file });
        assert.equal(run.code, 78, `${file}: ${run.err}\n${run.out}`);
        assert.equal(await organisations(), '[]', `${file} left organisations behind`);
        assert.match(run.err, /^esim: configuration error: SEED_FILE: /);
        assert.match(run.err, message);
      }
    });

    it('loads the corrected file on the next start', async () => {
      const run = spawnEsim({ ...env, SEED_FILE: SEED }, 'serve');
      try {
        assert.equal(await started(run), 'listening', run.stderr());
        assert.match(run.stdout(), /Fixture organisation: Acme Travel \(\S+\), API key esim_Acme/);
        assert.match(run.stdout(), /Fixture organisation: Globex IoT/);
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
      const listed = JSON.parse(await organisations()) as { name: string }[];
      assert.deepEqual(listed.map((o) => o.name).sort(), ['Acme Travel', 'Globex IoT']);
    });
  });
}

describe('a YAML SEED_FILE of nested aliases', () => {
  const dir = scratchDir();
  after(() => dir.remove());

  it('exits 78 naming SEED_FILE instead of expanding it', async () => {
    const lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]'];
    for (let level = 1; level <= 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      lines.push(
        `${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(', ')}]`,
      );
    }
    lines.push('organisations: [{ name: *i }]');
    const file = join(dir.path, 'bomb.yaml');
    writeFileSync(file, lines.join('\n') + '\n');
    const run = await esim(
      { DATA_DIR: join(dir.path, 'data'), PORT: '0', SEED_FILE: file, LOG_LEVEL: 'silent' },
      'serve',
    );
    assert.equal(run.code, 78, run.err);
    assert.match(
      run.err,
      /^esim: configuration error: SEED_FILE: SEED_FILE \S+bomb\.yaml: not a usable YAML fixture \(.*alias/i,
    );
  });
});
