import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signBody } from '../../src/callbacks/signer.js';
import { scratchDir } from '../cli/helpers.js';
import { eventually } from '../harness.js';
import { browserOnly, newPage, sharedBrowser } from '../portal/browser.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import type { Shell } from './walkthrough.js';
import {
  bash,
  docSection,
  installEsimCommand,
  shellBlocks,
  startWalkthroughServer,
  stopShell,
  walkthroughEnv,
} from './walkthrough.js';

// docs/simulator.md's "A walk through the console", followed in Chromium step by step against
// the server of the walk-through's steps 1 and 2 (the fixture, `esim serve`), with the page's
// commands run as printed. Every label the test reads or clicks is one the doc's step names in
// bold, so a page and its description cannot drift apart; each step is checked through what
// the page shows. The one thing the reader brings is a callback receiver: the test's own.

interface Step {
  readonly number: number;
  /** The step's text, its whitespace collapsed (a bold label may wrap). */
  readonly text: string;
  readonly blocks: string[];
}

function consoleSteps(): Step[] {
  const section = docSection('A walk through the console');
  return section
    .split(/^(?=\*\*\d+\. )/m)
    .slice(1)
    .map((raw) => ({
      number: Number(/^\*\*(\d+)\./.exec(raw)?.[1]),
      text: raw.replace(/\s+/g, ' '),
      blocks: shellBlocks(raw),
    }));
}

/** The step's text names each label in bold: what the page shows or offers. */
function says(step: Step, ...labels: string[]): void {
  for (const label of labels) {
    assert.ok(step.text.includes(`**${label}**`), `step ${step.number} names **${label}**`);
  }
}

async function submit(page: Page, button: string): Promise<string> {
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForSelector('p.flash, p.form-error');
  const error = page.locator('p.form-error');
  if ((await error.count()) > 0) assert.fail(`${button}: ${await error.first().innerText()}`);
  return page.locator('p.flash').innerText();
}

async function nav(page: Page, link: string): Promise<void> {
  await page.getByRole('link', { name: link, exact: true }).first().click();
  await page.waitForLoadState();
}

/** The bar titles of a usage chart ("28 Nov: 600 MB"), as its tooltips show them. */
async function barTitles(page: Page, testId: string): Promise<string[]> {
  return page.locator(`[data-testid="${testId}"] rect title`).allTextContents();
}

/** "28 Nov", as the charts name a day. */
function chartDay(iso: string): string {
  const date = new Date(iso);
  return `${date.getUTCDate()} ${date.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' })}`;
}

