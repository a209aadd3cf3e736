import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { scratchDir, spawnEsim } from './cli/helpers.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('starts from defaults that run a simulator on the embedded database', () => {
    const config = loadConfig({});
    assert.equal(config.mode, 'simulator');
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.deepEqual(config.database, { kind: 'sqlite', path: './data/esim.sqlite' });
    assert.equal(config.masterKey, undefined);
    assert.equal(config.demoOnFirstStart, true);
    assert.equal(config.publicBaseUrl, '', 'unset: relative OpenAPI server and paging links');
    assert.deepEqual(config.corsOrigins, ['*'], 'simulator: any origin');
    assert.ok(Object.isFrozen(config));
  });

  it('reads CALLBACK_SENDER_THREAD: callback requests on a thread of their own when on', () => {
    assert.equal(loadConfig({}).callbackSenderThread, false);
    assert.equal(loadConfig({ CALLBACK_SENDER_THREAD: 'on' }).callbackSenderThread, true);
    assert.equal(loadConfig({ CALLBACK_SENDER_THREAD: 'false' }).callbackSenderThread, false);
    const error = configError({ CALLBACK_SENDER_THREAD: 'sometimes' });
    assert.equal(error.setting, 'CALLBACK_SENDER_THREAD');
    assert.match(error.message, /true or false/);
  });

  it('reads CALLBACK_DELIVERY_THREAD: the delivery worker on a thread of its own when on', () => {
    assert.equal(loadConfig({}).callbackDeliveryThread, false);
    assert.equal(loadConfig({ CALLBACK_DELIVERY_THREAD: 'on' }).callbackDeliveryThread, true);
    assert.equal(loadConfig({ CALLBACK_DELIVERY_THREAD: 'off' }).callbackDeliveryThread, false);
    const error = configError({ CALLBACK_DELIVERY_THREAD: 'sometimes' });
    assert.equal(error.setting, 'CALLBACK_DELIVERY_THREAD');
  });

  it('reads DATABASE_CONNECT_TIMEOUT_MS: 5 s by default, 10 ms to 10 min', () => {
    assert.equal(loadConfig({}).databaseConnectTimeoutMs, 5000);
    assert.equal(
      loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '1500' }).databaseConnectTimeoutMs,
      1500,
    );
    assert.equal(loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '' }).databaseConnectTimeoutMs, 5000);
    for (const [raw, message] of [
      ['5s', /must be an integer, got "5s"/],
      ['0', /between 10 and 600000, got 0/],
      ['600001', /between 10 and 600000, got 600001/],
    ] as const) {
      const error = configError({ DATABASE_CONNECT_TIMEOUT_MS: raw });
      assert.equal(error.setting, 'DATABASE_CONNECT_TIMEOUT_MS', raw);
      assert.match(error.message, message);
      assert.ok(error.message.startsWith('DATABASE_CONNECT_TIMEOUT_MS: '));
    }
  });

  it('reads DATABASE_STATEMENT_TIMEOUT_MS: 30 s by default, 0 (no bound) to an hour', () => {
    assert.equal(loadConfig({}).databaseStatementTimeoutMs, 30_000);
    assert.equal(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0' }).databaseStatementTimeoutMs, 0);
    assert.equal(
      loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).databaseStatementTimeoutMs,
      2500,
    );
    for (const [raw, message] of [
      ['30s', /must be an integer, got "30s"/],
      ['-1', /between 0 and 3600000, got -1/],
      ['3600001', /between 0 and 3600000, got 3600001/],
    ] as const) {
      const error = configError({ DATABASE_STATEMENT_TIMEOUT_MS: raw });
      assert.equal(error.setting, 'DATABASE_STATEMENT_TIMEOUT_MS', raw);
      assert.match(error.message, message);
    }
  });

  it('reads SMTP_URL: an smtp:// or smtps:// URL with a host, its password never echoed', () => {
    const smtp = loadConfig({ SMTP_URL: 'smtps://mailer:pa55@smtp.example.com' });
    assert.equal(smtp.portal.mailTransport, 'smtp');
    assert.equal(smtp.portal.smtpUrl, 'smtps://mailer:pa55@smtp.example.com');
    for (const bad of [
      'smtp://mailer:pa55@:587',
      'smtp://mailer:pa55@',
      'http://smtp.example.com',
    ]) {
      const error = configError({ SMTP_URL: bad });
      assert.equal(error.setting, 'SMTP_URL', bad);
      assert.match(error.message, /with a host/);
      assert.doesNotMatch(error.message, /pa55/);
    }
    assert.equal(smtp.portal.smtpTimeoutMs, 10_000);
    assert.equal(loadConfig({ SMTP_TIMEOUT_MS: '2500' }).portal.smtpTimeoutMs, 2500);
    for (const bad of ['0', '99', 'soon']) {
      assert.equal(configError({ SMTP_TIMEOUT_MS: bad }).setting, 'SMTP_TIMEOUT_MS', bad);
    }
  });

  it('reads CORS_ORIGINS: off by default in production, a list of origins, * or off', () => {
    const production = { MODE: 'production', MASTER_KEY: 'ab'.repeat(32) };
    assert.deepEqual(loadConfig(production).corsOrigins, []);
    assert.deepEqual(loadConfig({ ...production, CORS_ORIGINS: '*' }).corsOrigins, ['*']);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'off' }).corsOrigins, []);
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:3000' }).corsOrigins,
      ['https://app.example.com', 'http://localhost:3000'],
    );
    for (const bad of [
      'app.example.com',
      'https://app.example.com/',
      'ftp://x.example',
      'https://a.example/path',
    ]) {
      const error = configError({ CORS_ORIGINS: bad });
      assert.equal(error.setting, 'CORS_ORIGINS', bad);
    }
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://esim.example.com/' }).publicBaseUrl,
      'https://esim.example.com',
    );
  });

  it('reads every database form', () => {
    const db = (url: string, dir = './data') =>
      loadConfig({ DATABASE_URL: url, DATA_DIR: dir }).database;
    assert.deepEqual(db('sqlite:/tmp/x.db'), { kind: 'sqlite', path: '/tmp/x.db' });
    assert.deepEqual(db('sqlite:rel/x.db'), { kind: 'sqlite', path: 'rel/x.db' });
    assert.deepEqual(db('sqlite:///abs/x.db'), { kind: 'sqlite', path: '/abs/x.db' });
    assert.deepEqual(db('sqlite::memory:'), { kind: 'sqlite', path: ':memory:' });
    assert.deepEqual(db('postgres://u:p@db:5432/esim'), {
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/esim',
    });
    assert.equal(db('postgresql://db/esim').kind, 'postgres');
    assert.deepEqual(loadConfig({ DATA_DIR: '/srv/esim' }).database, {
      kind: 'sqlite',
      path: '/srv/esim/esim.sqlite',
    });
  });

  it('reads PORTAL_PASSWORD_COST: 15 by default, lower in simulator mode only', () => {
    const production = { MODE: 'production', MASTER_KEY: 'ab'.repeat(32) };
    assert.equal(loadConfig({}).portal.passwordCost, 15);
    assert.equal(loadConfig(production).portal.passwordCost, 15);
    assert.equal(loadConfig({ ...production, PORTAL_PASSWORD_COST: '17' }).portal.passwordCost, 17);
    assert.equal(loadConfig({ PORTAL_PASSWORD_COST: '10' }).portal.passwordCost, 10);
  });

  it('takes the master key as hex or base64 and requires it in production', () => {
    const hex = 'ab'.repeat(32);
    assert.deepEqual(loadConfig({ MASTER_KEY: hex }).masterKey, Buffer.from(hex, 'hex'));
    const b64 = Buffer.alloc(32, 9).toString('base64');
    assert.deepEqual(loadConfig({ MASTER_KEY: b64 }).masterKey, Buffer.alloc(32, 9));
    const production = loadConfig({
      MODE: 'production',
      MASTER_KEY: hex,
      DATABASE_URL: 'postgres://db/esim',
    });
    assert.equal(production.demoOnFirstStart, false);
    assert.equal(configError({ MODE: 'production' }).setting, 'MASTER_KEY');
    const short = configError({ MASTER_KEY: 'abcd' });
    assert.equal(short.setting, 'MASTER_KEY');
    assert.doesNotMatch(short.message, /abcd/, 'the secret is not echoed');
  });

  it('refuses bad values with a message naming the setting', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ PORT: 'abc' }, 'PORT', /must be an integer/],
      [{ PORT: '70000' }, 'PORT', /between 0 and 65535/],
      [{ MODE: 'staging' }, 'MODE', /simulator or production/],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /sqlite:<path>/],
      [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL', /file path/],
      [{ DATABASE_URL: 'postgres://[bad' }, 'DATABASE_URL', /not a valid/],
      [{ DATABASE_URL: 'postgres://u@db:5432' }, 'DATABASE_URL', /names no database/],
      [{ DATABASE_URL: 'postgresql://u@db/' }, 'DATABASE_URL', /names no database/],
      [
        { MODE: 'production', MASTER_KEY: 'ab'.repeat(32), DATABASE_URL: 'sqlite::memory:' },
        'DATABASE_URL',
        /not allowed in production/,
      ],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of fatal, error/],
      [{ SQLITE_SYNCHRONOUS: 'off' }, 'SQLITE_SYNCHRONOUS', /one of normal, full, got "off"/],
      [{ HOST: 'http://x' }, 'HOST', /host name or IP/],
      [{ PUBLIC_BASE_URL: 'example.com' }, 'PUBLIC_BASE_URL', /absolute/],
      [{ PUBLIC_BASE_URL: 'ftp://example.com' }, 'PUBLIC_BASE_URL', /http or https/],
      [{ SMDP_ADDRESS: 'bad host!' }, 'SMDP_ADDRESS', /DNS host name/],
      [{ DEMO_ON_FIRST_START: 'maybe' }, 'DEMO_ON_FIRST_START', /true or false/],
      [{ BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES', /between/],
      [{ TOPUP_MIN: '5000', TOPUP_MAX: '100' }, 'TOPUP_MIN', /TOPUP_MAX/],
      [{ CALLBACK_RETRY_SCHEDULE: '1,x' }, 'CALLBACK_RETRY_SCHEDULE', /positive seconds/],
      [{ CALLBACK_ALLOW_CIDRS: '10.0.0.0' }, 'CALLBACK_ALLOW_CIDRS', /CIDR/],
      [{ PORTAL_PASSWORD_COST: '9' }, 'PORTAL_PASSWORD_COST', /between 10 and 20, got 9/],
      [
        { MODE: 'production', MASTER_KEY: 'ab'.repeat(32), PORTAL_PASSWORD_COST: '14' },
        'PORTAL_PASSWORD_COST',
        /at least 15 in production/,
      ],
    ];
    for (const [env, setting, message] of cases) {
      const error = configError(env);
      assert.equal(error.setting, setting, JSON.stringify(env));
      assert.match(error.message, message);
      assert.ok(error.message.startsWith(`${setting}: `));
      assert.equal(error.message.includes('\n'), false);
    }
  });

  it('documents every setting it reads in docs/configuration.md, once', () => {
    // The service reads its settings in src/config.ts; the CLI reads a few of its own.
    const cli = new URL('../src/cli/commands/', import.meta.url);
    const sources = [
      readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8'),
      readFileSync(new URL('../src/server-address.ts', import.meta.url), 'utf8'),
      ...readdirSync(cli)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .map((f) => readFileSync(new URL(f, cli), 'utf8')),
    ];
    const read = new Set(
      sources.flatMap((source) =>
        [...source.matchAll(/env(?:,\s*|\[)'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? ''),
      ),
    );
    const docs = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const rows = [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\|/gm)].map((m) => m[1] ?? '');
    const twice = rows.filter((key, i) => rows.indexOf(key) !== i);
    assert.deepEqual(twice, [], 'documented more than once');
    const undocumented = [...read].filter((key) => !rows.includes(key));
    assert.deepEqual(undocumented, [], 'read by the code, missing from docs/configuration.md');
    assert.ok(read.has('ESIM_URL'), 'the CLI settings are scanned too');
    const unknown = rows.filter((key) => !read.has(key));
    assert.deepEqual(unknown, [], 'in docs/configuration.md, never read by the code');
    assert.ok(read.size > 20);
  });
});

