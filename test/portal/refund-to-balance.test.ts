import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import type { ApiCaller } from './shop-fixtures.js';
import { GB_1GB, api, balanceOf, buyOntoNewEsims } from './shop-fixtures.js';

// The eSIM page's revoke offers a refund to the balance where the rules permit one (an unused
// assignment within the refund window): the price comes back to the balance, journaled as a
// refund on the Billing page. A started assignment is offered only the plain revoke.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal revoke with refund to balance, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(
      `portal revoke with refund to balance (${kind})`,
      { ...browserOnly, concurrency: 1 },
      () => {
        let server: PortalServer;
        let caller: ApiCaller;

        before(async () => {
          ({ portal: server } = await openPortalWithBrowser(kind));
          caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        });
        after(() => closePortal(server));

        test('Admin revokes an unused assignment with its price back to the balance', async () => {
          const [iccid = ''] = (await buyOntoNewEsims(caller, GB_1GB, 1)).iccids;
          const bundle = (await api(caller, 'GET', `/v2.1/catalogue/bundle/${GB_1GB}`)).json as {
            price: number;
          };
          const before = await balanceOf(caller);
          const page = await portalPage(server);
          page.on('dialog', (dialog) => void dialog.accept());
          await signIn(page, 'Admin', { to: `/portal/esims/${iccid}` });
          const refund = page.getByRole('button', { name: /^Revoke and refund .+ to balance$/ });
          const label = await refund.innerText();
          await refund.click();
          await page.getByText(/Assignment revoked; .+ refunded to the balance/).waitFor();
          assert.match(label, /refund \$?[\d.,]+/);
          assert.equal(await balanceOf(caller), before + bundle.price);
          assert.equal(await refund.count(), 0, 'nothing left to refund');
          const state = (await api(caller, 'GET', `/v2.5/esims/${iccid}/bundles?includeUsed=true`))
            .json as { bundles: { assignments: { bundleState: string }[] }[] };
          assert.equal(state.bundles[0]?.assignments[0]?.bundleState, 'revoked');
          await page.goto('/portal/billing');
          assert.match(await page.locator('main').innerText(), /refund/i);
        });

        test('a started assignment is offered only the plain revoke; the server refuses a refund', async () => {
          const [iccid = ''] = (await buyOntoNewEsims(caller, GB_1GB, 1)).iccids;
          for (const [path, body] of [
            ['install', { status: 'Installed' }],
            ['attach', { country: 'GB' }],
            ['usage', { bytes: 1_000_000 }],
          ] as const) {
            const done = await api(caller, 'POST', `/_sim/esims/${iccid}/${path}`, body);
            assert.equal(done.status, 200, `${path}: ${JSON.stringify(done.json)}`);
          }
          const session = await signInHttp(server.baseUrl, 'Admin');
          const page = await (await session.get(`/portal/esims/${iccid}`)).text();
          assert.ok(page.includes('assignment without refund?'), 'the plain revoke');
          assert.ok(!page.includes('to balance'), 'no refund to the balance offered');
          const bundles = (await api(caller, 'GET', `/v2.5/esims/${iccid}/bundles`)).json as {
            bundles: { assignments: { id: string }[] }[];
          };
          const id = bundles.bundles[0]?.assignments[0]?.id ?? '';
          const before = await balanceOf(caller);
          const refused = await session.post(
            `/portal/esims/${iccid}/bundles/${GB_1GB}/assignments/${id}/revoke`,
            { refund: 'balance' },
          );
          assert.equal(refused.status, 400);
          assert.match(await refused.text(), /cannot be refunded to the balance/);
          assert.equal(await balanceOf(caller), before);
        });
      },
    );
  }
});
