// Takes a screenshot of every portal page into docs/portal/*.png, with the browser and the
// portal server of the browser tests (test/portal/), on a fresh SQLite organisation with a few
// orders, eSIMs (one installed, attached, numbered and partly used) and inventory.
//   npm run portal:screenshots
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { NAV } from '../src/portal/layout.js';
import { launchBrowser, newPage } from '../test/portal/browser.js';
import type { PortalServer } from '../test/portal/portal-harness.js';
import { signIn, startPortal } from '../test/portal/portal-harness.js';
import { GB_1GB, api, buyOntoNewEsims } from '../test/portal/shop-fixtures.js';

const OUT = join('docs', 'portal');

async function seed(server: PortalServer): Promise<{ order: string; esim: string }> {
  const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
  const bought = await buyOntoNewEsims(caller, GB_1GB, 3);
  await buyOntoNewEsims(caller, 'esim_3GB_30D_FR_V2', 1).catch(() => undefined);
  await api(caller, 'POST', '/v2.1/orders', {
    type: 'transaction',
    assign: false,
    order: [{ type: 'bundle', item: GB_1GB, quantity: 5 }],
  });
  const esim = bought.iccids[0] ?? '';
  for (const [path, body] of [
    ['install', { status: 'Installed' }],
    ['attach', { country: 'GB' }],
    ['msisdn', {}],
    ['usage', { bytes: 380_000_000 }],
  ] as const) {
    await api(caller, 'POST', `/_sim/esims/${esim}/${path}`, body);
  }
  return { order: bought.reference, esim };
}

async function shoot(page: Page, path: string, name: string): Promise<void> {
  await page.goto(path);
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`docs/portal/${name}.png  ${path}`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const server = await startPortal('sqlite');
  const browser = await launchBrowser();
  try {
    const { order, esim } = await seed(server);
    const { context, page } = await newPage(browser, server.baseUrl);
    await shoot(page, '/portal/sign-in', 'sign-in');
    await signIn(page, 'Admin');
    for (const item of NAV) {
      // The catalogue filtered as a person would, rather than 50 rows of the whole list.
      const path =
        item.key === 'catalogue' ? '/portal/catalogue?countries=GB&region=Europe' : item.href;
      await shoot(page, path, item.key);
    }
    await shoot(page, '/portal/simulator', 'simulator');
    await shoot(page, '/portal/simulator/callbacks', 'simulator-callbacks');
    await shoot(page, '/portal/simulator/requests', 'simulator-requests');
    await shoot(page, `/portal/orders/${order}`, 'order');
    await shoot(page, `/portal/esims/${esim}`, 'esim');
    await page.goto(`/portal/orders/new?item=${GB_1GB}`);
    await page.getByLabel('New eSIMs').check();
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Review order' }).click();
    await page.screenshot({ path: join(OUT, 'orders-review.png'), fullPage: true });
    console.log('docs/portal/orders-review.png  (Buy bundles, review)');
    await context.close();
    const phone = await newPage(browser, server.baseUrl, { width: 375, height: 740 });
    await signIn(phone.page, 'Support');
    await shoot(phone.page, `/portal/esims/${esim}`, 'phone-esim');
    await shoot(phone.page, '/portal/orders', 'phone-orders');
    await phone.context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