describe('esim serve with a bad setting', () => {
  async function refuses(env: Record<string, string>, setting: string): Promise<void> {
    const data = scratchDir();
    const dataDir = join(data.path, 'never-created');
    try {
      const run = spawnEsim({ DATA_DIR: dataDir, PORT: '0', ...env }, 'serve');
      const code = await run.exited;
      const lines = run.stderr().trim().split('\n');
      assert.equal(code, 78, `${JSON.stringify(env)}: ${run.stderr()}`);
      assert.equal(lines.length, 1, run.stderr());
      assert.match(lines[0] ?? '', new RegExp(`^esim: configuration error: ${setting}: `));
      assert.doesNotMatch(run.stdout(), /listening/);
      assert.equal(existsSync(dataDir), false, 'nothing was written');
    } finally {
      data.remove();
    }
  }

  it('exits 78 with one line naming the setting, and does not start', async () => {
    await Promise.all([
      refuses({ PORT: 'abc' }, 'PORT'),
      refuses({ MODE: 'staging' }, 'MODE'),
      refuses({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'),
      refuses({ MODE: 'production' }, 'MASTER_KEY'),
    ]);
  });

  it('names PORT when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const data = scratchDir();
    try {
      const run = spawnEsim({ DATA_DIR: data.path, PORT: String(port) }, 'serve');
      assert.equal(await run.exited, 78, run.stderr());
      assert.equal(
        run.stderr().trim(),
        `esim: configuration error: PORT: ${port} is already in use on 127.0.0.1`,
      );
    } finally {
      blocker.close();
      data.remove();
    }
  });
});
