import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BUILT_IN_GROUPS } from '../../src/domain/catalogue/naming.js';
import { DATABASES } from '../databases.js';
import { appFor, cliDatabase, esim } from './helpers.js';
import type { Env } from './helpers.js';

// `esim org …` and `esim user add`, run in-process on every database, with the results checked
// through the HTTP API.

interface OrganisationView {
  name: string;
  apiKey: string;
  balance: number;
  currency: string;
  groups: string[];
  callbackUrl: string;
  callbackVersion: string;
  users: { emailAddress: string; role: string; firstName: string; lastName: string }[];
}

for (const kind of DATABASES) {
  describe(`esim org and user commands [${kind}]`, () => {
    let env: Env;
    let dispose: () => Promise<void>;
    /**
     * The HTTP app the results are checked through, one for the describe: it remembers no API
     * key (API_KEY_CACHE_MS=0), so every request reads what the commands, another instance,
     * left in the database, as a new app would.
     */
    let http: Awaited<ReturnType<typeof appFor>>;

    before(async () => {
      ({ env, dispose } = await cliDatabase(kind));
      http = await appFor({ ...env, API_KEY_CACHE_MS: '0' });
    });
    after(async () => {
      await http.close();
      await dispose();
    });

    async function get(apiKey: string): Promise<{ status: number; org?: OrganisationView }> {
      const res = await http.app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': apiKey },
      });
      if (res.statusCode !== 200) return { status: res.statusCode };
      const body = res.json() as { organisations: OrganisationView[] };
      return { status: 200, org: body.organisations[0] };
    }

    async function createJson(...args: string[]): Promise<{ id: string; apiKey: string }> {
      const res = await esim(env, 'org', 'create', ...args, '--json');
      assert.equal(res.code, 0, res.err);
      return JSON.parse(res.out) as { id: string; apiKey: string };
    }

    it('org create prints the id and API key, and the key works', async () => {
      const res = await esim(env, 'org', 'create', '--name', 'Plain Org');
      assert.equal(res.code, 0, res.err);
      const id = /^id: (\S+)$/m.exec(res.out)?.[1];
      const apiKey = /^apiKey: (\S+)$/m.exec(res.out)?.[1];
      assert.ok(id && apiKey, res.out);
      const { status, org } = await get(apiKey);
      assert.equal(status, 200);
      assert.equal(org?.name, 'Plain Org');
      assert.equal(org?.balance, 0);
      assert.equal(org?.currency, 'USD');
      // Simulator mode: every built-in group, so the whole catalogue is visible.
      assert.deepEqual(org?.groups, [...BUILT_IN_GROUPS]);
      const catalogue = await appFor(env);
      try {
        const res = await catalogue.app.inject({
          method: 'GET',
          url: '/v2.1/catalogue?perPage=5000',
          headers: { 'x-api-key': apiKey },
        });
        const bundles = res.json() as { unlimited: boolean; groups: string[] }[];
        assert.ok(
          bundles.some((b) => b.unlimited),
          'unlimited bundles are listed',
        );
        assert.ok(bundles.some((b) => b.groups.includes('Regional Bundles')));
      } finally {
        await catalogue.close();
      }
    });

    it('org create in production mode defaults to the standard group only', async () => {
      // A database of its own: one production has run on is closed to the simulator after.
      const own = await cliDatabase(kind, 'empty');
      try {
        const production = {
          ...own.env,
          MODE: 'production',
          MASTER_KEY: Buffer.alloc(32, 9).toString('hex'),
          PORTAL_PASSWORD_COST: undefined, // production's own default
        };
        const res = await esim(production, 'org', 'create', '--name', 'Production Org', '--json');
        assert.equal(res.code, 0, res.err);
        const { id } = JSON.parse(res.out) as { id: string };
        const list = await esim(production, 'org', 'list', '--json');
        assert.equal(list.code, 0, list.err);
        const listed = (JSON.parse(list.out) as { id: string; groups: string[] }[]).find(
          (o) => o.id === id,
        );
        assert.deepEqual(listed?.groups, ['Standard eSIM Bundles']);
      } finally {
        await own.dispose();
      }
    });

    it('org create --json takes a balance, a currency and groups', async () => {
      const created = await createJson(
        '--name',
        'Json Org',
        '--balance',
        '2500',
        '--currency',
        'eur',
        '--groups',
        'Standard eSIM Bundles, Promo',
      );
      assert.match(created.id, /^[0-9a-f-]{36}$/);
      assert.match(created.apiKey, /^esim_/);
      const { org } = await get(created.apiKey);
      assert.equal(org?.balance, 2500);
      assert.equal(org?.currency, 'EUR');
      assert.deepEqual(org?.groups, ['Standard eSIM Bundles', 'Promo']);
    });

    it('org create --test-credit grants test credit, expiring after --test-credit-days', async () => {
      const created = await createJson(
        '--name',
        'Trial Org',
        '--test-credit',
        '300',
        '--test-credit-days',
        '30',
      );
      const http = await appFor(env);
      try {
        const res = await http.app.inject({
          method: 'GET',
          url: '/v2.1/organisation',
          headers: { 'x-api-key': created.apiKey },
        });
        const org = (
          res.json() as { organisations: { testCredit: number; testCreditExpiry: string }[] }
        ).organisations[0];
        assert.equal(org?.testCredit, 300);
        const days = (Date.parse(org?.testCreditExpiry ?? '') - Date.now()) / 86_400_000;
        assert.ok(days > 29 && days <= 30.01, `expires in ${days} days`);
        assert.match(org?.testCreditExpiry ?? '', /Z$/);
      } finally {
        await http.close();
      }
      const lonely = await esim(env, 'org', 'create', '--name', 'X', '--test-credit-days', '3');
      assert.equal(lonely.code, 2);
      assert.match(lonely.err, /--test-credit-days needs --test-credit/);
    });

    it('org create refuses bad options with a clear message and no organisation', async () => {
      const before = JSON.parse((await esim(env, 'org', 'list', '--json')).out) as unknown[];
      const cases: [string[], number, RegExp][] = [
        [['--balance', '12'], 2, /--name is required[\s\S]*Usage: esim org create/],
        [['--name', 'X', '--balance', 'lots'], 2, /--balance must be a whole number/],
        [['--name', 'X', '--balance=-5'], 2, /--balance must be a whole number >= 0/],
        [['--name', 'X', '--currency', 'dollars'], 1, /currency must be an ISO 4217 code/],
        [
          ['--name', 'X', '--currency', 'FOO'],
          1,
          /currency must be an ISO 4217 code such as USD, got "FOO"/,
        ],
        [['--name', 'X', '--callback-version', 'V9'], 2, /--callback-version must be V2 or V3/],
        [['--name', 'X', '--callback-url', 'ftp://x'], 1, /callbackUrl must be an http/],
        [['--name', 'X', '--wat'], 2, /Unknown option '--wat'/],
      ];
      for (const [args, code, message] of cases) {
        const res = await esim(env, 'org', 'create', ...args);
        assert.equal(res.code, code, `${args.join(' ')}: ${res.err}`);
        assert.match(res.err, message);
        assert.equal(res.out, '');
      }
      const afterList = JSON.parse((await esim(env, 'org', 'list', '--json')).out) as unknown[];
      assert.equal(afterList.length, before.length);
    });

    it('org list shows every organisation with its balance', async () => {
      const created = await createJson('--name', 'Listed Org', '--balance', '99214');
      const plain = await esim(env, 'org', 'list');
      assert.equal(plain.code, 0);
      // Major units with the currency, as the first start prints the demo balance.
      assert.match(plain.out, new RegExp(`^${created.id}\\s+Listed Org\\s+992\\.14 USD`, 'm'));
      const shown = await esim(env, 'org', 'show', created.id);
      assert.match(shown.out, /^balance: 992\.14 USD \(test credit 0\.00 USD\)$/m);
      const json = await esim(env, 'org', 'list', '--json');
      const list = JSON.parse(json.out) as { id: string; name: string; balance: number }[];
      assert.deepEqual(
        list.find((o) => o.id === created.id),
        {
          id: created.id,
          name: 'Listed Org',
          currency: 'USD',
          balance: 99214,
          testCredit: 0,
          groups: [...BUILT_IN_GROUPS],
          callbackUrl: '',
          callbackVersion: 'V2',
        },
      );
      const noKeys = json.out.includes(created.apiKey);
      assert.equal(noKeys, false, 'org list never prints API keys');
    });

    it('org update sets the callback URL and version', async () => {
      const created = await createJson('--name', 'Callback Org');
      const res = await esim(
        env,
        'org',
        'update',
        created.id,
        '--callback-url',
        'http://127.0.0.1:9/hook',
        '--callback-version',
        'v3',
        '--json',
      );
      assert.equal(res.code, 0, res.err);
      assert.deepEqual(JSON.parse(res.out), {
        id: created.id,
        name: 'Callback Org',
        callbackUrl: 'http://127.0.0.1:9/hook',
        callbackVersion: 'V3',
        groups: [...BUILT_IN_GROUPS],
        billingType: 'FixedCost',
        ipAllowList: [],
      });
      const { org } = await get(created.apiKey);
      assert.equal(org?.callbackUrl, 'http://127.0.0.1:9/hook');
      assert.equal(org?.callbackVersion, 'V3');
      const cleared = await esim(env, 'org', 'update', created.id, '--callback-url', '');
      assert.equal(cleared.code, 0, cleared.err);
      assert.equal((await get(created.apiKey)).org?.callbackUrl, '');
    });

    it('org update refuses bad values, no changes and unknown organisations', async () => {
      const created = await createJson('--name', 'Strict Org');
      const badVersion = await esim(env, 'org', 'update', created.id, '--callback-version', 'V4');
      assert.equal(badVersion.code, 2);
      assert.match(badVersion.err, /--callback-version must be V2 or V3, got "V4"/);
      const badUrl = await esim(env, 'org', 'update', created.id, '--callback-url', 'not a url');
      assert.equal(badUrl.code, 1);
      assert.match(badUrl.err, /callbackUrl "not a url" is not a valid URL/);
      const nothing = await esim(env, 'org', 'update', created.id);
      assert.equal(nothing.code, 2);
      assert.match(nothing.err, /nothing to change/);
      const noId = await esim(env, 'org', 'update', '--name', 'x');
      assert.equal(noId.code, 2);
      assert.match(noId.err, /expected exactly one organisation id/);
      const unknown = await esim(
        env,
        'org',
        'update',
        '00000000-0000-4000-8000-000000000000',
        '--name',
        'Ghost',
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /organisation 00000000-0000-4000-8000-000000000000 not found/);
      const { org } = await get(created.apiKey);
      assert.equal(org?.callbackVersion, 'V2');
      assert.equal(org?.callbackUrl, '');
    });

    it('org rotate-key --grace 0 replaces the key: the old one gets 403, the new one 200', async () => {
      const created = await createJson('--name', 'Rotating Org');
      const res = await esim(env, 'org', 'rotate-key', created.id, '--grace', '0', '--json');
      assert.equal(res.code, 0, res.err);
      const rotated = JSON.parse(res.out) as { id: string; apiKey: string };
      assert.equal(rotated.id, created.id);
      assert.notEqual(rotated.apiKey, created.apiKey);
      assert.equal((await get(created.apiKey)).status, 403);
      const { status, org } = await get(rotated.apiKey);
      assert.equal(status, 200);
      assert.equal(org?.apiKey, rotated.apiKey);
      const plain = await esim(env, 'org', 'rotate-key', created.id);
      assert.match(plain.out, /^apiKey: esim_\S+$/m);
      const unknown = await esim(env, 'org', 'rotate-key', '00000000-0000-4000-8000-000000000000');
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /not found/);
    });

    it('user add adds a user that GET /organisation lists', async () => {
      const created = await createJson('--name', 'Staffed Org');
      const res = await esim(
        env,
        'user',
        'add',
        created.id,
        '--email',
        'grace@staffed.example',
        '--first-name',
        'Grace',
        '--last-name',
        'Hopper',
        '--role',
        'Developer',
        '--json',
      );
      assert.equal(res.code, 0, res.err);
      assert.equal((JSON.parse(res.out) as { email: string }).email, 'grace@staffed.example');
      const { org } = await get(created.apiKey);
      assert.deepEqual(
        org?.users.map((u) => [u.emailAddress, u.role, u.firstName, u.lastName]),
        [['grace@staffed.example', 'Developer', 'Grace', 'Hopper']],
      );
    });

    it('user add refuses a bad role, a bad email, an unknown organisation and missing options', async () => {
      const created = await createJson('--name', 'Picky Org');
      const base = ['--first-name', 'A', '--last-name', 'B'];
      const cases: [string[], number, RegExp][] = [
        [
          [created.id, '--email', 'a@b.example', '--role', 'Boss', ...base],
          1,
          /role must be one of Admin, Finance, Developer, Support, Viewer/,
        ],
        [[created.id, '--email', 'not-an-email', '--role', 'Admin', ...base], 1, /email must be/],
        [
          [
            '00000000-0000-4000-8000-000000000000',
            '--email',
            'a@b.example',
            '--role',
            'Admin',
            ...base,
          ],
          1,
          /organisation 00000000-0000-4000-8000-000000000000 not found/,
        ],
        [
          [created.id, '--role', 'Admin', ...base],
          2,
          /--email is required[\s\S]*Usage: esim user add/,
        ],
        [['--email', 'a@b.example', '--role', 'Admin', ...base], 2, /organisation id/],
      ];
      for (const [args, code, message] of cases) {
        const res = await esim(env, 'user', 'add', ...args);
        assert.equal(res.code, code, `${args.join(' ')}: ${res.err}`);
        assert.match(res.err, message);
      }
      assert.deepEqual((await get(created.apiKey)).org?.users, []);
    });
  });
}

