import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, cookiesOf, csrfIn, startPortal } from './portal-harness.js';

// The portal's sign-in throttle counts a client address as the API's limits do: an IPv6 client
// by its /64 (RATE_LIMIT_IPV6_PREFIX), so moving through the addresses of one /64 does not
// escape it, while another /64 is another client.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal sign-in throttle by /64, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal sign-in throttle by /64 (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      before(async () => {
        const defaults = testConfig().portal;
        // Two failures per account, ten per address, behind a trusted proxy.
        portal = await startPortal(kind, {
          config: { trustProxy: true, portal: { ...defaults, lockFailures: 2 } },
        });
      });
      after(() => portal.close());

      const signIn = async (address: string, email: string): Promise<string> => {
        const page = await fetch(`${portal.baseUrl}/portal/sign-in`, { redirect: 'manual' });
        const cookie = `esim_csrf=${cookiesOf(page)['esim_csrf'] ?? ''}`;
        const form = { _csrf: csrfIn(await page.text()), email, password: 'not the password 1' };
        const response = await fetch(`${portal.baseUrl}/portal/sign-in`, {
          method: 'POST',
          headers: {
            cookie,
            'content-type': 'application/x-www-form-urlencoded',
            'x-forwarded-for': address,
          },
          body: new URLSearchParams(form).toString(),
          redirect: 'manual',
        });
        return response.text();
      };

      test('locks a /64 after ten failures from any of its addresses', async () => {
        // One attempt per account, each from another address of the /64.
        const answers: string[] = [];
        for (let i = 1; i <= 11; i += 1) {
          const text = await signIn(`2001:db8:5::${i}`, `nobody${i}@example.com`);
          answers.push(
            /Too many failed/.test(text) ? 'locked' : /not correct/.test(text) ? 'wrong' : text,
          );
        }
        assert.deepEqual(answers.slice(0, 9), Array(9).fill('wrong'));
        assert.equal(answers[10], 'locked', answers.join(', '));
        assert.match(await signIn('2001:db8:5::99', 'nobody12@example.com'), /Too many failed/);
        assert.match(await signIn('2001:db8:6::1', 'nobody13@example.com'), /not correct/);
      });
    });
  }
});
