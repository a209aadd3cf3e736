import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Request } from 'playwright-core';
import { saveCard } from '../../src/domain/money/save-card.js';
import { listAuditEntries } from '../../src/store/repositories/audit-repository.js';
import { browserOnly } from './browser.js';
import { api, apiBalance, hiddenValue } from './money-fixtures.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, emailFor, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// Billing: a card saved with its first payment (the test processor's cards), a declined card's
// reason, top-up that moves money once per form, the ledger with its running balance and CSV,
// and the roles that may (Admin, Finance) and may not (the rest) move money.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Billing, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Billing (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let browser: Browser | undefined;
      before(async () => ({ portal, browser } = await openPortal(kind)));
      after(() => closePortal(portal));

      test(
        'Finance saves a card with a first payment, tops up, and the API charges that card',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Finance');
          await page.getByRole('link', { name: 'Billing', exact: true }).click();
          assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Billing');
          assert.equal(await page.getByTestId('balance').textContent(), '$1,000.00');
          assert.match(await page.getByTestId('no-card').innerText(), /No card saved yet/);

          await page.getByLabel('Card number').fill('4242 4242 4242 4242');
          await page.getByLabel('Expiry (MM/YY)').fill('12/39');
          await page.getByLabel('Security code').fill('123');
          await page.getByLabel('First payment (USD)').fill('25.00');
          await page.getByRole('button', { name: 'Save card and pay' }).click();
          await page.getByRole('status').waitFor();
          assert.match(
            await page.getByRole('status').innerText(),
            /Card saved: Visa •••• 4242.*Paid \$25\.00.*\$1,025\.00/,
          );
          assert.equal(
            await page.getByTestId('saved-card').textContent(),
            'Visa •••• 4242, expires 12/39',
          );
          assert.equal(await page.getByTestId('balance').textContent(), '$1,025.00');
          // The number went to the processor only: the form is empty again and nothing shows it.
          assert.equal(await page.getByLabel('Card number').inputValue(), '');
          assert.doesNotMatch(await page.locator('main').innerText(), /4242424242424242/);

          // Top up from the keyboard: type the amount and press Enter.
          await page.getByLabel('Amount (USD)').fill('1,000.50');
          await page.getByLabel('Amount (USD)').press('Enter');
          await page.getByRole('status').waitFor();
          assert.match(
            await page.getByRole('status').innerText(),
            /Topped up \$1,000\.50; the balance is now \$2,025\.50\./,
          );
          const ledger = page.getByTestId('ledger');
          const firstRow = ledger.locator('tbody tr').first();
          assert.match(await firstRow.innerText(), /topup[\s\S]*\+\$1,000\.50[\s\S]*\$2,025\.50/);
          assert.match(
            await ledger.locator('tbody tr').nth(1).innerText(),
            /\+\$25\.00[\s\S]*\$1,025\.00/,
          );

          // A double click on Top up charges once.
          await page.getByLabel('Amount (USD)').fill('5');
          const posts: string[] = [];
          const topUpPosts = (r: Request) => {
            if (r.method() === 'POST' && r.url().endsWith('/portal/billing/top-up'))
              posts.push(r.url());
          };
          page.context().on('request', topUpPosts);
          // Two submissions of the same rendered form, as a double click on a slow page makes.
          await page.evaluate(`{
            const form = document.querySelector('form[action="/portal/billing/top-up"]');
            const copy = form.cloneNode(true);
            copy.target = 'second';
            document.body.append(copy);
            window.open('about:blank', 'second');
            copy.submit();
            form.submit();
          }`);
          await page.waitForURL((url) => url.pathname === '/portal/billing');
          // Not the flash message: both windows share the one-request flash cookie, and whichever
          // loads Billing first shows it. The balance is the page's own, read after this window's
          // submission (the first, or the one that waited for it) was answered.
          await page.getByTestId('balance').waitFor();
          assert.equal(await page.getByTestId('balance').textContent(), '$2,030.50');
          assert.equal(await apiBalance(portal), 203_050);
          assert.equal(posts.length, 2, 'the browser sent both clicks');
          page.context().off('request', topUpPosts);

          // The card saved in the portal is the one POST /v2.1/organisation/balance charges.
          const topUp = await api(portal, '/organisation/balance?amount=500', { method: 'POST' });
          assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
          assert.deepEqual((topUp.body as { amount: number; balance: number }).balance, 203_550);
          assert.equal(await apiBalance(portal), 203_550);

          const rows = await listAuditEntries(portal.deps.store.db, {
            organisationId: portal.organisationId,
            limit: 20,
          });
          const saved = rows.find((r) => r.action === 'card.saved');
          assert.equal(saved?.actor, `user:${emailFor('Finance')}`);
          assert.equal(saved?.source, '127.0.0.1');
          assert.doesNotMatch(saved?.details ?? '', /4242424242424242/);
          const topUps = rows.filter(
            (r) => r.action === 'topup.succeeded' && r.actor.startsWith('user:'),
          );
          assert.equal(topUps.length, 3);
        },
      );

      test(
        'a declined card shows the processor’s reason next to the card and saves nothing',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Admin');
          const before = await apiBalance(portal);
          const cardBefore = await page.goto('/portal/billing').then(() => page.content());
          const response = page.waitForResponse((r) => r.url().endsWith('/portal/billing/card'));
          await page.getByLabel('Card number').fill('4000000000000002');
          await page.getByLabel('Expiry (MM/YY)').fill('01/40');
          await page.getByLabel('Security code').fill('999');
          await page.getByLabel('First payment (USD)').fill('50');
          await page.getByRole('button', { name: 'Save card and pay' }).click();
          assert.equal((await response).status(), 400);
          const error = page.locator('#field-number-error');
          assert.equal(await error.innerText(), 'card declined: the card was declined');
          assert.equal(await page.getByLabel('Card number').getAttribute('aria-invalid'), 'true');
          // Never sent back: the number is typed again, as the security code is.
          assert.equal(await page.getByLabel('Card number').inputValue(), '');
          assert.doesNotMatch(await page.content(), /value="4000000000000002"/);
          assert.match(
            await page.locator('#field-number-hint').innerText(),
            /Type the number again/,
          );
          assert.equal(await apiBalance(portal), before);
          assert.equal(
            /saved-card">([^<]*)</.exec(await page.content())?.[1],
            /saved-card">([^<]*)</.exec(cardBefore)?.[1],
          );
        },
      );

      test('bad card fields and amounts are refused inline, naming the field', async () => {
        const session = await signInHttp(portal.baseUrl, 'Finance');
        const page = await (await session.get('/portal/billing')).text();
        const key = hiddenValue(page, 'idempotencyKey');
        const cases: [Record<string, string>, string, RegExp][] = [
          [
            { number: '42', expiry: '12/39', cvc: '123', payment: '10' },
            'number',
            /card number must be 12 to 19 digits/,
          ],
          [{ number: '', expiry: '12/39', cvc: '123', payment: '10' }, 'number', /card number/],
          [
            { number: '4242424242424242', expiry: '13/39', cvc: '123', payment: '10' },
            'expiry',
            /expiry month must be 01 to 12/,
          ],
          [
            { number: '4242424242424242', expiry: '12/39', cvc: 'x', payment: '10' },
            'cvc',
            /security code must be 3 or 4 digits/,
          ],
          [
            { number: '4242424242424242', expiry: '12/39', cvc: '123', payment: 'ten' },
            'payment',
            /amount must be an amount of USD such as 100\.00/,
          ],
          [
            { number: '4242424242424242', expiry: '12/39', cvc: '123', payment: '1.00' },
            'payment',
            /amount must be at least \$5\.00/,
          ],
          [
            { number: '4242424242424242', expiry: '12/39', cvc: '123', payment: '10.001' },
            'payment',
            /amount must be an amount of USD/,
          ],
        ];
        for (const [fields, field, message] of cases) {
          const res = await session.post('/portal/billing/card', {
            ...fields,
            idempotencyKey: key,
          });
          assert.equal(res.status, 400, JSON.stringify(fields));
          const html = await res.text();
          const sentBack = /name="number"\s+type="text"\s+value="([^"]*)"/.exec(html);
          assert.equal(sentBack?.[1], '', 'the card number is not sent back');
          // Asked to type it again only when one was typed.
          assert.equal(html.includes('Type the number again'), fields['number'] !== '');
          const inline =
            new RegExp(`id="field-${field}-error" role="alert">([^<]*)<`).exec(html)?.[1] ?? '';
          assert.match(inline, message);
        }
      });

      test('a double-submitted top-up form moves money once; its key is bound to its amount', async () => {
        await saveCard({ ...portal.deps, store: portal.deps.store }, portal.organisationId, {
          number: '4242424242424242',
          expMonth: 12,
          expYear: 2040,
        });
        const session = await signInHttp(portal.baseUrl, 'Finance');
        const page = await (await session.get('/portal/billing')).text();
        const key = hiddenValue(page, 'idempotencyKey', 1);
        const before = await apiBalance(portal);
        const [first, second] = await Promise.all([
          session.post('/portal/billing/top-up', { amount: '20', idempotencyKey: key }),
          session.post('/portal/billing/top-up', { amount: '20', idempotencyKey: key }),
        ]);
        assert.equal(first.status, 303);
        assert.equal(second.status, 303);
        assert.equal(await apiBalance(portal), before + 2000);
        const again = await session.post('/portal/billing/top-up', {
          amount: '20',
          idempotencyKey: key,
        });
        assert.equal(again.status, 303);
        assert.equal(await apiBalance(portal), before + 2000);
        const other = await session.post('/portal/billing/top-up', {
          amount: '30',
          idempotencyKey: key,
        });
        assert.equal(other.status, 409);
        assert.match(await other.text(), /already used for another amount/);
        assert.equal(await apiBalance(portal), before + 2000);
      });

      for (const role of ['Viewer', 'Developer', 'Support'] as const) {
        test(`${role} reads Billing but can neither save a card nor top up`, async () => {
          const session = await signInHttp(portal.baseUrl, role);
          const page = await session.get('/portal/billing');
          assert.equal(page.status, 200);
          const html = await page.text();
          assert.doesNotMatch(html, /action="\/portal\/billing\/(card|top-up)"/);
          const before = await apiBalance(portal);
          const topUp = await session.post('/portal/billing/top-up', {
            amount: '20',
            idempotencyKey: `k-${role}`,
          });
          assert.equal(topUp.status, 403);
          const card = await session.post('/portal/billing/card', {
            number: '4242424242424242',
            expiry: '12/39',
            cvc: '123',
            payment: '20',
            idempotencyKey: `c-${role}`,
          });
          assert.equal(card.status, 403);
          assert.equal(await apiBalance(portal), before);
        });
      }

      test('the ledger downloads as CSV with decimal amounts and the running balance', async () => {
        const session = await signInHttp(portal.baseUrl, 'Viewer');
        const res = await session.get('/portal/billing/ledger.csv');
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
        assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="ledger-/);
        const lines = (await res.text()).trim().split('\n');
        assert.equal(
          lines[0],
          'entry,date,kind,description,reference,currency,amount,balance,testCreditChange,testCredit',
        );
        assert.match(lines[1] ?? '', /,USD,1000\.00,1000\.00,0\.00,0\.00$/);
        assert.ok(lines.length >= 3);
      });

      test('another signed-out request is sent to sign in, and a POST without the CSRF token is refused', async () => {
        const session = await signInHttp(portal.baseUrl, 'Finance');
        const res = await session.post(
          '/portal/billing/top-up',
          { amount: '20', idempotencyKey: 'x' },
          { csrf: false },
        );
        assert.equal(res.status, 403);
        const anonymous = await fetch(`${portal.baseUrl}/portal/billing`, { redirect: 'manual' });
        assert.equal(anonymous.status, 303);
      });
    });
  }
});
