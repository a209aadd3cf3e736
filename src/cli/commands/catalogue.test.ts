import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { appFor, cliDatabase, esim, scratchDir } from '../../../test/cli/helpers.js';
import type { Env } from '../../../test/cli/helpers.js';
import { DATABASES, startTestApp } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';
import { openStore } from '../../store/database.js';

// `esim catalogue import|list`, run in-process on every database, results checked through HTTP.

interface Item {
  name: string;
  description: string;
  groups: string[];
  countries: { name: string; region: string; iso: string }[];
  roamingEnabled: { iso: string }[];
  dataAmount: number;
  duration: number;
  speed: string[];
  autostart: boolean;
  unlimited: boolean;
  price: number;
}

const GROUP = 'Partner Bundles';

for (const kind of DATABASES) {
  describe(`esim catalogue commands [${kind}]`, () => {
    let env: Env;
    let dispose: () => Promise<void>;
    let apiKey: string;
    let orgId: string;
    const files = scratchDir();

    const file = (name: string, text: string): string => {
      const path = join(files.path, name);
      writeFileSync(path, text);
      return path;
    };

    // One app on the commands' database for the describe, its catalogue read afresh for every
    // request (CATALOGUE_STALENESS_MS=0): the commands write through connections of their own.
    // The staleness period itself is the subject of the describe below.
    let served: Awaited<ReturnType<typeof appFor>> | undefined;
    async function http(path: string): Promise<{ status: number; body: unknown; total?: string }> {
      served ??= await appFor({ ...env, CATALOGUE_STALENESS_MS: '0' });
      const res = await served.app.inject({
        method: 'GET',
        url: path,
        headers: { 'x-api-key': apiKey },
      });
      return {
        status: res.statusCode,
        body: res.json(),
        total: res.headers['x-total-count'] as string,
      };
    }

    const bundle = async (name: string): Promise<Item | undefined> => {
      const res = await http(`/v2.1/catalogue/bundle/${name}`);
      return res.status === 200 ? (res.body as Item) : undefined;
    };

    before(async () => {
      ({ env, dispose } = await cliDatabase(kind));
      const created = await esim(
        env,
        'org',
        'create',
        '--name',
        'Catalogue Org',
        '--groups',
        `Standard eSIM Bundles,${GROUP}`,
        '--no-card',
        '--json',
      );
      assert.equal(created.code, 0, created.err);
      ({ apiKey, id: orgId } = JSON.parse(created.out) as { apiKey: string; id: string });
    });
    after(async () => {
      await served?.close();
      await dispose();
      files.remove();
    });

    it('imports JSON in the API shape: adds new bundles and updates existing ones', async () => {
      const path = file(
        'partner.json',
        JSON.stringify(
          [
            {
              name: 'esim_2GB_14D_PT_V2',
              description: 'eSIM, 2GB, 14 Days, Portugal, V2',
              groups: [GROUP],
              countries: [{ name: 'Portugal', region: 'Europe', iso: 'PT' }],
              roamingEnabled: ['ES'],
              dataAmount: 2000,
              duration: 14,
              speed: ['4G', '5G'],
              autostart: true,
              unlimited: false,
              price: 321,
            },
            {
              name: 'esim_UL_2D_PT_V2',
              groups: [GROUP],
              countries: ['pt'],
              duration: 2,
              unlimited: true,
              price: 500,
            },
            {
              name: 'esim_1GB_7D_GB_V2',
              description: 'eSIM, 1GB, 7 Days, United Kingdom, V2',
              groups: ['Standard eSIM Bundles'],
              countries: ['GB'],
              dataAmount: 1000,
              duration: 7,
              speed: ['4G'],
              price: 99,
            },
          ],
          null,
          2,
        ),
      );
      const res = await esim(env, 'catalogue', 'import', path);
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /imported 3 bundles .*2 added, 1 updated/);

      const pt = await bundle('esim_2GB_14D_PT_V2');
      assert.deepEqual(pt?.countries, [{ name: 'Portugal', region: 'Europe', iso: 'PT' }]);
      assert.deepEqual(
        pt?.roamingEnabled.map((c) => c.iso),
        ['ES'],
      );
      assert.equal(pt?.price, 321);
      const unlimited = await bundle('esim_UL_2D_PT_V2');
      assert.equal(unlimited?.dataAmount, -1);
      assert.equal(unlimited?.unlimited, true);
      assert.equal((await bundle('esim_1GB_7D_GB_V2'))?.price, 99);
      const listed = await http(`/v2.1/catalogue?group=${encodeURIComponent(GROUP)}`);
      assert.deepEqual(
        (listed.body as Item[]).map((b) => b.name),
        ['esim_2GB_14D_PT_V2', 'esim_UL_2D_PT_V2'],
      );
    });

    it('rejects a JSON file with bad rows, naming each line, and imports nothing', async () => {
      const path = file(
        'bad.json',
        [
          '[',
          '  {"name": "esim_4GB_4D_AD_V2", "groups": ["Partner Bundles"], "countries": ["AD"],',
          '   "dataAmount": 1000, "duration": 7, "price": 150},',
          '  {"name": "esim_1GB_7D_XX_V2", "groups": ["Partner Bundles"], "countries": ["XX"],',
          '   "dataAmount": 1000, "duration": 7, "price": 150},',
          '  {"name": "esim_UL_1D_AD_V2", "groups": [], "countries": ["AD"], "unlimited": true,',
          '   "dataAmount": 500, "duration": 0, "price": -5, "speed": ["6G"]},',
          '  {"name": "bad name!", "groups": ["Partner Bundles"], "countries": ["AD"],',
          '   "dataAmount": 1000, "duration": 7, "price": 1.5, "colour": "red"}',
          ']',
        ].join('\n'),
      );
      const res = await esim(env, 'catalogue', 'import', path);
      assert.equal(res.code, 1);
      assert.match(res.err, /nothing imported/);
      assert.match(res.err, /line 4: esim_1GB_7D_XX_V2: countries: unknown country code "XX"/);
      assert.match(res.err, /line 6: esim_UL_1D_AD_V2: groups: must name at least one group/);
      assert.match(res.err, /line 6: .*dataAmount: must be -1/);
      assert.match(res.err, /line 6: .*duration: must be a whole number >= 1/);
      assert.match(res.err, /line 6: .*price: must be a whole number >= 0/);
      assert.match(res.err, /line 6: .*speed: "6G" not among/);
      assert.match(res.err, /line 8: unknown field "colour"/);
      assert.doesNotMatch(res.err, /line 2/);
      assert.equal(await bundle('esim_4GB_4D_AD_V2'), undefined);

      const broken = await esim(
        env,
        'catalogue',
        'import',
        file('broken.json', '[\n{"name": "x",\n]'),
      );
      assert.equal(broken.code, 1);
      assert.match(broken.err, /not valid JSON/);
    });

    it('imports CSV with a header, quoted fields and ; or | lists', async () => {
      const path = file(
        'partner.csv',
        [
          'name,description,groups,countries,roamingEnabled,dataAmount,duration,speed,autostart,unlimited,price',
          `esim_4GB_30D_AD_V2,"eSIM, 4GB, 30 Days, Andorra, V2",${GROUP},AD,ES|FR,4000,30,4G;5G,no,false,450`,
          `esim_ULE_3D_AD_V2,"Unlimited ""Essential"", Andorra",${GROUP},AD,,,3,4G,yes,true,900`,
          '',
        ].join('\r\n'),
      );
      const res = await esim(env, 'catalogue', 'import', path);
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /2 added/);
      const fixed = await bundle('esim_4GB_30D_AD_V2');
      assert.equal(fixed?.description, 'eSIM, 4GB, 30 Days, Andorra, V2');
      assert.deepEqual(
        fixed?.roamingEnabled.map((c) => c.iso),
        ['ES', 'FR'],
      );
      assert.deepEqual(fixed?.speed, ['4G', '5G']);
      assert.equal(fixed?.autostart, false);
      const unlimited = await bundle('esim_ULE_3D_AD_V2');
      assert.equal(unlimited?.description, 'Unlimited "Essential", Andorra');
      assert.equal(unlimited?.dataAmount, -1);
    });

    it('rejects a CSV file with bad rows, naming each line, and imports nothing', async () => {
      const path = file(
        'bad.csv',
        [
          'name,groups,countries,dataAmount,duration,price',
          `esim_7GB_7D_SM_V2,${GROUP},SM,1000,7,120`,
          `esim_7GB_7D_SM_V2,${GROUP},SM,1000,7,120`,
          `esim_2GB_7D_SM_V2,${GROUP},SM,lots,7,120`,
          `esim_3GB_7D_SM_V2,${GROUP},SM,1000,7`,
          `esim_4GB_7D_SM_V2,,SM;QQ,1000,7,120`,
        ].join('\n'),
      );
      const res = await esim(env, 'catalogue', 'import', path);
      assert.equal(res.code, 1);
      assert.match(res.err, /line 3: esim_7GB_7D_SM_V2: name: duplicates the bundle on line 2/);
      assert.match(res.err, /line 4: esim_2GB_7D_SM_V2: dataAmount: must be a whole number/);
      assert.match(res.err, /line 5: 5 fields where the header has 6/);
      assert.match(res.err, /line 6: esim_4GB_7D_SM_V2: groups: is required/);
      assert.match(res.err, /line 6: esim_4GB_7D_SM_V2: countries: unknown country code "QQ"/);
      assert.equal(await bundle('esim_7GB_7D_SM_V2'), undefined);

      const header = await esim(env, 'catalogue', 'import', file('header.csv', 'name,size\nx,1\n'));
      assert.equal(header.code, 1);
      assert.match(header.err, /line 1: unknown column "size"/);
      const unknownFormat = await esim(env, 'catalogue', 'import', file('catalogue.txt', ''));
      assert.equal(unknownFormat.code, 2);
    });

    it('--replace drops bundles missing from the file but retires those in use; --dry-run writes nothing', async () => {
      // An inventory batch refers to one built-in bundle by name.
      const store = openStore(loadConfig(env).database);
      try {
        await store.db
          .insertInto('inventory_batches')
          .values({
            organisation_id: orgId,
            bundle_name: 'esim_5GB_30D_FR_V2',
            order_reference: 'fixture',
            total: 1,
            remaining: 1,
            expiry: '2099-01-01T00:00:00.000Z',
            created_at: '2024-01-01T00:00:00.000Z',
          })
          .execute();
      } finally {
        await store.close();
      }
      const before = await http('/v2.1/catalogue?perPage=1');
      const path = file(
        'replacement.json',
        JSON.stringify([
          {
            name: 'esim_1GB_7D_FR_V2',
            groups: ['Standard eSIM Bundles'],
            countries: ['FR'],
            dataAmount: 1000,
            duration: 7,
            price: 140,
          },
          {
            name: 'esim_9GB_30D_FR_V2',
            groups: [GROUP],
            countries: ['FR'],
            dataAmount: 9000,
            duration: 30,
            price: 900,
          },
        ]),
      );
      const dry = await esim(env, 'catalogue', 'import', path, '--replace', '--dry-run', '--json');
      assert.equal(dry.code, 0, dry.err);
      const plan = JSON.parse(dry.out) as {
        added: string[];
        updated: string[];
        removed: string[];
        retired: string[];
      };
      assert.deepEqual(plan.added, ['esim_9GB_30D_FR_V2']);
      assert.deepEqual(plan.updated, ['esim_1GB_7D_FR_V2']);
      assert.deepEqual(plan.retired, ['esim_5GB_30D_FR_V2']);
      assert.ok(plan.removed.includes('esim_1GB_7D_GB_V2'));
      assert.equal((await http('/v2.1/catalogue?perPage=1')).total, before.total);

      const res = await esim(env, 'catalogue', 'import', path, '--replace');
      assert.equal(res.code, 0, res.err);
      assert.match(res.out, /1 retired/);
      const after = await http('/v2.1/catalogue?perPage=500');
      assert.deepEqual(
        (after.body as Item[]).map((b) => b.name),
        ['esim_1GB_7D_FR_V2', 'esim_9GB_30D_FR_V2'],
      );
      assert.equal(await bundle('esim_5GB_30D_FR_V2'), undefined);
      assert.equal(await bundle('esim_1GB_7D_GB_V2'), undefined);
      const listed = await esim(env, 'catalogue', 'list', '--countries', 'FR');
      assert.match(listed.out, /esim_5GB_30D_FR_V2 .*\[retired\]/);
      const json = await esim(env, 'catalogue', 'list', '--json');
      assert.equal((JSON.parse(json.out) as Item[]).length, 3);
    });
  });

  describe(`catalogue imports reach a running server [${kind}]`, () => {
    it('within the staleness period, on the injected clock', async () => {
      const { env, dispose } = await cliDatabase(kind);
      const files = scratchDir();
      const t = await startTestApp(kind, { database: loadConfig(env).database });
      try {
        const org = await t.createOrg({ groups: ['Fresh Group'] });
        const list = async (): Promise<string[]> => {
          const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/catalogue' });
          return (res.json() as Item[]).map((b) => b.name);
        };
        assert.deepEqual(await list(), []);
        const path = join(files.path, 'fresh.json');
        writeFileSync(
          path,
          JSON.stringify([
            {
              name: 'esim_1GB_7D_NO_V2',
              groups: ['Fresh Group'],
              countries: ['NO'],
              dataAmount: 1000,
              duration: 7,
              price: 100,
            },
          ]),
        );
        const res = await esim(env, 'catalogue', 'import', path);
        assert.equal(res.code, 0, res.err);
        t.clock.advance(t.config.catalogueStalenessMs / 1000);
        assert.deepEqual(await list(), ['esim_1GB_7D_NO_V2']);
      } finally {
        await t.close();
        await dispose();
        files.remove();
      }
    });
  });
}
