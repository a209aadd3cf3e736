import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { main } from '../../src/cli/main.js';
import { DATABASES } from '../databases.js';
import { appFor, cliDatabase, esim } from './helpers.js';
import type { CliResult, Env } from './helpers.js';

// How people get into the portal from the command line: `esim user add` prints a one-time
// set-password link or reads the password from standard input, and `esim mail list` shows the
// mail the portal sent in simulator mode.

async function esimWithStdin(env: Env, stdin: string, ...argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
    readStdin: async () => stdin,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function cookieOf(headers: Record<string, unknown>, name: string): string {
  const lines = headers['set-cookie'];
  const list = Array.isArray(lines) ? (lines as string[]) : [String(lines)];
  const line = list.find((l) => l.startsWith(`${name}=`)) ?? '';
  return line.split(';')[0] ?? '';
}

/** Posts a public portal form (sign-in, forgot password) with its CSRF cookie and token. */
async function postForm(app: FastifyInstance, path: string, fields: Record<string, string>) {
  const form = await app.inject({ method: 'GET', url: '/portal/sign-in' });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      cookie: cookieOf(form.headers, 'esim_csrf'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
}

for (const kind of DATABASES) {
  describe(`esim user add and esim mail list [${kind}]`, () => {
    let env: Env;
    let dispose: () => Promise<void>;
    let orgId: string;
    const add = (email: string, ...extra: string[]) => [
      'user',
      'add',
      orgId,
      '--email',
      email,
      '--first-name',
      'Grace',
      '--last-name',
      'Hopper',
      '--role',
      'Developer',
      ...extra,
    ];

    before(async () => {
      ({ env, dispose } = await cliDatabase(kind));
      const created = await esim(env, 'org', 'create', '--name', 'Portal CLI Org', '--json');
      orgId = (JSON.parse(created.out) as { id: string }).id;
    });
    after(() => dispose());

    it('prints a one-time set-password link that the portal opens', async () => {
      const res = await esim(env, ...add('grace@cli.example'));
      assert.equal(res.code, 0, res.err);
      const path =
        /set-password link \(works once, for 24 hours\): http:\/\/127\.0\.0\.1:8080(\S+)/.exec(
          res.out,
        )?.[1];
      assert.ok(path !== undefined, res.out);
      const { app, close } = await appFor(env);
      try {
        const page = await app.inject({ method: 'GET', url: path });
        assert.equal(page.statusCode, 200);
        assert.match(page.body, /Choose a password for grace@cli\.example/);
      } finally {
        await close();
      }
    });

    it('--password-stdin sets the password, and the user signs in with it', async () => {
      const res = await esimWithStdin(
        env,
        'a scripted password\n',
        ...add('ops@cli.example', '--password-stdin', '--json'),
      );
      assert.equal(res.code, 0, res.err);
      const out = JSON.parse(res.out) as { email: string; setPasswordUrl?: string };
      assert.equal(out.email, 'ops@cli.example');
      assert.equal(out.setPasswordUrl, undefined);
      const { app, close } = await appFor(env);
      try {
        const signedIn = await postForm(app, '/portal/sign-in', {
          email: 'ops@cli.example',
          password: 'a scripted password',
        });
        assert.equal(signedIn.statusCode, 303);
        assert.match(cookieOf(signedIn.headers, 'esim_session'), /^esim_session=.+/);
      } finally {
        await close();
      }
    });

    it('--password-stdin refuses a short or missing password and adds nobody', async () => {
      const short = await esimWithStdin(
        env,
        'short\n',
        ...add('short@cli.example', '--password-stdin'),
      );
      assert.notEqual(short.code, 0);
      assert.match(short.err, /password must be at least 12 characters/);
      const empty = await esimWithStdin(env, '', ...add('empty@cli.example', '--password-stdin'));
      assert.equal(empty.code, 2);
      assert.match(empty.err, /read no password/);
      const listed = await esim(env, 'org', 'show', orgId, '--json');
      assert.doesNotMatch(listed.out, /short@cli\.example|empty@cli\.example/);
    });

    it('forgot password mails a link that esim mail list prints', async () => {
      const { app, close } = await appFor(env);
      try {
        const asked = await postForm(app, '/portal/forgot-password', {
          email: 'grace@cli.example',
        });
        assert.equal(asked.statusCode, 200);
        const unknown = await postForm(app, '/portal/forgot-password', {
          email: 'nobody@cli.example',
        });
        assert.equal(
          unknown.body.replace(/value="[^"]+"/g, ''),
          asked.body.replace(/value="[^"]+"/g, ''),
        );
      } finally {
        await close();
      }
      const listed = await esim(env, 'mail', 'list', '--to', 'grace@cli.example');
      assert.equal(listed.code, 0, listed.err);
      assert.match(listed.out, /to grace@cli\.example\nSubject: Set your eSIM portal password/);
      assert.match(listed.out, /\/portal\/set-password\?token=[\w-]+/);
      const none = await esim(env, 'mail', 'list', '--to', 'nobody@cli.example', '--json');
      assert.deepEqual(JSON.parse(none.out), []);
    });

    it('prints and mails links on the address the server listens on, never localhost', async () => {
      // No server runs: the links start where HOST and PORT would have it listen.
      const listening = { ...env, HOST: '0.0.0.0', PORT: '9123' };
      const added = await esim(listening, ...add('links@cli.example'));
      assert.equal(added.code, 0, added.err);
      const printed = /: (http:\/\/[^/\s]+)\/portal\/set-password\?token=[\w-]+$/m.exec(added.out);
      assert.equal(printed?.[1], 'http://127.0.0.1:9123', added.out);
      const { app, close } = await appFor(listening);
      try {
        const asked = await postForm(app, '/portal/forgot-password', {
          email: 'links@cli.example',
        });
        assert.equal(asked.statusCode, 200);
      } finally {
        await close();
      }
      const listed = await esim(env, 'mail', 'list', '--to', 'links@cli.example');
      const mailed = /(http:\/\/[^/\s]+)\/portal\/set-password\?token=[\w-]+/.exec(listed.out);
      assert.equal(mailed?.[1], 'http://127.0.0.1:9123', listed.out);
    });

    it('esim user list, role and remove: a removed user’s session ends; the last Admin stays', async () => {
      const listed = await esim(env, 'user', 'list', orgId, '--json');
      assert.equal(listed.code, 0, listed.err);
      const users = JSON.parse(listed.out) as { id: string; email: string; role: string }[];
      const ops = users.find((u) => u.email === 'ops@cli.example');
      assert.equal(ops?.role, 'Developer');
      const text = await esim(env, 'user', 'list', orgId);
      assert.match(text.out, /Developer\s+grace@cli\.example\s+Grace Hopper/);

      const promoted = await esim(env, 'user', 'role', orgId, 'OPS@cli.example', 'Admin');
      assert.equal(promoted.code, 0, promoted.err);
      assert.match(promoted.out, /ops@cli\.example\) is now Admin/);
      const badRole = await esim(env, 'user', 'role', orgId, 'ops@cli.example', 'Owner');
      assert.equal(badRole.code, 1);
      assert.match(badRole.err, /role must be one of Admin, Finance, Developer, Support, Viewer/);

      // The only Admin can be neither demoted nor removed.
      const demote = await esim(env, 'user', 'role', orgId, 'ops@cli.example', 'Viewer');
      assert.equal(demote.code, 1);
      assert.match(demote.err, /the last Admin of the organisation cannot be given another role/);
      const lastAdmin = await esim(env, 'user', 'remove', orgId, ops?.id ?? '');
      assert.equal(lastAdmin.code, 1);
      assert.match(lastAdmin.err, /the last Admin of the organisation cannot be removed/);

      const { app, close } = await appFor(env);
      try {
        const opsIn = await postForm(app, '/portal/sign-in', {
          email: 'ops@cli.example',
          password: 'a scripted password',
        });
        const session = cookieOf(opsIn.headers, 'esim_session');
        const before = await app.inject({
          method: 'GET',
          url: '/portal',
          headers: { cookie: session },
        });
        assert.equal(before.statusCode, 200);
        const promotedGrace = await esim(env, 'user', 'role', orgId, 'grace@cli.example', 'Admin');
        assert.equal(promotedGrace.code, 0, promotedGrace.err);
        const removed = await esim(env, 'user', 'remove', orgId, 'ops@cli.example');
        assert.equal(removed.code, 0, removed.err);
        assert.match(removed.out, /removed user \S+ \(ops@cli\.example\)/);
        const afterRemoval = await app.inject({
          method: 'GET',
          url: '/portal',
          headers: { cookie: session },
        });
        assert.equal(afterRemoval.statusCode, 303, 'the removed user’s session no longer works');
      } finally {
        await close();
      }
      const again = await esim(env, 'user', 'remove', orgId, 'ops@cli.example');
      assert.equal(again.code, 1);
      assert.match(again.err, /has no user ops@cli\.example/);
      const audit = await esim(env, 'audit', 'list', '--org', orgId, '--json');
      assert.match(audit.out, /user\.removed/);
      assert.match(audit.out, /user\.role_changed/);
      const usage = await esim(env, 'user', 'remove', orgId);
      assert.equal(usage.code, 2);
    });
  });
}
