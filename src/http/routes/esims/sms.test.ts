import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, seedTestBundles, sim } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

for (const kind of DATABASES) {
  describe(`POST /v2.1/esims/{iccid}/sms [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let numbered: string;
    let unnumbered: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      [numbered = '', unnumbered = ''] = (await buy(t, org, FR_1MB.name, { quantity: 2 })).iccids;
      const given = await sim(t, 'POST', `/_sim/esims/${numbered}/msisdn`, { country: 'FR' });
      assert.match(String(given['msisdn']), /^33\d{9}$/);
    });
    after(() => t.close());

    const send = (iccid: string, payload: Record<string, unknown>) =>
      t.request(org.apiKey, { method: 'POST', url: `/v2.1/esims/${iccid}/sms`, payload });

    it('accepts 1 and 160 characters, counting multi-byte characters as one', async () => {
      const one = await send(numbered, { message: 'x' });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(one.json(), { message: 'Message sent' });
      const emoji = '\u{1F600}'.repeat(160); // 640 bytes, 320 UTF-16 units, 160 characters
      const full = await send(numbered, { message: emoji, from: 'eSIM' });
      assert.equal(full.statusCode, 200, full.body);
      const outbox = await sim(t, 'GET', `/_sim/sms?iccid=${numbered}`);
      const messages = outbox['messages'] as { message: string; from: string; msisdn: string }[];
      // Both may share a millisecond, so compare as a set.
      assert.deepEqual(messages.map((m) => m.message).sort(), ['x', emoji].sort());
      for (const m of messages) {
        assert.equal(m.from, 'eSIM');
        assert.match(m.msisdn, /^33\d{9}$/);
      }
    });

    it('rejects 0 and 161 characters, another sender and an eSIM without MSISDN', async () => {
      for (const message of ['', 'a'.repeat(161), '\u{1F600}'.repeat(161)]) {
        const res = await send(numbered, { message });
        assert.equal(res.statusCode, 400, `${message.length}: ${res.body}`);
        assert.match(res.json().message, /message/);
      }
      const sender = await send(numbered, { message: 'hi', from: 'Bank' });
      assert.equal(sender.statusCode, 400);
      assert.match(sender.json().message, /from/);
      const noNumber = await send(unnumbered, { message: 'hi' });
      assert.equal(noNumber.statusCode, 400);
      assert.match(noNumber.json().message, /MSISDN/);
      const missing = await send(numbered, {});
      assert.equal(missing.statusCode, 400);
      const outbox = await sim(t, 'GET', `/_sim/sms?iccid=${unnumbered}`);
      assert.deepEqual(outbox['messages'], []);
      // Nothing refused reached the numbered eSIM either: only the two accepted messages.
      const numberedOutbox = await sim(t, 'GET', `/_sim/sms?iccid=${numbered}`);
      const delivered = (numberedOutbox['messages'] as { message: string }[]).map((m) => m.message);
      assert.deepEqual(delivered.sort(), ['x', '\u{1F600}'.repeat(160)].sort());
    });

    it('replays a request with the same Idempotency-Key instead of sending twice', async () => {
      const headers = { 'idempotency-key': 'sms-once' };
      const first = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/esims/${numbered}/sms`,
        headers,
        payload: { message: 'only once' },
      });
      const again = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/esims/${numbered}/sms`,
        headers,
        payload: { message: 'only once' },
      });
      assert.equal(first.statusCode, 200);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const outbox = await sim(t, 'GET', `/_sim/sms?iccid=${numbered}`);
      const sent = (outbox['messages'] as { message: string }[]).filter(
        (m) => m.message === 'only once',
      );
      assert.equal(sent.length, 1);
    });

    it('refuses the api_key query parameter on POST', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2.1/esims/${numbered}/sms?api_key=${encodeURIComponent(org.apiKey)}`,
        payload: { message: 'hi' },
      });
      assert.equal(res.statusCode, 403);
    });
  });
}
