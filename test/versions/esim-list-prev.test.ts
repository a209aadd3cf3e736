import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// GET /esims filtered (v2.2 and later) read back by its prev links: the prev link of a page read
// with after= (a next link) leads to exactly the rows before that page, so walking back from the
// last page reads the pages the next links read, in turn; and walking back from before=end reads
// each row once, down to a first page with no prev link.

const PER_PAGE = 3;

/**
 * The references the patterns match, issued in this order; two share a value, and are ordered by
 * issue, then by ICCID.
 */
const MATCHING = Array.from(
  { length: 10 },
  (_, i) => `abc-${String(i === 6 ? 5 : i).padStart(2, '0')}-k`,
);
/** Between the matches in the index of customerRef, which a pattern reads and leaves out. */
const BETWEEN = ['abc-00-x', 'abc-03-x', 'abc-04-x', 'abc-07-x', 'abc-09-x'];
/** Matched by no filter here: outside the range of `abc`, and not ending in -k. */
const OUTSIDE = ['abb-1', 'abd-1', 'other'];

/** Filters and how many eSIMs each matches: two patterns (checked on each value), a prefix. */
const FILTERS: readonly (readonly [string, number])[] = [
  ['abc*-k', MATCHING.length],
  ['*-k', MATCHING.length],
  ['abc', MATCHING.length + BETWEEN.length],
];

for (const kind of DATABASES) {
  describe(`GET /esims filtered, walked back by its prev links [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000_000 });
      const refs = [...OUTSIDE.slice(0, 1), ...MATCHING, ...BETWEEN, ...OUTSIDE.slice(1)];
      const { iccids } = await buy(t, org, FR_1MB.name, { quantity: refs.length });
      assert.equal(iccids.length, refs.length);
      for (const [i, iccid] of iccids.entries()) {
        const res = await t.request(org.apiKey, {
          method: 'PUT',
          url: '/v2.4/esims',
          payload: { iccid, customerRef: refs[i] },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
    });
    after(() => t.close());

    const get = async (url: string) => {
      const res = await t.request(org.apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res;
    };
    const iccidsOf = (res: LightMyRequestResponse) =>
      res.json<{ esims: { iccid: string }[] }>().esims.map((e) => e.iccid);

    for (const [filter, matches] of FILTERS) {
      for (const direction of ['asc', 'desc']) {
        const list = `/v2.2/esims?filterBy=customerRef&filter=${encodeURIComponent(filter)}&perPage=${PER_PAGE}&direction=${direction}`;

        it(`reads back the pages the next links read: ${filter}, ${direction}`, async () => {
          const whole = iccidsOf(await get(list.replace(`perPage=${PER_PAGE}`, 'perPage=500')));
          assert.equal(whole.length, matches);

          // Forwards from the start: every page but the first read with after=.
          const urls = [list];
          const pages = [iccidsOf(await get(list))];
          for (let next = linkOf(await get(list), 'next'); next !== undefined;) {
            assert.match(next, /[?&]after=/, next);
            urls.push(next);
            const res = await get(next);
            pages.push(iccidsOf(res));
            next = linkOf(res, 'next');
          }
          assert.equal(pages.length, Math.ceil(matches / PER_PAGE));
          assert.deepEqual(pages.flat(), whole, 'the next links read every match once');

          // Each page's own prev link: exactly the page before it, none on the first.
          for (const [i, url] of urls.entries()) {
            const prev = linkOf(await get(url), 'prev');
            if (i === 0) {
              assert.equal(prev, undefined, url);
              continue;
            }
            assert.ok(prev !== undefined, url);
            assert.match(prev, /[?&]before=/, prev);
            assert.deepEqual(iccidsOf(await get(prev)), pages[i - 1], `${url} -> ${prev}`);
          }

          // Back from the last page, by the prev links of the pages the prev links read.
          let at = linkOf(await get(urls.at(-1) ?? list), 'prev');
          for (let i = pages.length - 2; i >= 0; i -= 1) {
            assert.ok(at !== undefined, `no prev link before page ${i + 2}`);
            const res = await get(at);
            assert.deepEqual(iccidsOf(res), pages[i], `page ${i + 1} read back: ${at}`);
            at = linkOf(res, 'prev');
          }
          assert.equal(at, undefined, 'the first page read back has no prev link');
        });

        it(`reads back from before=end each match once: ${filter}, ${direction}`, async () => {
          const whole = iccidsOf(await get(list.replace(`perPage=${PER_PAGE}`, 'perPage=500')));
          // The pages from the end: the PER_PAGE matches before each, fewer at the start.
          let end = whole.length;
          let at: string | undefined = `${list}&before=end`;
          let first: LightMyRequestResponse | undefined;
          while (at !== undefined) {
            assert.ok(end > 0, `a prev link past the start: ${at}`);
            const res = await get(at);
            assert.deepEqual(iccidsOf(res), whole.slice(Math.max(0, end - PER_PAGE), end), at);
            end -= PER_PAGE;
            first = res;
            at = linkOf(res, 'prev');
          }
          assert.ok(end <= 0, 'the prev links stopped before the start');
          // The first page read back leads on, by its next links, through every match once.
          const seen = first === undefined ? [] : iccidsOf(first);
          for (let next = linkOf(first, 'next'); next !== undefined;) {
            const res = await get(next);
            seen.push(...iccidsOf(res));
            next = linkOf(res, 'next');
          }
          assert.deepEqual(seen, whole);
        });
      }
    }
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
