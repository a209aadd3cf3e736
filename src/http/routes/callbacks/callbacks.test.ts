import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { oneEvent, recordUsage, snapshot } from '../../../../test/callbacks/fixtures.js';

// The delivery routes, with no worker running: events stay where the tests put them.

for (const kind of DATABASES) {
  describe(`/v2.1/callbacks [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let ids: string[];

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook', callbackVersion: 'V3' });
      other = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/other' });
      // FirstUse and the 1 % and 50 % thresholds: three events.
      await recordUsage(t, org.id, snapshot({ usedBytes: 500_000_000 }), 0, { firstUse: true });
      t.clock.advance(1);
      await oneEvent(t, other.id);
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks' });
      ids = res.json().callbacks.map((c: { id: string }) => c.id);
    });
    after(() => t.close());

    it('lists the organisation deliveries with paging headers', async () => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks?perPage=2' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-total-count'], '3');
      // The next link carries the key of the page's oldest delivery, and no page number.
      assert.match(String(res.headers['link']), /\?perPage=2&before=\d+>; rel="next"/);
      const body = res.json();
      assert.equal(body.callbacks.length, 2);
      const first = body.callbacks[0];
      assert.deepEqual(Object.keys(first).sort(), [
        'alertType',
        'attemptCount',
        'createdAt',
        'deliveredAt',
        'iccid',
        'id',
        'lastStatusCode',
        'nextAttemptAt',
        'status',
        'updatedAt',
      ]);
      assert.equal(first.status, 'pending');
      assert.equal(first.attemptCount, 0);
      assert.equal(first.deliveredAt, '');
      const all = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks' });
      assert.deepEqual(
        all
          .json()
          .callbacks.map((c: { alertType: string }) => c.alertType)
          .sort(),
        ['FirstUse', 'Utilisation', 'Utilisation'],
      );
    });

    it('filters by status and rejects an unknown one', async () => {
      const pending = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/callbacks?status=pending',
      });
      assert.equal(pending.json().callbacks.length, 3);
      const failed = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/callbacks?status=failed',
      });
      assert.deepEqual(failed.json().callbacks, []);
      assert.equal(failed.headers['x-total-count'], '0');
      const bad = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/callbacks?status=lost',
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /status/);
      const badPage = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks?page=0' });
      assert.equal(badPage.statusCode, 400);
      assert.match(badPage.json().message, /page/);
    });

    it('shows one delivery with its stored V3 payload and no attempts yet', async () => {
      const id = ids.at(-1) ?? '';
      const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/callbacks/${id}` });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.id, id);
      assert.deepEqual(body.attempts, []);
      assert.equal('organisationId' in body, false);
      assert.equal(body.payload.iccid, body.iccid);
      assert.equal(body.payload.alertType, body.alertType);
      assert.equal(typeof body.payload.bundle.reference, 'string');
    });

    it('answers 404 alike for a missing delivery and another organisation’s', async () => {
      const missing = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks/nope' });
      const foreign = await t.request(other.apiKey, {
        method: 'GET',
        url: `/v2.1/callbacks/${ids[0] ?? ''}`,
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, `callback ${ids[0] ?? ''} not found`);
      assert.equal(missing.json().message, 'callback nope not found');
      const resend = await t.request(other.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${ids[0] ?? ''}/resend`,
      });
      assert.equal(resend.statusCode, 404);
      const list = await t.request(other.apiKey, { method: 'GET', url: '/v2.1/callbacks' });
      assert.equal(list.json().callbacks.length, 1);
    });

    it('refuses to resend a delivery that is still queued', async () => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${ids[0] ?? ''}/resend`,
      });
      assert.equal(res.statusCode, 409);
      assert.match(res.json().message, /already queued/);
    });

    it('requires the API key, and the header on POST', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/v2.1/callbacks' });
      assert.equal(none.statusCode, 403);
      const query = await t.app.inject({
        method: 'POST',
        url: `/v2.1/callbacks/${ids[0] ?? ''}/resend?api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(query.statusCode, 403);
    });

    it('resends once for a repeated Idempotency-Key and replays the answer', async () => {
      const id = ids[2] ?? '';
      // As if the retry schedule had run out.
      await t.deps.store.db
        .updateTable('callback_events')
        .set({ status: 'failed' })
        .where('id', '=', id)
        .execute();
      const resend = () =>
        t.request(org.apiKey, {
          method: 'POST',
          url: `/v2.1/callbacks/${id}/resend`,
          headers: { 'idempotency-key': 'resend-once' },
        });
      const first = await resend();
      assert.equal(first.statusCode, 202, first.body);
      assert.equal(first.json().status, 'pending');
      const again = await resend();
      assert.equal(again.statusCode, 202, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      // Without the key the same resend meets the queued delivery: 409.
      const plain = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${id}/resend`,
      });
      assert.equal(plain.statusCode, 409);
    });
  });
}