describe('esim usage errors', () => {
  it('an unknown command exits 2 with the usage', async () => {
    const res = await esim({}, 'frobnicate');
    assert.equal(res.code, 2);
    assert.match(res.err, /unknown command "frobnicate"/);
    assert.match(res.err, /Usage: esim <command>/);
    assert.match(res.err, /esim org create --name/);
    const group = await esim({}, 'org');
    assert.equal(group.code, 2);
    assert.match(group.err, /^esim org: a subcommand is required/);
    assert.match(group.err, /esim org rotate-key <id>/);
    const wrong = await esim({}, 'org', 'delete');
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /^esim org: unknown subcommand "delete"/);
    const none = await esim({});
    assert.equal(none.code, 2);
    assert.match(none.err, /Usage: esim <command>/);
  });

  it('--help prints the usage and exits 0, also with a bad environment', async () => {
    const res = await esim({ MODE: 'staging' }, '--help');
    assert.equal(res.code, 0);
    assert.match(res.out, /esim serve/);
    const one = await esim({ MODE: 'staging' }, 'org', 'create', '--help');
    assert.equal(one.code, 0);
    assert.match(one.out, /^Usage: esim org create/);
    for (const word of ['org', 'user', 'catalogue', 'ledger', 'callbacks', 'sim']) {
      const group = await esim({ MODE: 'staging' }, word, '--help');
      assert.equal(group.code, 0, `${word} --help: ${group.err}`);
      assert.match(group.out, new RegExp(`^Usage: esim ${word} <command>`));
      assert.match(group.out, new RegExp(`  esim ${word} \\S+`));
      assert.doesNotMatch(group.out, /esim serve/);
    }
  });

  it('a value that starts with a dash is named, with the way to give it (exit 2)', async () => {
    const res = await esim({}, 'sim', 'usage', '8944500102198304826', '--mb', '-3');
    assert.equal(res.code, 2);
    assert.match(
      res.err,
      /^esim: --mb takes a value, and "-3" starts with a dash: write --mb=-3 to give it/,
    );
  });

  it('a bad setting exits 78 naming it', async () => {
    const res = await esim({ MODE: 'staging' }, 'org', 'list');
    assert.equal(res.code, 78);
    assert.equal(
      res.err,
      'esim: configuration error: MODE: must be simulator or production, got "staging"',
    );
  });
});
