import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrate } from '../../src/store/database.js';
import {
  ESIM_FILTER_INDEX,
  FilteredPageTooDeep,
  listFilteredEsims,
} from '../../src/store/repositories/esim-filter-repository.js';
import type {
  EsimFilter,
  EsimFilterColumn,
  FilteredPage,
  ListPosition,
} from '../../src/store/repositories/esim-filter-repository.js';
import { FR_1MB, buy, restoreSnapshot, saveSnapshot, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { assertIndexedRead, planOf, statementsOf } from '../query-plan.js';

// GET /esims?filterBy=customerRef|lastAction|actionDate|assignedDate&filter=… on v2.2 and later:
// each filter selects what the list shows in that field, ordered by the value then by issue,
// read through an index of esim_filters (026) that the writes keep; its pages follow each other
// by key; bad input is a 400 naming the problem; another organisation's eSIMs never appear.

const DAY = 86_400;

interface Listed {
  iccid: string;
  customerRef: string;
  lastAction: string;
  actionDate: string;
  assignedDate: string;
  createDate: string;
}

type Field = 'customerRef' | 'lastAction' | 'actionDate' | 'assignedDate';

interface ListBody {
  esims: Listed[];
  rows: number;
  pageCount: number;
}

for (const kind of DATABASES) {
  describe(`GET /esims filters [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    /** The organisation's eSIMs, in the order they were issued. */
    const iccids: string[] = [];
    let deleted = '';
    let theirs: string[] = [];

    const setRef = async (who: TestOrg, iccid: string, customerRef: string) => {
      const res = await t.request(who.apiKey, {
        method: 'PUT',
        url: '/v2.4/esims',
        payload: { iccid, customerRef },
      });
      assert.equal(res.statusCode, 200, res.body);
    };

    before(async () => {
      // Without the built-in catalogue (thousands of rows) the snapshot restored is kilobytes.
      t = await startTestApp(kind, { catalogueSeed: false });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000_000 });
      other = await t.createOrg({ balance: 10_000_000 });
      // Eight eSIMs, a day apart: their assignedDate and first actions differ by day.
      for (let i = 0; i < 8; i += 1) {
        iccids.push(...(await buy(t, org, FR_1MB.name)).iccids);
        t.clock.advance(DAY);
      }
      theirs = (await buy(t, other, FR_1MB.name, { quantity: 2 })).iccids;
      const [e0, e1, e2, e3, e4, e5, e6, e7] = iccids as [string, ...string[]];
      // References (each also makes "eSIM Updated" the last action, an hour apart).
      const refs: [string | undefined, string][] = [
        [e0, 'fleet-1'],
        [e1, 'fleet-10'],
        [e2, 'FLEET-2'],
        [e3, 'depot-1'],
        [e5, 'fleet-1'],
        [e6, 'fleet-%_'],
        [e7, 'x'],
      ];
      for (const [iccid, ref] of refs) {
        await setRef(org, iccid ?? '', ref);
        t.clock.advance(3600);
      }
      // A reference cleared is no reference.
      await setRef(org, e7 ?? '', '');
      for (const iccid of theirs) await setRef(other, iccid, 'fleet-1');
      // Another bundle on e1, a revoke on e4: later assignments and other last actions.
      await buy(t, org, FR_1MB.name, { iccids: [e1 ?? ''] });
      const revoked = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${e4}/bundles/${FR_1MB.name}`,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      // A deleted eSIM leaves every filter as it leaves the list.
      deleted = e6 ?? '';
      const gone = await t.request(org.apiKey, { method: 'DELETE', url: `/v2.5/esims/${deleted}` });
      assert.equal(gone.statusCode, 200, gone.body);
    });
    after(() => t.close());

    const get = async (url: string, who = org) => {
      const res = await t.request(who.apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res;
    };
    const listed = async (who = org): Promise<Listed[]> =>
      (await get('/v2.4/esims?perPage=500', who)).json<ListBody>().esims;
    const query = (field: Field, filter: string, extra = '') =>
      `/v2.4/esims?filterBy=${field}&filter=${encodeURIComponent(filter)}${extra}`;
    const filtered = async (field: Field, filter: string, extra = '') =>
      (await get(query(field, filter, `&perPage=500${extra}`))).json<ListBody>();

    /** What the filter must answer: the listed eSIMs whose field matches, by value then issue. */
    const expected = (all: Listed[], field: Field, keep: (value: string) => boolean) =>
      all
        .filter((e) => e[field] !== '' && keep(e[field]))
        .sort(
          (a, b) =>
            cmp(a[field], b[field]) || cmp(a.createDate, b.createDate) || cmp(a.iccid, b.iccid),
        )
        .map((e) => e.iccid);

    const check = async (field: Field, filter: string, keep: (value: string) => boolean) => {
      const all = await listed();
      const want = expected(all, field, keep);
      const body = await filtered(field, filter);
      assert.deepEqual(
        body.esims.map((e) => e.iccid),
        want,
        `filterBy=${field}&filter=${filter}`,
      );
      assert.equal(body.rows, want.length);
      const desc = await filtered(field, filter, '&direction=desc');
      assert.deepEqual(
        desc.esims.map((e) => e.iccid),
        [...want].reverse(),
      );
      return want;
    };

    it('matches customerRef whole with eq:, as a prefix, or as a pattern with *', async () => {
      const [e0, e1, e2, e3, e4, e5] = iccids;
      assert.deepEqual(await check('customerRef', 'eq:fleet-1', (v) => v === 'fleet-1'), [e0, e5]);
      assert.deepEqual(await check('customerRef', 'eq:FLEET-2', (v) => v === 'FLEET-2'), [e2]);
      assert.deepEqual(await check('customerRef', 'eq:fleet', () => false), []);
      // A prefix, case-sensitive, ordered by the value then by issue.
      assert.deepEqual(await check('customerRef', 'fleet-1', (v) => v.startsWith('fleet-1')), [
        e0,
        e5,
        e1,
      ]);
      assert.deepEqual(await check('customerRef', 'fleet*', (v) => v.startsWith('fleet')), [
        e0,
        e5,
        e1,
      ]);
      // * before the end: the whole value (a match anywhere starts with *).
      assert.deepEqual(await check('customerRef', '*-1', (v) => v.endsWith('-1')), [e3, e0, e5]);
      await check('customerRef', 'f*0', (v) => /^f.*0$/.test(v));
      await check('customerRef', '*LEE*', (v) => v.includes('LEE'));
      await check('customerRef', '*', () => true);
      // % and _ are ordinary characters, and the deleted eSIM's "fleet-%_" is not listed.
      assert.deepEqual(await check('customerRef', 'fleet-%', () => false), []);
      // A cleared reference is none: nothing else matches x.
      assert.deepEqual(await check('customerRef', 'x', () => false), []);
      void e4;
    });

    it('takes every character of a pattern but * literally, on either database', async () => {
      // GLOB's ? and [ and LIKE's %, _ and \ are ordinary characters of a reference.
      const third = await t.createOrg({ balance: 10_000_000 });
      const refs = ['a?c', 'abc', 'a[b]c', 'a%c', 'a_c', 'ab\\c', 'a*c', 'A?C'];
      const mine = (await buy(t, third, FR_1MB.name, { quantity: refs.length })).iccids;
      for (const [i, ref] of refs.entries()) await setRef(third, mine[i] ?? '', ref);
      const all = (await get('/v2.4/esims?perPage=500', third)).json<ListBody>().esims;
      const byRef = new Map(all.map((e) => [e.iccid, e.customerRef]));
      for (const pattern of ['*?c', '*[b]*', '*%c', '*_c', '*\\c', 'a*c', '*?*', '*b*', '**c']) {
        // The pattern as a regular expression: * any run, everything else itself.
        const whole = new RegExp(
          `^${pattern
            .split('*')
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
          's',
        );
        const res = await get(query('customerRef', pattern, '&perPage=500'), third);
        const got = res.json<ListBody>().esims.map((e) => byRef.get(e.iccid));
        const want = refs.filter((r) => whole.test(r)).sort(cmp);
        assert.deepEqual(got, want, `filter=${pattern}`);
        assert.equal(res.headers['x-total-count'], String(want.length), `filter=${pattern}`);
      }
    });

    it('matches lastAction, the newest history entry the list shows', async () => {
      const all = await listed();
      const actions = new Set(all.map((e) => e.lastAction));
      assert.ok(actions.has('eSIM Updated'), [...actions].join());
      assert.ok(actions.has('Bundle Revoked'), [...actions].join());
      assert.equal(
        (await check('lastAction', 'eq:eSIM Updated', (v) => v === 'eSIM Updated')).length,
        5,
      );
      assert.deepEqual(
        await check('lastAction', 'eq:Bundle Revoked', (v) => v === 'Bundle Revoked'),
        [iccids[4]],
      );
      await check('lastAction', 'Bundle', (v) => v.startsWith('Bundle'));
      await check('lastAction', '*Revoked', (v) => v.endsWith('Revoked'));
      await check('lastAction', 'eq:bundle revoked', () => false);
    });

    it('reads actionDate and assignedDate with eq, lt, lte, gt and gte', async () => {
      const all = await listed();
      for (const field of ['actionDate', 'assignedDate'] as const) {
        const times = all.map((e) => e[field]).sort(cmp);
        const mid = times[Math.floor(times.length / 2)] ?? '';
        const day = mid.slice(0, 10);
        const ms = (v: string) => Date.parse(v);
        await check(field, mid, (v) => v === mid);
        await check(field, `eq:${mid}`, (v) => v === mid);
        await check(field, day, (v) => v.startsWith(day));
        await check(field, `lt:${mid}`, (v) => ms(v) < ms(mid));
        await check(field, `lte:${mid}`, (v) => ms(v) <= ms(mid));
        await check(field, `gt:${mid}`, (v) => ms(v) > ms(mid));
        await check(field, `gte:${day}`, (v) => v.slice(0, 10) >= day);
        await check(field, `gt:${day}`, (v) => v.slice(0, 10) > day);
        await check(field, 'lt:2000-01-01', () => false);
        // Bounds beyond the four-digit years keep to the range of the stored times.
        await check(field, 'gt:9999-12-31', () => false);
        await check(field, 'gte:9999-12-31T23:59:59.999-00:01', () => false);
        await check(field, 'lt:9999-12-31T23:00:00-02:00', () => true);
        // An offset other than Z names the same instant.
        const plusOne = new Date(ms(mid) + 3_600_000).toISOString().replace('Z', '+01:00');
        await check(field, `eq:${plusOne}`, (v) => v === mid);
      }
      // Bundles assigned later do not move the first assignment.
      const e1 = all.find((e) => e.iccid === iccids[1]);
      const e0 = all.find((e) => e.iccid === iccids[0]);
      assert.ok(e1 !== undefined && e0 !== undefined);
      assert.ok(e1.assignedDate > e0.assignedDate);
      assert.ok(e1.assignedDate.slice(0, 10) < e1.actionDate.slice(0, 10));
    });

    it('never shows another organisation’s eSIMs, nor a deleted one', async () => {
      const mine = await filtered('customerRef', 'eq:fleet-1');
      assert.ok(mine.esims.every((e) => iccids.includes(e.iccid)));
      const other_ = (
        await get(query('customerRef', 'eq:fleet-1', '&perPage=500'), other)
      ).json<ListBody>();
      assert.deepEqual(other_.esims.map((e) => e.iccid).sort(), [...theirs].sort());
      for (const field of ['customerRef', 'lastAction', 'actionDate', 'assignedDate'] as const) {
        const body = await filtered(field, field.endsWith('Date') ? 'gte:2000-01-01' : '*');
        assert.ok(!body.esims.some((e) => e.iccid === deleted), field);
        assert.ok(
          body.esims.every((e) => iccids.includes(e.iccid)),
          field,
        );
      }
    });

    it('pages a filtered list by key: every match exactly once, forwards and back', async () => {
      for (const [field, filter] of [
        ['assignedDate', 'gte:2000-01-01'],
        ['lastAction', 'eq:eSIM Updated'],
        ['customerRef', '*1*'],
      ] as const) {
        for (const direction of ['asc', 'desc']) {
          const whole = (await filtered(field, filter, `&direction=${direction}`)).esims.map(
            (e) => e.iccid,
          );
          assert.ok(whole.length >= 3, `${field} ${filter}`);
          const pages: string[][] = [];
          let url: string | undefined = query(field, filter, `&perPage=2&direction=${direction}`);
          let res = await get(url);
          for (;;) {
            const body = res.json<ListBody>();
            pages.push(body.esims.map((e) => e.iccid));
            assert.equal(res.headers['x-total-count'], String(whole.length));
            assert.equal(body.pageCount, Math.ceil(whole.length / 2));
            url = linkOf(res.headers['link'], 'next');
            if (url === undefined) break;
            assert.match(url, /after=/);
            assert.match(url, /filterBy=/);
            res = await get(url);
          }
          assert.deepEqual(pages.flat(), whole, `${field} ${filter} ${direction}`);
          // Back from the last page by its prev links: the same pages.
          const back: string[][] = [];
          for (;;) {
            back.unshift(res.json<ListBody>().esims.map((e) => e.iccid));
            url = linkOf(res.headers['link'], 'prev');
            if (url === undefined) break;
            res = await get(url);
          }
          assert.deepEqual(back, pages);
          // Page 2 by number is the second page.
          const second = (
            await get(query(field, filter, `&perPage=2&page=2&direction=${direction}`))
          ).json<ListBody>();
          assert.deepEqual(
            second.esims.map((e) => e.iccid),
            pages[1],
          );
        }
      }
      // Past the end: empty, with a prev link by number.
      const past = await get(query('customerRef', 'fleet', '&perPage=2&page=9'));
      assert.deepEqual(past.json<ListBody>().esims, []);
      assert.match(String(linkOf(past.headers['link'], 'prev')), /page=2/);
    });

    it('keeps the filters with the writes that change them', async () => {
      const [e0, , , e3] = iccids;
      await setRef(org, e3 ?? '', 'fleet-99');
      assert.deepEqual(
        (await filtered('customerRef', 'eq:fleet-99')).esims.map((e) => e.iccid),
        [e3],
      );
      assert.deepEqual((await filtered('customerRef', 'eq:depot-1')).esims, []);
      await setRef(org, e3 ?? '', 'depot-1');
      // A refresh is the newest action now.
      const refreshed = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.4/esims/${e0}/refresh`,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const latest = await filtered('lastAction', 'eq:eSIM Refreshed');
      assert.deepEqual(
        latest.esims.map((e) => e.iccid),
        [e0],
      );
      assert.equal(latest.esims[0]?.lastAction, 'eSIM Refreshed');
    });

    it('answers 400 naming the problem', async () => {
      for (const [url, text] of [
        ['filterBy=colour&filter=red', /unknown field "colour"/],
        ['filterBy=customerRef', /filter is required/],
        ['filterBy=customerRef&filter=lt:fleet', /lt does not apply to text/],
        ['filterBy=lastAction&filter=gte:Bundle', /gte does not apply to text/],
        ['filterBy=customerRef&filter=eq:', /give the text to match after eq:/],
        ['filterBy=actionDate&filter=after:2024-01-01', /unknown operator "after"/],
        ['filterBy=assignedDate&filter=yesterday', /filter: "yesterday" is not a time/],
        ['filterBy=assignedDate&filter=2024-02-30', /is not a time/],
        // One condition: the live filter is not repeated, nor is any other of these parameters.
        [
          'filterBy=actionDate&filter=gte:2024-01-01&filter=lte:2024-02-01',
          /^query parameter filter may be given once \(it was given 2 times\)$/,
        ],
        [
          'filterBy=customerRef&filterBy=lastAction&filter=a',
          /^query parameter filterBy may be given once/,
        ],
        [
          'filterBy=customerRef&filter=a&after=8944500102198304826,t,a&after=8944500102198304826,t,b',
          /^query parameter after may be given once/,
        ],
        [
          'filterBy=customerRef&filter=a&before=end&before=end&before=end',
          /^query parameter before may be given once \(it was given 3 times\)$/,
        ],
        ['filterBy=customerRef&filter=a&after=end', /after: not a key of this list/],
        ['filterBy=customerRef&filter=a&before=start', /before: not a key of this list/],
        ['filterBy=customerRef&filter=a&after=1,2,3', /after: not a key of this list/],
        ['after=8944500102198304826,2024-01-01T00:00:00.000Z,a', /after and before page a list/],
        [
          'filterBy=iccid&filter=8944500102198304826&before=8944500102198304826,2024,a',
          /after and before page a list/,
        ],
        [
          'filterBy=customerRef&filter=a&after=8944500102198304826,t,a&before=8944500102198304826,t,a',
          /after and before: give one/,
        ],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.4/esims?${url}` });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.match(res.json<{ message: string }>().message, text, url);
      }
    });

    it('leaves v2.1 without filters', async () => {
      const res = await get('/v2.1/esims?filterBy=customerRef&filter=eq:fleet-1&perPage=500');
      assert.equal(res.json<ListBody>().rows, iccids.length - 1);
    });

    it('reads each filter through its index, from its key, sorting nothing', async () => {
      const db = t.deps.store.db;
      const some = (await listed()).find((e) => e.customerRef === 'fleet-1');
      assert.ok(some !== undefined);
      const at = (value: string): ListPosition => ({
        value,
        createdAt: some.createDate,
        iccid: some.iccid,
      });
      const cases: [EsimFilterColumn, EsimFilter, ListPosition][] = [
        ['customer_ref', { column: 'customer_ref', from: 'fleet', below: 'fleeu' }, at('fleet-1')],
        ['customer_ref', { column: 'customer_ref', from: '', pattern: '*1' }, at('fleet-1')],
        [
          'last_action',
          { column: 'last_action', from: 'eSIM Updated', to: 'eSIM Updated' },
          at('eSIM Updated'),
        ],
        ['action_date', { column: 'action_date', from: '2000-01-01' }, at(some.actionDate)],
        ['assigned_date', { column: 'assigned_date', to: '2999-01-01' }, at(some.assignedDate)],
      ];
      for (const [column, filter, key] of cases) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const keys of [
            {},
            { after: key },
            { before: key },
            { after: 'start' as const },
            { before: 'end' as const },
          ]) {
            const statements = await statementsOf(db, (d) =>
              listFilteredEsims(d, {
                dialect: kind,
                organisationId: org.id,
                filter,
                direction,
                perPage: 2,
                offset: 0,
                ...keys,
              }),
            );
            assert.ok(statements.length >= 2);
            for (const statement of statements) {
              let plan = await planOf(db, kind, statement);
              if (!/esim_filters/.test(statement.sql)) {
                // The page's eSIMs, by primary key.
                assert.match(plan, /esims_pkey|sqlite_autoindex_esims_1|esims_org_iccid/, plan);
                assert.doesNotMatch(plan, /TEMP B-TREE|Seq Scan|\bSort\b/, plan);
                continue;
              }
              // A total counts what its subquery reads (SQLite scans that subquery's rows).
              plan = plan.replace(/(^|\n)SCAN w\b.*/g, '');
              assertIndexedRead(plan, ESIM_FILTER_INDEX[column]);
              // A page after (or before) a key starts at the key in the index.
              if (/\) [<>] \(/.test(statement.sql)) {
                assert.match(plan, kind === 'sqlite' ? /,created_at,iccid\)[<>]/ : /ROW\(/, plan);
              }
            }
          }
        }
      }
    });

    it('reads a pattern a window at a time, carrying on from where it stopped', async () => {
      const db = t.deps.store.db;
      // Two index entries a page at most.
      // In value order the references are FLEET-2, depot-1, fleet-1, fleet-1, fleet-10: the first
      // window holds one match, the next two, the last one.
      const filter: EsimFilter = { column: 'customer_ref', from: '', pattern: '*-1*' };
      const whole = await listFilteredEsims(db, {
        dialect: kind,
        organisationId: org.id,
        filter,
        direction: 'asc',
        perPage: 500,
        offset: 0,
      });
      const want = whole.rows.map((r) => r.iccid);
      assert.equal(want.length, 4);
      const seen: string[] = [];
      let start: FilteredPage['next'];
      let pages = 0;
      let last: FilteredPage | undefined;
      for (;;) {
        const page = await listFilteredEsims(db, {
          dialect: kind,
          organisationId: org.id,
          filter,
          direction: 'asc',
          perPage: 2,
          offset: 0,
          window: 2,
          ...(start === undefined ? {} : { after: start }),
        });
        assert.ok(page.total <= 2);
        seen.push(...page.rows.map((r) => r.iccid));
        pages += 1;
        last = page;
        if (page.next === undefined) break;
        start = page.next;
      }
      assert.deepEqual(seen, want);
      assert.ok(pages > Math.ceil(want.length / 2), 'some pages were short');
      // One index entry a page: most pages are empty, and each still links both ways. Back from
      // the last page by the prev keys: every match once.
      const one = (place: { after?: FilteredPage['next']; before?: FilteredPage['prev'] }) =>
        listFilteredEsims(db, {
          dialect: kind,
          organisationId: org.id,
          filter,
          direction: 'asc',
          perPage: 2,
          offset: 0,
          window: 1,
          ...place,
        });
      // (A page that reads past the last entry of the range, empty, links back by the end.)
      let empty = 0;
      for (let page = await one({}); ;) {
        if (page.rows.length === 0) empty += 1;
        if (page.earlier) assert.ok(page.prev !== undefined, 'a page after another links back');
        if (page.next === undefined) {
          assert.equal(page.prev, 'end');
          break;
        }
        if (page.rows.length > 0) last = page;
        page = await one({ after: page.next });
      }
      assert.ok(empty > 0, 'some pages were empty');
      const back: string[] = [];
      for (let end = last?.prev; end !== undefined;) {
        const page = await one({ before: end });
        if (page.rows.length > 0) assert.ok(page.next !== undefined, 'a page links forward');
        back.unshift(...page.rows.map((r) => r.iccid));
        end = page.prev;
      }
      assert.deepEqual([...back, ...(last?.rows.map((r) => r.iccid) ?? [])], want);
      await assert.rejects(
        listFilteredEsims(db, {
          dialect: kind,
          organisationId: org.id,
          filter,
          direction: 'asc',
          perPage: 2,
          offset: 4,
          window: 3,
        }),
        FilteredPageTooDeep,
      );
      // Through HTTP the window is 10,000 entries: a page by number past the end of a range that
      // holds fewer is simply empty.
      const deep = await t.request(org.apiKey, {
        method: 'GET',
        url: `${query('customerRef', 'fleet')}&page=100000&perPage=500`,
      });
      assert.equal(deep.statusCode, 200, deep.body);
    });

    it('fills the filters of existing eSIMs when the migration runs', async () => {
      const before = await filtered('assignedDate', 'gte:2000-01-01');
      const refs = await filtered('customerRef', '*');
      const actions = await filtered('lastAction', '*');
      const store = t.deps.store;
      await dropMigration(store.db, kind);
      assert.deepEqual(await migrate(store), ['026-esim-filters']);
      assert.deepEqual(await filtered('assignedDate', 'gte:2000-01-01'), before);
      assert.deepEqual(await filtered('customerRef', '*'), refs);
      assert.deepEqual(await filtered('lastAction', '*'), actions);
    });

    it('fills the filters again when a snapshot is restored', async () => {
      const refs = await filtered('customerRef', '*');
      await restoreSnapshot(t, await saveSnapshot(t));
      assert.deepEqual(await filtered('customerRef', '*'), refs);
    });
  });
}

/** Byte-wise order of ASCII strings, as the database compares them. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The URL of one link of a Link header, relative to the app. */
function linkOf(header: unknown, rel: string): string | undefined {
  for (const part of String(header ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>;\s*rel="([^"]+)"/.exec(part);
    if (m?.[2] === rel) return (m[1] ?? '').replace(/^https?:\/\/[^/]+/, '');
  }
  return undefined;
}

/** Takes 026-esim-filters out again, as if the database was from before it. */
async function dropMigration(
  db: TestApp['deps']['store']['db'],
  kind: 'sqlite' | 'postgres',
): Promise<void> {
  const names = ['history', 'assignment', 'reference', 'issued', 'unlisted'];
  for (const name of names) {
    if (kind === 'sqlite') await sql.raw(`drop trigger esim_filters_${name}`).execute(db);
    else await sql.raw(`drop function esim_filters_${name}() cascade`).execute(db);
  }
  await sql`drop table esim_filters`.execute(db);
  await sql`delete from kysely_migration where name = '026-esim-filters'`.execute(db);
}
