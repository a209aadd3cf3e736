import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { oneEvent } from '../../../../test/callbacks/fixtures.js';

// GET /v2.1/callbacks by key: its next and prev links carry a delivery's number within the
// organisation (before=, after=) and no page number, and are there only when deliveries lie that
// way. An empty page beside a key, past either end, links back to the deliveries beside it.

const COUNT = 7;
const PAGE = '/v2.1/callbacks?perPage=3';

interface ListBody {
  callbacks: { id: string }[];
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/callbacks links by key [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    /** The organisation's deliveries, newest first: the one numbered n is all[COUNT - n]. */
    let all: string[];

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      other = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/other' });
      for (let i = 0; i < COUNT; i += 1) {
        await oneEvent(t, org.id);
        if (i < 2) await oneEvent(t, other.id);
        t.clock.advance(1);
      }
      all = idsOf(await get('/v2.1/callbacks?perPage=500'));
      assert.equal(all.length, COUNT);
    });
    after(() => t.close());

    const get = async (url: string, key = org.apiKey) => {
      const res = await t.request(key, { method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res;
    };
    const numbered = (n: number) => all[COUNT - n] ?? '';

    /** The deliveries from `url` on, following the next links. */
    const onwards = async (url: string): Promise<string[]> => {
      const seen: string[] = [];
      for (let at: string | undefined = url; at !== undefined;) {
        const res = await get(at);
        seen.push(...idsOf(res));
        at = linkOf(res, 'next');
      }
      return seen;
    };

    /** The deliveries from `url` back to the newest, following the prev links. */
    const backwards = async (url: string): Promise<string[]> => {
      const seen: string[] = [];
      for (let at: string | undefined = url; at !== undefined;) {
        const res = await get(at);
        seen.unshift(...idsOf(res));
        at = linkOf(res, 'prev');
      }
      return seen;
    };

    it('links by key, with no page number, only where deliveries lie that way', async () => {
      const pages: LightMyRequestResponse[] = [await get(PAGE)];
      for (let next = linkOf(pages[0], 'next'); next !== undefined;) {
        assert.match(next, /^\/v2\.1\/callbacks\?perPage=3&before=\d+$/);
        pages.push(await get(next));
        next = linkOf(pages.at(-1), 'next');
      }
      assert.deepEqual(pages.map(idsOf), [all.slice(0, 3), all.slice(3, 6), all.slice(6)]);
      for (const page of pages) {
        const prev = linkOf(page, 'prev');
        if (prev !== undefined) assert.match(prev, /^\/v2\.1\/callbacks\?perPage=3&after=\d+$/);
        assert.equal(linkOf(page, 'first'), `${PAGE}&page=1`);
        assert.equal(linkOf(page, 'last'), `${PAGE}&page=3`);
      }
      assert.equal(linkOf(pages[0], 'prev'), undefined);
      assert.deepEqual(await backwards(linkOf(pages[1], 'next') ?? ''), all);
      // The three oldest, read by key: the end of the list, with no next link to an empty page.
      const oldest = await get(`${PAGE}&before=4`);
      assert.deepEqual(idsOf(oldest), all.slice(4));
      assert.equal(linkOf(oldest, 'next'), undefined);
      assert.equal(linkOf(oldest, 'prev'), `${PAGE}&after=3`);
      // A page read by key without a page number still links back to the newer deliveries.
      const middle = await get(`${PAGE}&before=5`);
      assert.deepEqual(idsOf(middle), all.slice(3, 6));
      assert.equal(linkOf(middle, 'prev'), `${PAGE}&after=4`);
      assert.deepEqual(idsOf(await get(`${PAGE}&after=4`)), all.slice(0, 3));
      assert.equal(linkOf(await get(`${PAGE}&after=4`), 'prev'), undefined);
    });

    it('links an empty page past the oldest delivery back to the oldest ones', async () => {
      const empty = await get(`${PAGE}&before=1`);
      assert.deepEqual(idsOf(empty), []);
      assert.equal(linkOf(empty, 'next'), undefined);
      assert.equal(linkOf(empty, 'prev'), `${PAGE}&after=0`);
      assert.deepEqual(idsOf(await get(`${PAGE}&after=0`)), all.slice(-3));
      assert.deepEqual(await backwards(`${PAGE}&after=0`), all);
    });

    it('links an empty page past the newest delivery on to the newest ones', async () => {
      for (const key of [String(COUNT), '999999999999999999']) {
        const empty = await get(`${PAGE}&after=${key}`);
        assert.deepEqual(idsOf(empty), []);
        assert.equal(linkOf(empty, 'prev'), undefined);
        const next = `${PAGE}&before=${COUNT + 1}`;
        assert.equal(linkOf(empty, 'next'), next);
        assert.deepEqual(idsOf(await get(next)), all.slice(0, 3));
        assert.deepEqual(await onwards(next), all);
      }
    });

    it('reads the oldest deliveries after=0, the start of the list', async () => {
      const start = await get(`${PAGE}&after=0`);
      assert.deepEqual(idsOf(start), all.slice(-3));
      assert.equal(linkOf(start, 'next'), undefined);
      assert.equal(linkOf(start, 'prev'), `${PAGE}&after=3`);
      const whole = await get('/v2.1/callbacks?perPage=500&after=0');
      assert.deepEqual(idsOf(whole), all);
      assert.equal(linkOf(whole, 'next'), undefined);
      assert.equal(linkOf(whole, 'prev'), undefined);
      // Another organisation's start is its own.
      const theirs = idsOf(await get('/v2.1/callbacks?perPage=500&after=0', other.apiKey));
      assert.equal(theirs.length, 2);
      assert.ok(theirs.every((id) => !all.includes(id)));
      for (const [query, name] of [
        ['before=0', 'before'],
        ['after=-1', 'after'],
        ['after=01', 'after'],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `${PAGE}&${query}` });
        assert.equal(res.statusCode, 400, query);
        assert.match(res.json<{ message: string }>().message, new RegExp(`\\b${name}\\b`));
      }
    });

    it('answers two keys, or a key beside a page other than 1, with a 400 naming both', async () => {
      for (const [query, message] of [
        [
          'before=5&after=2',
          'query parameters before and after: give one (a Link header sets one)',
        ],
        [
          'after=2&before=5',
          'query parameters before and after: give one (a Link header sets one)',
        ],
        [
          'page=2&before=5',
          'query parameters page and before: give one (a page read by key has no number, and the links by key carry none)',
        ],
        [
          'after=0&page=3',
          'query parameters page and after: give one (a page read by key has no number, and the links by key carry none)',
        ],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `${PAGE}&${query}` });
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json<{ message: string }>().message, message);
      }
      // Page 1 is where a page read by key is anyway.
      assert.deepEqual(idsOf(await get(`${PAGE}&page=1&before=5`)), all.slice(3, 6));
    });

    it('pages one status by key, its ends linking back within that status', async () => {
      const failed = [6, 4, 2].map(numbered);
      await t.deps.store.db
        .updateTable('callback_events')
        .set({ status: 'failed', attempts: 1 })
        .where('id', 'in', failed)
        .execute();
      try {
        const list = '/v2.1/callbacks?status=failed&perPage=2';
        assert.deepEqual(await onwards(list), failed);
        const first = await get(list);
        assert.equal(linkOf(first, 'next'), `${list}&before=4`);
        const last = await get(`${list}&before=4`);
        assert.deepEqual(idsOf(last), failed.slice(2));
        assert.equal(linkOf(last, 'next'), undefined);
        // Past the oldest failed delivery: back to the oldest failed ones, from the start.
        const pastOldest = await get(`${list}&before=2`);
        assert.deepEqual(idsOf(pastOldest), []);
        assert.equal(linkOf(pastOldest, 'prev'), `${list}&after=1`);
        assert.deepEqual(await backwards(`${list}&after=1`), failed);
        // Past the newest: on to the newest failed ones.
        const pastNewest = await get(`${list}&after=6`);
        assert.deepEqual(idsOf(pastNewest), []);
        assert.equal(linkOf(pastNewest, 'next'), `${list}&before=7`);
        assert.deepEqual(await onwards(`${list}&before=7`), failed);
        const start = await get(`${list}&after=0`);
        assert.deepEqual(idsOf(start), failed.slice(1));
        assert.equal(linkOf(start, 'prev'), `${list}&after=4`);
      } finally {
        await t.deps.store.db
          .updateTable('callback_events')
          .set({ status: 'pending', attempts: 0 })
          .where('id', 'in', failed)
          .execute();
      }
    });
  });
}

function idsOf(res: LightMyRequestResponse): string[] {
  return res.json<ListBody>().callbacks.map((c) => c.id);
}

/** The URL of one link of a response's Link header, relative to the app. */
function linkOf(res: LightMyRequestResponse | undefined, rel: string): string | undefined {
  for (const part of String(res?.headers['link'] ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>;\s*rel="([^"]+)"/.exec(part);
    if (m?.[2] === rel) return (m[1] ?? '').replace(/^https?:\/\/[^/]+/, '');
  }
  return undefined;
}
