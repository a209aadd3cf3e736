import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CALLBACK_RECEIVER_PATH, DEMO_CALLBACK_ID } from '../../../demo-data.js';
import { createDemoOrganisation } from '../../../demo.js';
import { createCallbackWorker } from '../../../workers/callback-delivery.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp } from '../../../../test/harness.js';

// The simulator's callback receiver: the demo organisation's callback URL, so a resend of one of
// its callbacks is delivered without a receiver of the integrator's, also behind SIM_ADMIN_TOKEN
// (a delivery sends no bearer token).

const TOKEN = 'receiver-test-token';

for (const kind of DATABASES) {
  describe(`the simulator's callback receiver [${kind}]`, () => {
    let t: TestApp;
    let apiKey = '';
    let base = '';

    before(async () => {
      t = await startTestApp(kind, { simAdminToken: TOKEN });
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const demo = await createDemoOrganisation(t.deps, base);
      assert.ok(demo !== undefined);
      apiKey = demo.apiKey;
    });
    after(() => t.close());

    it('acknowledges any callback with 200 and no token, while the rest of /_sim needs one', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: CALLBACK_RECEIVER_PATH,
        payload: { iccid: '8944000000000000014', alertType: 'FirstUse' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await t.app.inject({ url: '/_sim/clock' })).statusCode, 401);
      // A callback is a JSON object: anything else is refused, as docs/simulator.md says.
      for (const [type, payload, status] of [
        ['application/json', '[1]', 400],
        ['application/json', 'hello', 400],
        ['text/plain', 'hello', 415],
      ] as const) {
        const refused = await t.app.inject({
          method: 'POST',
          url: CALLBACK_RECEIVER_PATH,
          headers: { 'content-type': type },
          payload,
        });
        assert.equal(refused.statusCode, status, `${type} ${payload}: ${refused.body}`);
      }
    });

    it("is where the demo organisation's resent callback is delivered", async () => {
      const organisation = await t.request(apiKey, { url: '/v2.1/organisation' });
      const url = organisation.json<{ organisations: { callbackUrl: string }[] }>().organisations[0]
        ?.callbackUrl;
      assert.equal(url, `${base}${CALLBACK_RECEIVER_PATH}`);
      const resend = await t.request(apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${DEMO_CALLBACK_ID}/resend`,
      });
      assert.equal(resend.statusCode, 202, resend.body);
      await createCallbackWorker(t.deps, { warn: () => undefined }).drain();
      const delivery = await t.request(apiKey, { url: `/v2.1/callbacks/${DEMO_CALLBACK_ID}` });
      const body = delivery.json<{ status: string; attempts: { statusCode: number }[] }>();
      assert.equal(body.status, 'delivered', delivery.body);
      assert.equal(body.attempts.at(-1)?.statusCode, 200);
    });
  });
}
