import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// GET /esims past either end of the list: an empty page, whether reached by key (a filtered
// list's after= or before=, from a link whose neighbours have gone or built from a row) or by
// number (page=N past the last), still links back to the rows beside it, so a client that walked
// off an end can walk back and read every row exactly once.

interface Row {
  iccid: string;
  customerRef: string;
  createDate: string;
}

interface ListBody {
  esims: Row[];
}

const PER_PAGE = 2;

for (const kind of DATABASES) {
  describe(`GET /esims past the ends of the list [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000_000 });
      const { iccids } = await buy(t, org, FR_1MB.name, { quantity: 6 });
      // Five references that sort in the order the eSIMs were issued, and one no filter here takes.
      for (const [i, iccid] of iccids.entries()) {
        await setRef(iccid, i < 5 ? `abc-${i}` : 'other');
      }
    });
    after(() => t.close());

    const setRef = async (iccid: string, customerRef: string) => {
      const res = await t.request(org.apiKey, {
        method: 'PUT',
        url: '/v2.4/esims',
        payload: { iccid, customerRef },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const get = async (url: string) => {
      const res = await t.request(org.apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res;
    };
    const iccidsOf = (res: LightMyRequestResponse) =>
      res.json<ListBody>().esims.map((e) => e.iccid);

    /** Every row, following the next links from the first page. */
    const forwards = async (url: string): Promise<LightMyRequestResponse[]> => {
      const pages = [await get(url)];
      for (let next = linkOf(pages.at(-1), 'next'); next !== undefined;) {
        pages.push(await get(next));
        next = linkOf(pages.at(-1), 'next');
      }
      return pages;
    };

    /** The rows from `url` back to the start, following the prev links. */
    const backwards = async (url: string): Promise<string[]> => {
      const rows: string[] = [];
      for (let at: string | undefined = url; at !== undefined;) {
        const res = await get(at);
        rows.unshift(...iccidsOf(res));
        at = linkOf(res, 'prev');
      }
      return rows;
    };

    /** The rows from `url` on, following the next links. */
    const onwards = async (url: string): Promise<string[]> =>
      (await forwards(url)).flatMap(iccidsOf);

    /** The key the Link header writes for a row of a list filtered by customerRef. */
    const keyOf = (row: Row | undefined) =>
      encodeURIComponent(`${row?.iccid},${row?.createDate},${row?.customerRef}`);

    const FILTERS = ['*', 'abc*', 'abc', 'a*-*'];

    it('links an empty page after the last row back to the last rows, skipping none', async () => {
      for (const filter of FILTERS) {
        for (const direction of ['asc', 'desc']) {
          const list = `/v2.4/esims?filterBy=customerRef&filter=${encodeURIComponent(filter)}&perPage=${PER_PAGE}&direction=${direction}`;
          const pages = await forwards(list);
          const whole = pages.flatMap(iccidsOf);
          assert.ok(whole.length >= 5, `${filter} ${direction}`);
          const rows = pages.flatMap((p) => p.json<ListBody>().esims);
          // The key as the Link header writes it: the first page's next link carries its last
          // row's, and no page number.
          assert.match(String(linkOf(pages[0], 'next')), new RegExp(`&after=${keyOf(rows[1])}$`));
          // Past the last row, with no page number and with page 1, which a key allows.
          for (const page of ['', '&page=1']) {
            const url = `${list}&after=${keyOf(rows.at(-1))}${page}`;
            const empty = await get(url);
            assert.deepEqual(iccidsOf(empty), [], url);
            assert.equal(linkOf(empty, 'next'), undefined, url);
            const prev = linkOf(empty, 'prev');
            assert.ok(prev !== undefined, `${url}: ${String(empty.headers['link'])}`);
            // The page before holds the last rows, and the prev links from it read every row once.
            const last = iccidsOf(await get(prev));
            assert.deepEqual(last, whole.slice(-PER_PAGE), `${url} -> ${prev}`);
            assert.deepEqual(await backwards(prev), whole, `${url} -> ${prev}`);
          }
        }
      }
    });

    it('links an empty page before the first row on to the first rows, skipping none', async () => {
      for (const filter of FILTERS) {
        for (const direction of ['asc', 'desc']) {
          const list = `/v2.4/esims?filterBy=customerRef&filter=${encodeURIComponent(filter)}&perPage=${PER_PAGE}&direction=${direction}`;
          const pages = await forwards(list);
          const whole = pages.flatMap(iccidsOf);
          const first = pages[0]?.json<ListBody>().esims[0];
          const url = `${list}&before=${keyOf(first)}`;
          const empty = await get(url);
          assert.deepEqual(iccidsOf(empty), [], url);
          assert.equal(linkOf(empty, 'prev'), undefined, url);
          const next = linkOf(empty, 'next');
          assert.ok(next !== undefined, `${url}: ${String(empty.headers['link'])}`);
          assert.deepEqual(iccidsOf(await get(next)), whole.slice(0, PER_PAGE));
          assert.deepEqual(await onwards(next), whole, `${url} -> ${next}`);
        }
      }
    });

    it('links back from a next link whose rows have left the list meanwhile', async () => {
      const list = `/v2.4/esims?filterBy=customerRef&filter=abc*&perPage=${PER_PAGE}`;
      const pages = await forwards(list);
      const rows = pages.flatMap((p) => p.json<ListBody>().esims);
      // The second page's next link leads to the last row, which then takes another reference.
      const next = linkOf(pages[1], 'next');
      assert.ok(next !== undefined);
      const gone = rows.at(-1);
      await setRef(gone?.iccid ?? '', 'other');
      try {
        const empty = await get(next);
        assert.deepEqual(iccidsOf(empty), []);
        const prev = linkOf(empty, 'prev');
        assert.ok(prev !== undefined, String(empty.headers['link']));
        assert.deepEqual(iccidsOf(await get(prev)), iccidsOf(pages[1] as LightMyRequestResponse));
        assert.deepEqual(
          await backwards(prev),
          rows.slice(0, -1).map((r) => r.iccid),
        );
      } finally {
        await setRef(gone?.iccid ?? '', gone?.customerRef ?? '');
      }
    });

    it('links a page by number past the end back to the last page, filtered or not', async () => {
      for (const query of [
        '',
        `&filterBy=customerRef&filter=abc*`,
        `&filterBy=customerRef&filter=a*-*`,
      ]) {
        for (const direction of ['asc', 'desc']) {
          const list = `/v2.4/esims?perPage=${PER_PAGE}&direction=${direction}${query}`;
          const whole = (await forwards(list)).flatMap(iccidsOf);
          const lastPage = Math.ceil(whole.length / PER_PAGE);
          for (const page of [lastPage + 1, lastPage + 5]) {
            const url = `${list}&page=${page}`;
            const empty = await get(url);
            assert.deepEqual(iccidsOf(empty), [], url);
            assert.equal(linkOf(empty, 'next'), undefined, url);
            const prev = linkOf(empty, 'prev');
            assert.ok(prev !== undefined, url);
            assert.match(prev, new RegExp(`page=${lastPage}$`));
            const last = iccidsOf(await get(prev));
            assert.deepEqual(last, whole.slice((lastPage - 1) * PER_PAGE), url);
            assert.deepEqual(await backwards(prev), whole, url);
          }
        }
      }
    });

    it('links by key without a page number, the last link reading back from the end', async () => {
      for (const filter of FILTERS) {
        for (const direction of ['asc', 'desc']) {
          const list = `/v2.4/esims?filterBy=customerRef&filter=${encodeURIComponent(filter)}&perPage=${PER_PAGE}&direction=${direction}`;
          const pages = await forwards(list);
          const whole = pages.flatMap(iccidsOf);
          for (const page of pages) {
            for (const rel of ['next', 'prev']) {
              const url = linkOf(page, rel);
              if (url !== undefined) assert.doesNotMatch(url, /[?&]page=/, `${rel}: ${url}`);
            }
            assert.equal(linkOf(page, 'first'), `${list}&page=1`);
            // Not a page number, which would skip through the index to get there.
            assert.equal(linkOf(page, 'last'), `${list}&before=end`);
          }
          const end = await get(`${list}&before=end`);
          assert.deepEqual(iccidsOf(end), whole.slice(-PER_PAGE), `${filter} ${direction}`);
          assert.equal(linkOf(end, 'next'), undefined);
          assert.deepEqual(await backwards(`${list}&before=end`), whole, `${filter} ${direction}`);
        }
      }
    });

    it('answers a key beside a page other than 1 with a 400 naming both', async () => {
      const list = `/v2.4/esims?filterBy=customerRef&filter=abc&perPage=${PER_PAGE}`;
      const first = await get(list);
      const next = linkOf(first, 'next');
      assert.ok(next !== undefined);
      for (const [url, key] of [
        [`${list}&after=start&page=2`, 'after'],
        [`${list}&page=3&before=end`, 'before'],
        [`${next}&page=2`, 'after'],
        [`${list}&before=${keyOf(first.json<ListBody>().esims[1])}&page=9`, 'before'],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url });
        assert.equal(res.statusCode, 400, url);
        assert.equal(
          res.json<{ message: string }>().message,
          `query parameters page and ${key}: give one (a page read by key has no number, and the links by key carry none)`,
        );
      }
      // Page 1 is where a page read by key is anyway: the same page as without it, and nothing
      // before the start to link back to.
      for (const url of [`${list}&after=start&page=1`, `${list}&after=start`]) {
        const start = await get(url);
        assert.deepEqual(iccidsOf(start), iccidsOf(first));
        assert.equal(linkOf(start, 'prev'), undefined, url);
        assert.equal(linkOf(start, 'next'), next, url);
      }
    });
  });
}

/** The URL of one link of a response's Link header, relative to the app. */
function linkOf(res: LightMyRequestResponse | undefined, rel: string): string | undefined {
  for (const part of String(res?.headers['link'] ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>;\s*rel="([^"]+)"/.exec(part);
    if (m?.[2] === rel) return (m[1] ?? '').replace(/^https?:\/\/[^/]+/, '');
  }
  return undefined;
}
