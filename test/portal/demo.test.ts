import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { announceDemo } from '../../src/demo.js';
import { openServices } from '../../src/main.js';
import { cookiesOf, csrfIn } from './portal-harness.js';

// Simulator mode's first start prints the demo organisation's admin sign-in for the portal; a
// later start says where the portal is without printing a password again.

async function signInStatus(base: string, email: string, password: string): Promise<number> {
  const form = await fetch(`${base}/portal/sign-in`);
  const response = await fetch(`${base}/portal/sign-in`, {
    method: 'POST',
    headers: {
      cookie: `esim_csrf=${cookiesOf(form)['esim_csrf'] ?? ''}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ _csrf: csrfIn(await form.text()), email, password }).toString(),
    redirect: 'manual',
  });
  return response.status;
}

test('the first start prints the demo admin email and password, which sign in; later starts do not', async () => {
  const services = await openServices(testConfig());
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    const first: string[] = [];
    await announceDemo(services.deps, base, (line) => first.push(line));
    const line = first.find((l) => l.startsWith('Portal:')) ?? '';
    const match = /^Portal: {2}(\S+)\/portal {2}\(email (\S+), password (\S+)\)$/.exec(line);
    assert.ok(match !== null, first.join('\n'));
    assert.equal(match[1], base);
    assert.equal(await signInStatus(base, match[2] ?? '', match[3] ?? ''), 303);
    assert.equal(await signInStatus(base, match[2] ?? '', 'not the password'), 401);
    // docs/portal.md shows the line as a start on the default address prints it.
    const guide = readFileSync(new URL('../../docs/portal.md', import.meta.url), 'utf8');
    const shown = guide.split('\n').find((l) => l.startsWith('Portal:')) ?? '';
    const anyPassword = (l: string) => l.replace(/password \S+\)$/, 'password …)');
    assert.equal(anyPassword(shown), anyPassword(line.replace(base, 'http://127.0.0.1:8080')));
    const later: string[] = [];
    await announceDemo(services.deps, base, (l) => later.push(l));
    assert.match(later.join('\n'), /Portal: \S+\/portal \(admin@demo\.example;/);
    assert.doesNotMatch(later.join('\n'), /password [\w-]{16}\)/);
  } finally {
    await app.close();
    await services.close();
  }
});
