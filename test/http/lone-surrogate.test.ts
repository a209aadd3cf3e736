import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, getJson, seedTestBundles } from '../esim-fixtures.js';
import type { TestApp, TestOrg } from '../harness.js';
import { DATABASES, startTestApp } from '../harness.js';

// An unpaired surrogate ("\uD800" alone in JSON) is not text: each database would store
// something else in its place. Every route refuses it with a 400 naming the field, before its
// handler runs; a proper pair (an emoji) is text and is kept as sent.

const LONE = 'must not contain an unpaired surrogate';

for (const kind of DATABASES) {
  describe(`lone surrogates [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let iccid: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      iccid = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
    });
    after(() => t.close());

    const send = (method: 'PUT' | 'POST', url: string, body: string) =>
      t.request(org.apiKey, {
        method,
        url,
        payload: body,
        headers: { 'content-type': 'application/json' },
      });
    const customerRef = async () =>
      ((await getJson(t, org, `/v2.1/esims/${iccid}`)) as { customerRef: string }).customerRef;

    it('refuses an unpaired surrogate in customerRef with a 400 naming it, and keeps the old value', async () => {
      const set = await send('PUT', '/v2.1/esims', JSON.stringify({ iccid, customerRef: 'kept' }));
      assert.equal(set.statusCode, 200, set.body);
      for (const escaped of ['\\uD800', 'a\\uDBFFb', '\\uDC00', 'x\\uDE00\\uD83D']) {
        const res = await send(
          'PUT',
          '/v2.1/esims',
          `{"iccid":"${iccid}","customerRef":"${escaped}"}`,
        );
        assert.equal(res.statusCode, 400, `${escaped}: ${res.body}`);
        assert.equal(res.json().message, `body field customerRef ${LONE} (a lone \\uD800-\\uDFFF)`);
        assert.equal(res.json().code, 'validation_failed');
      }
      assert.equal(await customerRef(), 'kept');
    });

    it('keeps a proper surrogate pair exactly as sent', async () => {
      const res = await send(
        'PUT',
        '/v2.1/esims',
        `{"iccid":"${iccid}","customerRef":"ok \\uD83D\\uDE00"}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await customerRef(), 'ok \u{1F600}');
    });

    it('refuses one in any string field of any route, named by its path', async () => {
      const order = await send(
        'POST',
        '/v2.1/orders',
        '{"type":"validate","order":[{"type":"bundle","item":"a\\uD800","quantity":1}]}',
      );
      assert.equal(order.statusCode, 400, order.body);
      assert.match(order.json().message, new RegExp(`^body field order\\[0\\]\\.item ${LONE}`));
      assert.equal(await customerRef(), 'ok \u{1F600}');
    });

    it('refuses a query string whose percent-encoding does not decode, and reads one that does', async () => {
      const get = (url: string) => t.request(org.apiKey, { method: 'GET', url });
      for (const url of [
        '/v2.1/catalogue?description=%ff',
        '/v2.1/catalogue?countries=FR&description=%E0%A4%A',
        '/v2.5/catalogue?description=%zz',
        `/v2.1/esims/${iccid}?x=%ff`,
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.deepEqual(res.json(), {
          message: 'the query string is not valid (bad percent-encoding)',
          code: 'bad_request',
        });
      }
      const page = await t.request(undefined, { method: 'GET', url: '/portal/sign-in?next=%ff' });
      assert.equal(page.statusCode, 400);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      // Encoded as it should be: a description with an accented letter, and a literal "%ff".
      for (const url of [
        '/v2.1/catalogue?description=caf%C3%A9',
        '/v2.1/catalogue?description=%25ff',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      }
      const found = await get('/v2.1/catalogue?description=Fran%63e');
      assert.equal(found.statusCode, 200, found.body);
      assert.ok(found.json<unknown[]>().length > 0, 'the decoded description "France" matched');
    });
  });
}
