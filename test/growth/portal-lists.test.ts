import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PortalServer } from '../portal/portal-harness.js';
import { DATABASES, signInHttp, startPortal } from '../portal/portal-harness.js';
import { GB_1GB, fixtureIccid, seedEsims } from '../portal/shop-fixtures.js';

// The portal's Overview totals are counters moved in the writing transaction, exact after
// concurrent orders, profile changes, refunds and deletions; its ICCID search reads a prefix by key;
// its eSIM list pages by number exactly around deleted eSIMs.

for (const kind of DATABASES) {
  describe(`portal lists at size [${kind}]`, () => {
    let server: PortalServer;

    before(async () => {
      server = await startPortal(kind);
    });
    after(() => server.close());

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server.baseUrl + path, {
        method,
        headers: {
          'x-api-key': server.organisationApiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as unknown;
    };
    const order = (assign: boolean) =>
      call('POST', '/v2.1/orders', {
        type: 'transaction',
        assign,
        order: [{ type: 'bundle', item: GB_1GB, quantity: 1 }],
      });
    const figure = (page: string, id: string) => {
      const m = new RegExp(`data-testid="${id}">(\\d+)<`).exec(page);
      assert.ok(m?.[1] !== undefined, `${id} on the page`);
      return Number(m[1]);
    };

    it('keeps the Overview totals exact after concurrent orders, installs, refunds and deletions', async () => {
      await Promise.all(Array.from({ length: 12 }, (_, i) => order(i % 3 !== 0)));
      const listed = (await call('GET', '/v2.1/esims?perPage=500')) as {
        esims: { iccid: string }[];
      };
      assert.equal(listed.esims.length, 8);
      const [a, b, c, d] = listed.esims.map((e) => e.iccid);
      assert.ok(a !== undefined && b !== undefined && c !== undefined && d !== undefined);
      const inventory = (await call('GET', '/v2.1/inventory')) as {
        bundles: { available: { id: number }[] }[];
      };
      const usageId = inventory.bundles[0]?.available[0]?.id;
      assert.ok(usageId !== undefined);
      await Promise.all([
        call('POST', `/_sim/esims/${a}/install`, { status: 'Installed' }),
        call('POST', `/_sim/esims/${d}/install`, { status: 'Installed' }),
        call('DELETE', `/v2.5/esims/${b}`),
        call('DELETE', `/v2.5/esims/${c}`),
        call('POST', '/v2.1/inventory/refund', { usageId, quantity: 1 }),
        order(true),
        order(true),
      ]);
      const after = (await call('GET', '/v2.1/esims?perPage=500')) as {
        esims: { iccid: string; profileStatus: string }[];
        rows: number;
      };
      assert.equal(after.rows, 8);
      assert.equal(after.esims.length, 8);
      const session = await signInHttp(server.baseUrl, 'Admin');
      const page = await (await session.get('/portal')).text();
      assert.equal(figure(page, 'esims-total'), 8);
      for (const status of ['Released', 'Downloaded', 'Installed', 'Unavailable']) {
        const expected = after.esims.filter((e) => e.profileStatus === status).length;
        assert.equal(figure(page, `esims-${status}`), expected, status);
      }
      assert.equal(figure(page, 'esims-Installed'), 2);
    });

    it('pages an ICCID prefix search by key, every match exactly once while eSIMs are added', async () => {
      const seeded = await seedEsims(server.deps, server.organisationId, 130, 7);
      // Another organisation's eSIMs in the same range never show.
      await seedEsims(server.deps, server.otherOrganisationId, 20, 8);
      const prefix = fixtureIccid(7, 0).slice(0, 16); // series 7, numbers 0..99
      const expected = seeded.filter((i) => i.startsWith(prefix)).sort();
      assert.equal(expected.length, 100);
      const session = await signInHttp(server.baseUrl, 'Support');
      const seen: string[] = [];
      let next: string | undefined = `/portal/esims?iccid=${prefix}`;
      while (next !== undefined) {
        const res = await session.get(next);
        assert.equal(res.status, 200);
        const text = await res.text();
        seen.push(
          ...[...text.matchAll(/<a href="\/portal\/esims\/(\d+)">/g)].map((m) => m[1] ?? ''),
        );
        const link = /<a href="([^"]+)" rel="next">/.exec(text)?.[1];
        next = link?.replaceAll('&amp;', '&');
        // Added while paging, inside the prefix's range but not matching it, and outside it.
        await seedEsims(server.deps, server.organisationId, 1, 70 + seen.length);
      }
      assert.deepEqual(seen, expected);
      // Previous from the last page gives the page before it.
      const last = await (
        await session.get(`/portal/esims?iccid=${prefix}&after=${expected[49] ?? ''}`)
      ).text();
      const prev = /<a href="([^"]+)" rel="prev">/.exec(last)?.[1]?.replaceAll('&amp;', '&');
      assert.ok(prev !== undefined);
      const before = await (await session.get(prev)).text();
      const shown = [...before.matchAll(/<a href="\/portal\/esims\/(\d+)">/g)].map((m) => m[1]);
      assert.deepEqual(shown, expected.slice(0, 50));
      const none = await (await session.get('/portal/esims?iccid=8999')).text();
      assert.match(none, /No eSIM's ICCID starts with 8999/);
    });

    it('pages the eSIM list by number, newest first, exactly after deletions', async () => {
      const seeded = await seedEsims(server.deps, server.organisationId, 60, 60);
      const earlier = (await call('GET', '/v2.1/esims?perPage=500')) as {
        esims: { iccid: string }[];
      };
      const oldest = earlier.esims[0]?.iccid;
      assert.ok(oldest !== undefined);
      // The oldest eSIM listed, and of the new ones the first, a run in the middle and the last.
      const gone = [oldest, seeded[0], ...seeded.slice(20, 31), seeded[59]].filter(
        (i): i is string => i !== undefined,
      );
      await Promise.all(gone.map((iccid) => call('DELETE', `/v2.5/esims/${iccid}`)));
      const listed = (await call('GET', '/v2.1/esims?perPage=500')) as {
        esims: { iccid: string }[];
        rows: number;
      };
      const expected = earlier.esims.map((e) => e.iccid).filter((i) => !gone.includes(i));
      assert.deepEqual(
        listed.esims.map((e) => e.iccid),
        expected,
      );
      assert.equal(listed.rows, expected.length);
      const session = await signInHttp(server.baseUrl, 'Support');
      const pages = Math.ceil(expected.length / 50);
      const seen: string[] = [];
      for (let n = 1; n <= pages; n += 1) {
        const text = await (await session.get(`/portal/esims?page=${n}`)).text();
        assert.match(text, new RegExp(`${expected.length} eSIMs, newest first`));
        assert.match(text, new RegExp(`Page ${n} of ${pages}<`));
        seen.push(
          ...[...text.matchAll(/<a href="\/portal\/esims\/(\d+)">/g)].map((m) => m[1] ?? ''),
        );
      }
      assert.deepEqual(seen, [...expected].reverse());
      // A deleted eSIM is not found by the ICCID search either.
      const search = await (await session.get(`/portal/esims?iccid=${seeded[0] ?? ''}`)).text();
      assert.doesNotMatch(search, new RegExp(`/portal/esims/${seeded[0] ?? ''}"`));
    });
  });
}
