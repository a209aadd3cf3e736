import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { consoleLog } from '../../src/http/console-log.js';
import { startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// On a terminal (LOG_FORMAT=auto), or with LOG_FORMAT=pretty, the log is one readable line per
// request; anywhere else, or with LOG_FORMAT=json, it stays JSON.

describe('the console log', () => {
  let t: TestApp;
  let org: TestOrg;
  let app: FastifyInstance;
  const lines: string[] = [];

  before(async () => {
    t = await startTestApp('sqlite');
    org = await t.createOrg();
    const terminal = { isTTY: true, write: (line: string) => void lines.push(line) };
    const stream = consoleLog('auto', terminal);
    assert.ok(stream !== undefined);
    app = await buildApp(t.deps, { logLevel: 'info', logStream: stream });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  it('writes one line per request with method, redacted URL, status and duration', async () => {
    await app.inject({ url: '/v2.1/organisation', headers: { 'x-api-key': org.apiKey } });
    await app.inject({ url: `/v2.1/organisation?api_key=${encodeURIComponent(org.apiKey)}` });
    await app.inject({
      method: 'POST',
      url: '/v2.1/nowhere',
      payload: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(lines.length, 3, lines.join(''));
    assert.match(lines[0] ?? '', /^\d\d:\d\d:\d\d GET \/v2\.1\/organisation 200 \d+ ms\n$/);
    assert.match(
      lines[1] ?? '',
      /^\d\d:\d\d:\d\d GET \/v2\.1\/organisation\?api_key=\[REDACTED\] 200 \d+ ms\n$/,
    );
    assert.match(lines[2] ?? '', / POST \/v2\.1\/nowhere 404 \d+ ms\n$/);
    assert.ok(!lines.join('').includes(org.apiKey.slice(5)), 'never the key');
  });

  it('is pretty by the setting off a terminal too, and JSON off a terminal or by the setting', () => {
    const write = (): void => undefined;
    assert.notEqual(consoleLog('pretty', { isTTY: false, write }), undefined);
    assert.notEqual(consoleLog('pretty', { write }), undefined);
    assert.equal(consoleLog('auto', { isTTY: false, write }), undefined);
    assert.equal(consoleLog('auto', { write }), undefined);
    assert.equal(consoleLog('json', { isTTY: true, write }), undefined);
  });
});
