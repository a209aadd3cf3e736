import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import type { PortalServer } from './portal-harness.js';
import {
  DATABASES,
  cookiesOf,
  csrfIn,
  emailFor,
  signInHttp,
  startPortal,
} from './portal-harness.js';

// The portal's mail goes through an SMTP server that does not answer, as when the operator's mail
// relay is down: one port refuses every connection, on the other the relay takes the connection
// and never says a word (packets dropped further on). The user an Admin adds is added and the
// page shows the one-time link, saying it was not mailed; "Forgot your password?" answers a known
// address as it answers an unknown one. Neither is a 500 nor waits on the relay past its
// timeouts, and the log names the failure, never the link.

/** An address on this host where nothing listens: every SMTP connection is refused. */
async function refusingSmtpUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `smtp://127.0.0.1:${port}`;
}

/**
 * A relay that takes every connection and never greets: the greeting timeout (SMTP_TIMEOUT_MS,
 * short here) is what ends each mail.
 */
async function silentSmtpUrl(): Promise<{ url: string; close(): Promise<void> }> {
  const held: Socket[] = [];
  const server = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function forgotPassword(baseUrl: string, email: string): Promise<Response> {
  const form = await fetch(`${baseUrl}/portal/forgot-password`, { redirect: 'manual' });
  const cookie = `esim_csrf=${cookiesOf(form)['esim_csrf'] ?? ''}`;
  return fetch(`${baseUrl}/portal/forgot-password`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfIn(await form.text()), email }).toString(),
    redirect: 'manual',
  });
}

describe(
  'portal mail with the SMTP server out of reach, on each database',
  { concurrency: true },
  () => {
    for (const kind of DATABASES) {
      // One relay of each kind, a database each: the two cost no more than one.
      const silent = kind !== 'sqlite';
      describe(
        `portal mail failures (${kind}, relay ${silent ? 'silent' : 'refusing'})`,
        { concurrency: 1 },
        () => {
          let portal: PortalServer;
          let relay: { url: string; close(): Promise<void> } | undefined;
          const log: string[] = [];
          // With the silent relay each mail waits out the 200 ms timeout; the SMTP client's own
          // (30 s for the greeting) would pass this bound, far above what a loaded machine adds.
          const bound = { timeout: silent ? 20_000 : undefined };
          before(async () => {
            relay = silent ? await silentSmtpUrl() : undefined;
            const portalSettings = {
              ...testConfig().portal,
              mailTransport: 'smtp' as const,
              smtpUrl: relay?.url ?? (await refusingSmtpUrl()),
              smtpTimeoutMs: 200,
            };
            portal = await startPortal(kind, {
              config: { portal: portalSettings },
              logStream: { write: (line) => void log.push(line) },
            });
          });
          after(async () => {
            await portal.close();
            await relay?.close();
          });

          test(
            'an Admin adds a user: the user is added and the page shows the link it could not mail',
            bound,
            async () => {
              const admin = await signInHttp(portal.baseUrl, 'Admin');
              const added = await admin.post('/portal/users', {
                firstName: 'Grace',
                lastName: 'Hopper',
                email: 'grace@main.portal.test',
                role: 'Viewer',
                phoneNumber: '',
                timeZone: 'UTC',
              });
              assert.equal(added.status, 303, await added.text());
              assert.equal(added.headers.get('location'), '/portal/users');
              // The flash, a cookie of the redirect, is shown by the page it leads to.
              const flash = Object.entries(cookiesOf(added)).map(
                ([name, value]) => `${name}=${value}`,
              );
              const users = await fetch(`${portal.baseUrl}/portal/users`, {
                headers: { cookie: [admin.cookie, ...flash].join('; ') },
              });
              const page = await users.text();
              assert.match(page, /grace@main\.portal\.test/);
              assert.match(page, /could not be mailed/);
              const path = /http:\/\/127\.0\.0\.1:\d+(\/portal\/set-password\?token=[\w-]+)/.exec(
                page,
              )?.[1];
              assert.ok(path !== undefined, 'the page shows the one-time link');
              assert.equal(
                (await fetch(portal.baseUrl + path, { redirect: 'manual' })).status,
                200,
              );

              const token = /token=([\w-]+)/.exec(path)?.[1] ?? '';
              const failures = log.filter((line) =>
                line.includes('set-password link could not be mailed'),
              );
              assert.equal(failures.length, 1, log.join(''));
              assert.equal(JSON.parse(failures[0] ?? '{}').level, 50);
              assert.ok(!log.some((line) => line.includes(token)), 'the log never holds the link');
            },
          );

          test(
            '"Forgot your password?" answers a known address as an unknown one',
            bound,
            async () => {
              const known = await forgotPassword(portal.baseUrl, emailFor('Support'));
              const unknown = await forgotPassword(portal.baseUrl, 'nobody@main.portal.test');
              assert.equal(known.status, 200);
              assert.equal(unknown.status, 200);
              const knownText = await known.text();
              assert.match(knownText, /If an account has this email address/);
              const strip = (html: string) => html.replace(/name="_csrf" value="[^"]*"/g, '');
              assert.equal(strip(knownText), strip(await unknown.text()));
              const failures = log.filter((line) =>
                line.includes('forgot-password link could not be mailed'),
              );
              assert.equal(failures.length, 1, log.join(''));
            },
          );
        },
      );
    }
  },
);