describe('the console walk-through of docs/simulator.md', { skip: browserOnly.skip }, () => {
  const dir = scratchDir();
  const env = walkthroughEnv();
  let server: Shell | undefined;
  let browser: Browser | undefined;
  let receiver: Receiver | undefined;

  before(async () => {
    installEsimCommand(dir.path);
    ({ server } = await startWalkthroughServer(dir.path, env));
    receiver = await startReceiver();
    browser = await sharedBrowser();
  });

  after(async () => {
    await receiver?.close();
    await stopShell(server);
    dir.remove();
  });

  it('follows the steps: banner, clock, data use, SMS, a callback, the journal', async () => {
    assert.ok(browser !== undefined && receiver !== undefined);
    const steps = consoleSteps();
    assert.deepEqual(
      steps.map((s) => s.number),
      [1, 2, 3, 4, 5, 6, 7],
    );
    const [signIn, clock, callbacksOn, useData, sms, callback, journal] = steps as [
      Step,
      Step,
      Step,
      Step,
      Step,
      Step,
      Step,
    ];

    // 1. Sign in at the address the step's command prints, with the fixture's user.
    const [printAddress = ''] = signIn.blocks;
    const address = await bash(printAddress, dir.path, env).done;
    assert.equal(address.code, 0, address.out);
    const portalUrl = address.out.trim();
    assert.match(portalUrl, /^http:\/\/127\.0\.0\.1:\d+\/portal$/);
    const [, email = '', password = ''] =
      /as `([^`]+)` with the password `([^`]+)`/.exec(signIn.text) ?? [];
    const { context, page } = await newPage(browser, new URL(portalUrl).origin);
    try {
      await page.goto(portalUrl);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/portal');
      says(signIn, 'Simulator', 'simulated time', 'in step with real time');
      const banner = page.getByTestId('sim-banner');
      assert.match(await banner.innerText(), /^Simulator · simulated time /);
      assert.equal(await page.getByTestId('sim-offset').innerText(), 'in step with real time');
      const shownBefore = await page.getByTestId('sim-time').innerText();
      const before = (await page.getByTestId('sim-time').getAttribute('datetime')) ?? '';

      // 2. Move the clock two days from the console; the banner follows.
      says(clock, 'Simulator', 'Clock', 'Advance by', 'Unit', 'Advance the clock');
      await nav(page, 'Simulator');
      await page.getByRole('heading', { name: 'Clock', exact: true }).waitFor();
      await page.getByLabel('Advance by').fill('2');
      await page.getByLabel('Unit').selectOption({ label: 'Days' });
      const moved = await submit(page, 'Advance the clock');
      says(clock, 'The clock moved 2 days', '2 days ahead of real time');
      assert.match(moved, /^The clock moved 2 days: /);
      assert.equal(await page.getByTestId('sim-offset').innerText(), '2 days ahead of real time');
      const now = (await page.getByTestId('sim-time').getAttribute('datetime')) ?? '';
      assert.ok(Date.parse(now) - Date.parse(before) >= 2 * 86_400_000, `${before} -> ${now}`);
      assert.notEqual(await page.getByTestId('sim-time').innerText(), shownBefore);

      // 3. Callbacks to the receiver, V3.
      says(callbacksOn, 'API & callbacks', 'Callback URL', 'V3', 'Save callback settings');
      await nav(page, 'API & callbacks');
      await page.getByLabel('Callback URL').fill(`${receiver.url}/hook`);
      await page.getByLabel(/^V3/).check();
      assert.match(await submit(page, 'Save callback settings'), /version V3/);

      // 4. Install, attach, use 600 MB; the charts draw it on the simulated day.
      says(useData, 'Simulator', 'An eSIM on the network', 'ICCID', 'Install');
      says(useData, 'Profile status (Install)', 'Attach or move', 'Country (Attach or move)');
      says(useData, 'Data (MB)', 'Use data', '600 MB used on eSIM');
      await nav(page, 'Simulator');
      await page.getByRole('heading', { name: 'An eSIM on the network' }).waitFor();
      const iccid = await page.getByLabel('ICCID').inputValue();
      assert.match(iccid, /^89\d{17}$/);
      assert.equal(await page.getByLabel('Profile status (Install)').inputValue(), 'Installed');
      assert.match(await submit(page, 'Install'), new RegExp(`eSIM ${iccid} is now Installed`));
      await page.getByLabel('Country (Attach or move)').fill('FR');
      assert.match(await submit(page, 'Attach or move'), / in FR\.$/);
      await page.getByLabel('Data (MB)').fill('600');
      assert.match(await submit(page, 'Use data'), new RegExp(`^600 MB used on eSIM ${iccid}\\.`));
      const simulatedNow = (await page.getByTestId('sim-time').getAttribute('datetime')) ?? '';
      const dayOf = async () => (await page.getByTestId('sim-time').innerText()).split(',')[0];
      const dayOfUse = await dayOf();
      const drawn = `${chartDay(simulatedNow)}: 600 MB`;
      says(useData, 'Overview', 'Data used per day', 'eSIMs');
      await nav(page, 'Overview');
      const fixtureUse = `${chartDay(before)}: 250 MB`;
      const overviewBars = await barTitles(page, 'usage-chart');
      assert.ok(overviewBars.includes(drawn), `${drawn} in ${overviewBars.join(', ')}`);
      assert.ok(overviewBars.includes(fixtureUse), `${fixtureUse} in ${overviewBars.join(', ')}`);
      assert.match(
        (await page.getByRole('img', { name: /^Data used per day/ }).getAttribute('aria-label')) ??
          '',
        new RegExp(`most on ${chartDay(simulatedNow)}, 600 MB$`),
      );
      await nav(page, 'eSIMs');
      await nav(page, iccid);
      assert.ok((await barTitles(page, 'esim-usage-chart')).includes(drawn), drawn);

      // 5. The step's commands as printed: a number, then an SMS through the API.
      says(sms, 'SMS and mail', 'SMS to your eSIMs', 'Mail to your users');
      const [sendSms = ''] = sms.blocks;
      const sent = await bash(sendSms, dir.path, env).done;
      assert.equal(sent.code, 0, sent.out);
      assert.match(sent.out, /"message": ?"Message sent"/);
      const msisdn = /"msisdn": "(\d+)"/.exec(sent.out)?.[1] ?? '';
      assert.match(msisdn, /^33\d{9}$/);
      const text = /"message": "([^"]+)"/.exec(sendSms)?.[1] ?? '';
      await nav(page, 'Simulator');
      await nav(page, 'SMS and mail');
      await page.getByRole('heading', { name: 'SMS to your eSIMs' }).waitFor();
      await page.getByRole('heading', { name: 'Mail to your users' }).waitFor();
      const outbox = await page.getByTestId('sms-outbox').innerText();
      assert.match(outbox, new RegExp(`To ${msisdn} \\(eSIM ${iccid}\\)`));
      assert.ok(outbox.includes(text), `the outbox shows "${text}"`);

      // 6. The 50 % callback, with the headers and body it was sent with.
      says(callback, 'Callbacks', 'Utilisation 50 %', 'Request headers', 'X-Signature-SHA256');
      says(callback, 'Request body');
      const delivered = await eventually(
        async () => receiver?.at('/hook').find((r) => /"threshold":\s*50\b/.test(r.rawBody)),
        60_000,
        'the 50 % callback at the receiver',
      );
      await nav(page, 'Callbacks');
      for (const threshold of [50, 80]) {
        const link = page.getByRole('link', { name: `Utilisation ${threshold} %`, exact: true });
        assert.equal(await link.count(), 1, `the ${threshold} % callback is listed`);
      }
      await nav(page, 'Utilisation 50 %');
      // The attempt is written once the receiver's answer is in: read until it is shown.
      await eventually(
        async () => {
          if ((await page.getByTestId('attempt').count()) > 0) return true;
          await page.reload();
          return undefined;
        },
        60_000,
        'the attempt on the callback page',
      );
      await page.getByRole('heading', { name: 'Request headers' }).waitFor();
      const headers = await page.getByTestId('request-headers').first().innerText();
      const key = /^KEY=(\S+)$/m.exec(sendSms)?.[1] ?? '';
      const signature = signBody(delivered.rawBody, key);
      assert.ok(
        headers.toLowerCase().includes(`x-signature-sha256: ${signature.toLowerCase()}`),
        headers,
      );
      await page.getByRole('heading', { name: 'Request body' }).waitFor();
      const body = JSON.parse(await page.getByTestId('request-body').first().innerText()) as {
        iccid: string;
        threshold: number;
      };
      assert.deepEqual([body.iccid, body.threshold], [iccid, 50]);

      // 7. The calls of step 5 in the journal, newest first.
      says(journal, 'Request journal', 'POST', 'GET');
      const smsPath = `/v2.1/esims/${iccid}/sms`;
      await nav(page, 'Request journal');
      const rows = page.getByTestId('journal').locator('tbody tr');
      await eventually(
        async () => {
          if ((await page.getByTestId('journal').count()) > 0) {
            if ((await rows.first().innerText()).includes(smsPath)) return true;
          }
          await page.reload();
          return undefined;
        },
        60_000,
        'the SMS call in the journal',
      );
      const cells = async (i: number) =>
        (await rows.nth(i).locator('td').allInnerTexts()).map((c) => c.trim());
      const [at = '', method, path, status] = await cells(0);
      assert.deepEqual([method, path, status], ['POST', smsPath, '200']);
      // Made between the data use and now, by the simulated clock.
      const days = [dayOfUse, await dayOf()];
      assert.ok(
        days.some((day) => day !== undefined && at.startsWith(`${day},`)),
        `the call at ${at}, on a simulated day of ${days.join(' or ')}`,
      );
      const [, listMethod, listPath, listStatus] = await cells(1);
      assert.deepEqual([listMethod, listPath, listStatus], ['GET', '/v2.1/esims', '200']);
    } finally {
      await context.close();
    }
  });
});
