import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { createDemoOrganisation } from '../../src/demo.js';
import { startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { browserOnly, newPage, sharedBrowser } from '../portal/browser.js';
import type { Document } from './try-it.js';
import { pageOperations, prefilledRequest } from './try-it.js';

// The /docs page in Chromium: what its top says about the key, that the key given to Authorize
// survives switching versions, and that test/docs/try-it.ts (what test/openapi-request-examples
// .test.ts replays on every version) is what the page does: the same operations in the same
// order on each version's tab, and, for operations with each kind of prefilled value, the same
// request on Execute. The tests share one loaded page (swagger-ui renders five documents on
// load); each starts by showing the version it begins on.

const VERSIONS = ['2.1', '2.2', '2.3', '2.4', '2.5'];

describe('the /docs page', { skip: browserOnly.skip }, () => {
  let t: TestApp;
  let apiKey = '';
  let base = '';
  let context: BrowserContext | undefined;
  let page: Page;
  const documents = new Map<string, Document>();

  before(async () => {
    // Chromium starts while the app is built.
    const browser = sharedBrowser();
    browser.catch(() => undefined); // its failure is met where it is awaited
    t = await startTestApp('sqlite');
    const demo = await createDemoOrganisation(t.deps);
    assert.ok(demo !== undefined);
    apiKey = demo.apiKey;
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    for (const v of VERSIONS) {
      documents.set(v, (await t.app.inject({ url: `/v${v}/openapi.json` })).json<Document>());
    }
    // The suite's page: closed after it (the process's browser stays for other suites).
    ({ context, page } = await newPage(await browser, base));
    await page.goto('/docs');
    await page.waitForSelector('.opblock');
  });
  after(async () => {
    await context?.close();
    await t?.close();
  });

  const showVersion = async (page: Page, version: string): Promise<void> => {
    await page.locator('.topbar select').selectOption({ label: `v${version}` });
    await page.waitForSelector(`.opblock-summary-path[data-path^="/v${version}/"]`);
  };

  const locked = '.auth-wrapper .btn.authorize.locked';

  /** Gives the key to Authorize, unless an earlier test of the suite already did. */
  const authorize = async (page: Page): Promise<void> => {
    if ((await page.locator(locked).count()) > 0) return;
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('.modal-ux input').first().fill(apiKey);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux button.close-modal').click();
  };

  /** Opens the operation, Try it out, Execute: the request the page sent. */
  const execute = async (page: Page, operationId: string): Promise<Request> => {
    const op = page.locator(`.opblock[id$="-${operationId}"]`);
    await op.locator('.opblock-summary-control').click();
    await op.locator('.try-out__btn').click();
    const [request] = await Promise.all([
      page.waitForRequest((r) => !new URL(r.url()).pathname.startsWith('/docs')),
      op.locator('button.execute').click(),
    ]);
    await op.locator('.live-responses-table tbody .response-col_status').waitFor();
    // Closed again: swagger-ui renders every open operation anew on each change of the page.
    await op.locator('.opblock-summary-control').click();
    await op.locator('.opblock-body').waitFor({ state: 'detached' });
    return request;
  };

  it('says at its top where the key is and to click Authorize', async () => {
    await showVersion(page, '2.1');
    const info = await page.locator('.information-container').innerText();
    for (const words of [
      'Authorize',
      'API key: esim_',
      'Reveal key',
      'from the top of the page down',
    ]) {
      assert.ok(info.includes(words), `"${words}" in ${info}`);
    }
  });

  it('lists every version’s operations in the order the examples are tried', async () => {
    for (const version of VERSIONS) {
      await showVersion(page, version);
      const shown = await page
        .locator('.opblock')
        .evaluateAll((els) => els.map((e) => e.id.split('-').pop() ?? ''));
      const modelled = pageOperations(documents.get(version) as Document).map(
        (o) => o.operation.operationId,
      );
      assert.deepEqual(shown, modelled, `v${version}`);
    }
  });

  it('keeps the key given to Authorize when the version is switched', async () => {
    await showVersion(page, '2.1');
    await authorize(page);
    await showVersion(page, '2.5');
    assert.equal(await page.locator(locked).count(), 1);
    const request = await execute(page, 'getOrganisation');
    assert.equal(new URL(request.url()).pathname, '/v2.5/organisation');
    assert.equal(request.headers()['x-api-key'], apiKey);
    assert.equal((await request.response())?.status(), 200);
  });

  it('sends on Execute what the replay sends, for each kind of prefilled value', async () => {
    // Operations with a path parameter, a query example, query defaults (text, boolean), an array
    // example, a body, a header left empty, and no key (the simulator's).
    const samples: Record<string, string[]> = {
      '2.1': ['topUpBalance', 'revokeAssignment', 'simAttach'],
      '2.5': ['listOrders', 'getInstallData', 'listEsimBundles', 'placeOrder'],
    };
    await showVersion(page, '2.1');
    await authorize(page);
    // Answered here, not by the service: only what the page sends is compared.
    await page.route(
      (url) => !url.pathname.startsWith('/docs') && !url.pathname.endsWith('/openapi.json'),
      (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }),
    );
    for (const [version, operationIds] of Object.entries(samples)) {
      await showVersion(page, version);
      const doc = documents.get(version) as Document;
      for (const operationId of operationIds) {
        const op = pageOperations(doc).find((o) => o.operation.operationId === operationId);
        assert.ok(op !== undefined, operationId);
        const modelled = prefilledRequest(doc, op, apiKey);
        const sent = await execute(page, operationId);
        const url = new URL(sent.url());
        const name = `v${version} ${operationId}`;
        assert.equal(sent.method(), modelled.method, name);
        assert.equal(url.pathname, modelled.url.split('?')[0], name);
        const query = (u: URLSearchParams) => [...u].map(([k, v]) => `${k}=${v}`).sort();
        assert.deepEqual(
          query(url.searchParams),
          query(new URL(modelled.url, base).searchParams),
          name,
        );
        assert.equal(sent.headers()['x-api-key'], modelled.headers['x-api-key'], name);
        assert.equal(sent.headers()['idempotency-key'], undefined, name);
        const body = sent.postData();
        assert.deepEqual(
          body === null ? undefined : JSON.parse(body),
          modelled.body === undefined ? undefined : JSON.parse(modelled.body),
          name,
        );
      }
    }
    await page.unrouteAll();
  });
});
