import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { DATABASES, restartedApp, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { addBundles, fixtureBundle, startFileBackedApp } from '../fixtures/orders.js';
import { seedEsims } from '../portal/shop-fixtures.js';
import { planOf, statementsOf, assertIndexedRead } from '../query-plan.js';
import { readEsimPage } from '../../src/store/repositories/esim-list-repository.js';
import { mayWrite } from '../../src/store/write-watch.js';

// Deleting an eSIM leaves every other eSIM's row number as it is (027-esim-deletions): pages by
// number stay exact (every listed eSIM once, the right total and Link header) with deletions
// anywhere in the list and while eSIMs are issued and deleted during the paging, and a deletion
// writes the same rows however many eSIMs were issued after it.

const UNIT = 'test_deletion_unit';

interface ListBody {
  esims: { iccid: string }[];
  rows: number;
  pageCount: number;
}

/**
 * How many rows a writing statement the app ran changed itself (triggers' rows are not counted).
 * The simulator's request journal, written after each answer, is not a write here (mayWrite).
 */
type LoggedStatement = number;

type Ask = (url: string) => Promise<LightMyRequestResponse>;

async function pageOf(ask: Ask, query: string) {
  const res = await ask(`/v2.5/esims?${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return { body: res.json<ListBody>(), headers: res.headers };
}

/** Every page at several sizes, both directions: exactly `expected`, with its totals. */
async function assertPagesOf(ask: Ask, expected: readonly string[]): Promise<void> {
  for (const perPage of [1, 4, 7, 50]) {
    const last = Math.max(1, Math.ceil(expected.length / perPage));
    for (const direction of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      for (let n = 1; n <= last + 1; n += 1) {
        const query = `perPage=${perPage}&page=${n}&direction=${direction}`;
        const { body, headers } = await pageOf(ask, query);
        assert.equal(body.rows, expected.length);
        assert.equal(body.pageCount, last);
        assert.equal(headers['x-total-count'], String(expected.length));
        const link = String(headers['link']);
        assert.match(link, new RegExp(`[?&]page=${last}(&[^>]*)?>; rel="last"`));
        if (n < last) assert.match(link, /rel="next"/);
        else assert.doesNotMatch(link, /rel="next"/);
        const size = n <= last ? Math.min(perPage, expected.length - (n - 1) * perPage) : 0;
        assert.equal(body.esims.length, Math.max(0, size), `page ${n} of ${perPage}`);
        seen.push(...body.esims.map((e) => e.iccid));
      }
      const want = direction === 'asc' ? [...expected] : [...expected].reverse();
      assert.deepEqual(seen, want, `perPage ${perPage} ${direction}`);
    }
  }
}

for (const kind of DATABASES) {
  describe(`eSIM deletions and pages by number [${kind}]`, () => {
    let t: TestApp;
    let log: LoggedStatement[] | undefined;
    let series = 100;

    before(async () => {
      const writes = new WeakSet<object>();
      const spy: KyselyPlugin = {
        transformQuery(args) {
          if (mayWrite(args.node)) writes.add(args.queryId);
          return args.node;
        },
        transformResult(args) {
          if (writes.has(args.queryId)) log?.push(Number(args.result.numAffectedRows ?? 0));
          return Promise.resolve(args.result);
        },
      };
      t = await startTestApp(
        kind,
        {},
        { storePlugins: [{ kysely: spy, direct: () => undefined }] },
      );
      await addBundles(t, [fixtureBundle(UNIT, 100)]);
    });
    after(() => t.close());

    const seed = (org: TestOrg, count: number) => {
      series += 1;
      return seedEsims(t.deps, org.id, count, series);
    };
    const remove = async (org: TestOrg, iccid: string) => {
      const res = await t.request(org.apiKey, { method: 'DELETE', url: `/v2.5/esims/${iccid}` });
      assert.equal(res.statusCode, 200, res.body);
    };
    const order = async (org: TestOrg) => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const asker = (org: TestOrg) => (url: string) => t.request(org.apiKey, { method: 'GET', url });
    const page = (org: TestOrg, query: string) => pageOf(asker(org), query);
    const assertPages = (org: TestOrg, expected: readonly string[]) =>
      assertPagesOf(asker(org), expected);

    it('pages exactly after deletions at the start, middle and end, many and in runs', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      let listed = await seed(org, 40);
      const drop = async (iccids: readonly string[]) => {
        for (const iccid of iccids) await remove(org, iccid);
        listed = listed.filter((i) => !iccids.includes(i));
      };
      await assertPages(org, listed);
      await drop([listed[0] ?? '', listed[20] ?? '', listed[39] ?? '']);
      await assertPages(org, listed);
      // A run of consecutive eSIMs, every third of the rest, the new first and last.
      await drop(listed.slice(5, 14));
      await drop(listed.filter((_, i) => i % 3 === 1));
      await drop([listed[0] ?? '', listed.at(-1) ?? '']);
      assert.equal(listed.length, 17);
      await assertPages(org, listed);
      // eSIMs issued after deletions are numbered after every earlier one and listed last.
      listed = [...listed, ...(await seed(org, 6))];
      await drop([listed.at(-3) ?? '', listed[2] ?? '']);
      await assertPages(org, listed);
      await drop([...listed]);
      const { body, headers } = await page(org, 'perPage=5');
      assert.deepEqual(body.esims, []);
      assert.equal(body.rows, 0);
      assert.equal(headers['x-total-count'], '0');
      listed = await seed(org, 3);
      await assertPages(org, listed);
    });

    it('pages every listed eSIM exactly once while eSIMs are issued and deleted', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      const initial = await seed(org, 30);
      const deleted = new Set<string>();
      const seen: string[] = [];
      const perPage = 4;
      const unseenLive = async () => {
        const all = (await page(org, 'perPage=500')).body.esims.map((e) => e.iccid);
        return all.filter((i) => !seen.includes(i));
      };
      for (let n = 1; n <= 40; n += 1) {
        // Ahead of the page being read (deleting one the reader has read would move the later
        // ones back by one, onto pages it has read: paging by number cannot avoid that): the
        // first of the next page and the newest; meanwhile two eSIMs are issued.
        const ahead = await unseenLive();
        const targets = [...new Set([perPage, ahead.length - 1])]
          .filter((k) => k >= perPage && k < ahead.length)
          .map((k) => ahead[k] ?? '');
        for (const i of targets) deleted.add(i);
        const [read] = await Promise.all([
          page(org, `perPage=${perPage}&page=${n}`),
          ...targets.map((i) => remove(org, i)),
          order(org),
          order(org),
        ]);
        const rows = read.body.esims.map((e) => e.iccid);
        // The page and its total are of one moment: full unless it is the last page.
        assert.equal(
          rows.length,
          Math.max(0, Math.min(perPage, read.body.rows - (n - 1) * perPage)),
          `page ${n} matches its total ${read.body.rows}`,
        );
        seen.push(...rows);
        if (rows.length < perPage) break;
      }
      const final = (await page(org, 'perPage=500')).body;
      const live = final.esims.map((e) => e.iccid);
      assert.equal(final.rows, live.length);
      assert.equal(new Set(seen).size, seen.length, 'no eSIM twice');
      assert.ok(deleted.size >= 10, `eSIMs deleted during the paging: ${deleted.size}`);
      assert.ok(
        live.some((i) => !initial.includes(i)),
        'eSIMs issued during the paging',
      );
      for (const iccid of seen) assert.ok(live.includes(iccid) || deleted.has(iccid));
      // Every eSIM still listed was read exactly once, in the list's order.
      const seenLive = seen.filter((i) => live.includes(i));
      assert.deepEqual(seenLive, live.slice(0, seenLive.length));
      assert.ok(seenLive.length >= live.length - perPage, 'the reader reached the end');
      for (const iccid of initial.filter((i) => !deleted.has(i))) assert.ok(seen.includes(iccid));
    });

    it('answers each page and its total as of one moment while deletions commit', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      const iccids = await seed(org, 60);
      // Deleted one after another, alternately near the start and near the end, so the list
      // goes through known states: after j deletions, every eSIM but the first j of these.
      const order = Array.from({ length: 12 }, (_, k) => [iccids[2 * k], iccids[59 - 2 * k]])
        .flat()
        .filter((i): i is string => i !== undefined);
      let done = false;
      const deleting = (async () => {
        for (const iccid of order) await remove(org, iccid);
        done = true;
      })();
      let checked = 0;
      const reader = async (k: number) => {
        for (let n = k; !done; n += 1) {
          const direction = n % 2 === 0 ? 'asc' : 'desc';
          const number = 1 + (n % 3);
          const { body } = await page(org, `perPage=5&page=${number}&direction=${direction}`);
          const j = iccids.length - body.rows;
          assert.ok(j >= 0 && j <= order.length, `total ${body.rows}`);
          const listed = iccids.filter((i) => !order.slice(0, j).includes(i));
          if (direction === 'desc') listed.reverse();
          assert.deepEqual(
            body.esims.map((e) => e.iccid),
            listed.slice((number - 1) * 5, number * 5),
            `${direction} page ${number} of the list after ${j} deletions`,
          );
          checked += 1;
        }
      };
      await Promise.all([deleting, reader(0), reader(1), reader(2)]);
      assert.ok(checked > order.length, `pages read while deleting: ${checked}`);
    });

    it('deletes many eSIMs at once while eSIMs are issued, and lists the rest in order', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      const iccids = await seed(org, 60);
      const writes: Promise<void>[] = [];
      for (let k = 0; k < 25; k += 1) {
        writes.push(remove(org, iccids[k * 2] ?? ''));
        if (k % 5 === 0) writes.push(order(org));
      }
      await Promise.all(writes);
      const left = iccids.filter((_, i) => i % 2 === 1 || i >= 50);
      const listed = (await page(org, 'perPage=500')).body.esims.map((e) => e.iccid);
      assert.deepEqual(listed.slice(0, left.length), left);
      assert.equal(listed.length, left.length + 5);
      await assertPages(org, listed);
    });

    it('writes the same rows in as many statements to delete an eSIM with 5 or 400 issued after it', async () => {
      const work = async (later: number) => {
        const org = await t.createOrg({ balance: 1_000 });
        const [oldest, second] = await seed(org, later + 2);
        assert.ok(oldest !== undefined && second !== undefined);
        // The first deletion of an organisation makes the tree's rows; the second is measured.
        await remove(org, oldest);
        log = [];
        await remove(org, second);
        const statements = log;
        log = undefined;
        return {
          statements: statements.length,
          rows: statements.reduce((sum, rows) => sum + rows, 0),
          most: Math.max(...statements),
        };
      };
      const few = await work(5);
      const many = await work(400);
      assert.deepEqual(many, few);
      assert.ok(few.most <= 41, `no statement writes more than the tree's 41 nodes: ${few.most}`);
    });

    it('reads a page in two statements by key: the totals, then the tree and the rows', async () => {
      const db = t.deps.store.db;
      const pageStatements = async (org: TestOrg, direction: 'asc' | 'desc') => {
        const statements = await statementsOf(db, (d) =>
          readEsimPage(d, org.id, { offset: 10, limit: 5, direction }),
        );
        // The total and the deletion count; the page (with the count again).
        const [state, rows] = statements;
        assert.ok(statements.length === 2 && state !== undefined && rows !== undefined);
        const counted = await planOf(db, kind, state);
        assert.match(counted, /organisation_counts/);
        assert.doesNotMatch(counted, /(^|\n)SCAN (?!CONSTANT ROW)|Seq Scan|Sort/);
        return rows;
      };
      // Without deletions the page starts at row number offset + 1: a plain range.
      const plain = await t.createOrg({ balance: 1_000 });
      await seed(plain, 30);
      for (const direction of ['asc', 'desc'] as const) {
        assertIndexedRead(
          await planOf(db, kind, await pageStatements(plain, direction)),
          'esims_org_seq',
        );
      }
      const org = await t.createOrg({ balance: 1_000 });
      const iccids = await seed(org, 30);
      for (const i of [1, 2, 3, 17]) await remove(org, iccids[i] ?? '');
      for (const direction of ['asc', 'desc'] as const) {
        const plan = await planOf(db, kind, await pageStatements(org, direction), { run: true });
        // The rows: a range of esims_org_seq from the walk's row number, in index order.
        const bound = direction === 'asc' ? 'seq>\\? AND seq<\\?' : 'seq<\\?';
        assert.match(
          plan,
          kind === 'sqlite'
            ? new RegExp(
                `SEARCH esims USING INDEX esims_org_seq \\(organisation_id=\\? AND ${bound}\\)`,
              )
            : new RegExp(
                `using esims_org_seq on esims[^\\n]*\\n\\s*Index Cond: \\(\\(organisation_id = .*\\) AND \\(seq ${direction === 'asc' ? '>=' : '<='} `,
              ),
          plan,
        );
        assert.doesNotMatch(plan, /TEMP B-TREE|\bSort\b|Seq Scan|SCAN (esims|d|esim_deletions)\b/);
        // The tree by key: the walk's first node, one node per level (the level's subquery), and
        // the deletion count again.
        const lookups =
          kind === 'sqlite'
            ? plan.match(
                /SEARCH (d|esim_deletions) USING INDEX \S+ \(organisation_id=\? AND node=\?\)/g,
              )
            : plan.match(/Index Cond: \(\(organisation_id = .*\) AND \(node = /g);
        assert.equal(lookups?.length, 3, plan);
      }
    });

    it('refuses the renumbering of the versions before 027, so an old instance cannot skew pages', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      const iccids = await seedEsims(t.deps, org.id, 3, 92);
      const db = t.deps.store.db;
      const first = await db
        .selectFrom('esims')
        .select('seq')
        .where('iccid', '=', iccids[0] ?? '')
        .executeTakeFirstOrThrow();
      await assert.rejects(
        sql`update esims set seq = seq - 1
          where organisation_id = ${org.id} and seq > ${first.seq}`.execute(db),
        /row number never changes/,
      );
      const res = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.5/esims/${iccids[0]}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const list = await t.request(org.apiKey, { method: 'GET', url: '/v2.5/esims?perPage=10' });
      assert.deepEqual(
        list.json<{ esims: { iccid: string }[] }>().esims.map((e) => e.iccid),
        iccids.slice(1),
      );
    });
  });

  describe(`027-esim-deletions on eSIMs deleted before it [${kind}]`, () => {
    it('lists what earlier deletions left, then deletes and issues by the new rule', async () => {
      const f = await startFileBackedApp(kind);
      const { t } = f;
      try {
        const org = await t.createOrg({ balance: 1_000 });
        const iccids = await seedEsims(t.deps, org.id, 12, 90);
        // Deleted as before 027: out of the numbering, the later eSIMs renumbered, the total
        // lowered. Then the database is as it was before 027 ran.
        const db = t.deps.store.db;
        if (kind === 'sqlite') await sql`drop trigger esims_seq_fixed`.execute(db);
        else await sql`drop function esims_seq_fixed() cascade`.execute(db);
        for (const iccid of [iccids[0], iccids[5], iccids[11]]) {
          const row = await db
            .selectFrom('esims')
            .select('seq')
            .where('iccid', '=', iccid ?? '')
            .executeTakeFirstOrThrow();
          await sql`update esims set state = 'deactivated', profile_status = 'Deactivated',
            seq = null where iccid = ${iccid}`.execute(db);
          await sql`update esims set seq = seq - 1
            where organisation_id = ${org.id} and seq > ${row.seq}`.execute(db);
          await sql`update organisation_counts set value = value - 1
            where organisation_id = ${org.id} and name = 'esims'`.execute(db);
        }
        await sql`drop table esim_deletions`.execute(db);
        await sql`delete from kysely_migration where name = '027-esim-deletions'`.execute(db);

        // The next start runs 027 on that data.
        await restartedApp(t, async (app, deps) => {
          const ask = (url: string) => app.inject({ url, headers: { 'x-api-key': org.apiKey } });
          let listed = iccids.filter((_, i) => ![0, 5, 11].includes(i));
          await assertPagesOf(ask, listed);
          for (const iccid of [listed[0], listed[4], listed.at(-1)]) {
            const res = await app.inject({
              method: 'DELETE',
              url: `/v2.5/esims/${iccid ?? ''}`,
              headers: { 'x-api-key': org.apiKey },
            });
            assert.equal(res.statusCode, 200, res.body);
            listed = listed.filter((i) => i !== iccid);
          }
          listed = [...listed, ...(await seedEsims(deps, org.id, 4, 91))];
          await assertPagesOf(ask, listed);
        });
      } finally {
        await f.close();
      }
    });
  });
}
