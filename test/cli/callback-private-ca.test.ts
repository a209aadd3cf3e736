import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { eventually } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { cookiesOf, csrfIn } from '../portal/portal-harness.js';
import { esim, scratchDir, spawnEsim } from './helpers.js';
import type { Spawned } from './helpers.js';

// A production server delivers to an https receiver on the internal network whose certificate a
// private CA signed, once that CA is given to Node.js with NODE_EXTRA_CA_CERTS and the address is
// opened with CALLBACK_ALLOW_CIDRS (docs/operations.md, production checklist). The receiver's
// certificate (test/fixtures/tls, for 127.0.0.1) is self-signed: it is its own CA.

const certPath = fileURLToPath(new URL('../fixtures/tls/receiver-cert.pem', import.meta.url));
const tls = {
  key: readFileSync(new URL('../fixtures/tls/receiver-key.pem', import.meta.url)),
  cert: readFileSync(certPath),
};
const PASSWORD = 'private ca password 1234';

describe('callbacks to a receiver with a private CA (production mode)', () => {
  const dir = scratchDir();
  let receiver: Receiver | undefined;
  let server: Spawned | undefined;
  after(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await receiver?.close();
    dir.remove();
  });

  it('delivers a portal test event over https with NODE_EXTRA_CA_CERTS', async () => {
    receiver = await startReceiver({ host: '127.0.0.1', tls });
    const env = {
      MODE: 'production',
      MASTER_KEY: 'cd'.repeat(32),
      DATA_DIR: dir.path,
      DATABASE_URL: `sqlite:${join(dir.path, 'esim.sqlite')}`,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      PORTAL_COOKIE_SECURE: 'off',
      CALLBACK_ALLOW_CIDRS: '127.0.0.1/32',
      NODE_EXTRA_CA_CERTS: certPath,
    };
    const created = await esim(
      env,
      'org',
      'create',
      '--name',
      'Internal Receiver',
      '--callback-url',
      `${receiver.url}/hook`,
      '--callback-version',
      'V3',
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const orgId = (JSON.parse(created.out) as { id: string }).id;
    const err: string[] = [];
    const added = await main(
      [
        'user',
        'add',
        orgId,
        '--email',
        'dev@internal.test',
        '--first-name',
        'Dev',
        '--last-name',
        'Ops',
        '--role',
        'Admin',
        '--password-stdin',
      ],
      env,
      {
        out: () => undefined,
        err: (line) => void err.push(line),
        readStdin: () => Promise.resolve(`${PASSWORD}\n`),
      },
    );
    assert.equal(added, 0, err.join('\n'));

    const running = spawnEsim(env, 'serve');
    server = running;
    const url = await eventually(
      async () => {
        if (running.child.exitCode !== null) throw new Error(`exited: ${running.stderr()}`);
        return /listening on (http:\/\/\S+)/.exec(running.stdout())?.[1];
      },
      60_000,
      'the server to listen',
    );

    const form = await fetch(`${url}/portal/sign-in`, { redirect: 'manual' });
    const signedIn = await fetch(`${url}/portal/sign-in`, {
      method: 'POST',
      headers: {
        cookie: `esim_csrf=${cookiesOf(form)['esim_csrf'] ?? ''}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        _csrf: csrfIn(await form.text()),
        email: 'dev@internal.test',
        password: PASSWORD,
      }).toString(),
      redirect: 'manual',
    });
    assert.equal(signedIn.status, 303);
    const cookie = `esim_session=${cookiesOf(signedIn)['esim_session'] ?? ''}`;
    const api = await fetch(`${url}/portal/api`, { headers: { cookie } });
    const sent = await fetch(`${url}/portal/api/test-event`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfIn(await api.text()) }).toString(),
      redirect: 'manual',
    });
    assert.equal(sent.status, 303);

    const [delivery] = await eventually(
      async () => (receiver?.at('/hook').length === 1 ? receiver.at('/hook') : undefined),
      60_000,
      'the test event at the receiver',
    );
    assert.equal(delivery?.method, 'POST');
    assert.equal(JSON.parse(delivery?.rawBody ?? '{}').alertType, 'FirstAttachment');
    assert.ok(delivery?.headers['x-signature-sha256'] !== undefined, 'a V3 event, signed');
  });
});
