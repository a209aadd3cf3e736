import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { redactUrl } from '../../src/http/auth.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Access logs must never carry an API key: not the X-API-Key header, not the api_key query value
// in any spelling. The app's real logger is captured at info level.

interface RequestLine {
  msg?: string;
  time?: unknown;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

for (const kind of DATABASES) {
  describe(`access logs [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let app: FastifyInstance;
    const lines: string[] = [];

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg();
      app = await buildApp(t.deps, {
        logLevel: 'info',
        logStream: { write: (line) => void lines.push(line) },
      });
      await app.ready();
    });
    after(async () => {
      await app.close();
      await t.close();
    });

    it('logs every request with its redacted URL and request id, and never the key', async () => {
      const key = encodeURIComponent(org.apiKey);
      const requests: { url: string; headers?: Record<string, string>; method?: 'GET' | 'POST' }[] =
        [
          { url: '/v2.1/organisation', headers: { 'x-api-key': org.apiKey } },
          { url: `/v2.1/organisation?api_key=${key}`, headers: { 'x-request-id': 'trace-1' } },
          { url: `/v2.1/organisation?foo=1&API_KEY=${key}&bar=2` },
          { url: `/v2.1/organisation?api%5Fkey=${key}` },
          { url: `/v2.1/organisation?api_key[]=${key}` },
          { url: `/v2.1/organisation?api_key=${key}`, method: 'POST' },
          { url: `/v2.1/unknown?api_key=${key}` },
          { url: '/v2.1/organisation', headers: { 'x-api-key': `${org.apiKey}-wrong` } },
        ];
      for (const r of requests) {
        await app.inject({ method: r.method ?? 'GET', url: r.url, headers: r.headers ?? {} });
      }
      const log = lines.join('');
      // One line per request, when it is answered, with the method, URL, status and time taken.
      const answered = lines
        .map((line) => JSON.parse(line) as RequestLine)
        .filter((e) => e.msg === 'request completed');
      assert.equal(answered.length, requests.length, log);
      assert.ok(!lines.some((l) => l.includes('incoming request')), 'no second line per request');
      for (const [i, e] of answered.entries()) {
        assert.equal(e.req?.method, requests[i]?.method ?? 'GET');
        assert.equal(e.req?.url?.split('?')[0], requests[i]?.url.split('?')[0]);
        assert.equal(typeof e.res?.statusCode, 'number');
        assert.equal(typeof e.responseTime, 'number');
        assert.match(String(e.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'a readable time');
      }
      assert.deepEqual(
        answered.map((e) => e.res?.statusCode),
        [200, 200, 403, 200, 403, 404, 404, 403],
      );
      const secret = org.apiKey.slice('esim_'.length);
      assert.equal(log.includes(secret), false, 'the key never appears');
      assert.equal(log.includes(encodeURIComponent(secret)), false);
      assert.ok(
        log.includes('/v2.1/organisation?api_key=[REDACTED]'),
        'the redacted URL is logged',
      );
      assert.ok(log.includes('?foo=1&API_KEY=[REDACTED]&bar=2'));
      assert.ok(log.includes('"reqId":"trace-1"'), 'lines carry the request id');
      for (const line of lines) {
        const entry = JSON.parse(line) as { req?: Record<string, unknown> };
        if (entry.req !== undefined) {
          assert.deepEqual(Object.keys(entry.req).sort(), ['method', 'remoteAddress', 'url']);
        }
      }
    });
  });
}

describe('request log lines below and above the level', () => {
  let t: TestApp;
  let app: FastifyInstance;
  const lines: string[] = [];

  before(async () => {
    t = await startTestApp('sqlite');
    app = await buildApp(t.deps, {
      logLevel: 'warn',
      logStream: { write: (line) => void lines.push(line) },
    });
    // A route of this test only, logging at every level through the request's logger.
    app.get('/log-levels', async (request) => {
      request.log.debug({ step: 'debug' }, 'not at warn');
      request.log.info({ step: 'info' }, 'not at warn');
      request.log.warn({ step: 'warn' }, 'logged');
      request.log.child({ part: 'inner' }).error('from a child');
      return { level: request.log.level };
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  it('logs what the level enables, with the request id, and nothing else', async () => {
    const res = await app.inject({ url: '/log-levels', headers: { 'x-request-id': 'levels-1' } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { level: 'warn' });
    const entries = lines.map(
      (line) => JSON.parse(line) as { reqId?: string; msg?: string; step?: string; part?: string },
    );
    assert.deepEqual(
      entries.map((e) => [e.reqId, e.msg, e.step, e.part]),
      [
        ['levels-1', 'logged', 'warn', undefined],
        ['levels-1', 'from a child', undefined, 'inner'],
      ],
    );
  });
});

describe('redactUrl', () => {
  it('replaces every api_key value and keeps the rest of the URL', () => {
    assert.equal(redactUrl('/a'), '/a');
    assert.equal(redactUrl('/a?x=1'), '/a?x=1');
    assert.equal(redactUrl('/a?api_key=s&x=1'), '/a?api_key=[REDACTED]&x=1');
    assert.equal(redactUrl('/a?x=1&Api_Key=s'), '/a?x=1&Api_Key=[REDACTED]');
    assert.equal(redactUrl('/a?api%5fkey=s'), '/a?api%5fkey=[REDACTED]');
    assert.equal(redactUrl('/a?api_key'), '/a?api_key=[REDACTED]');
    assert.equal(redactUrl('/a?api_key=s&api_key=t'), '/a?api_key=[REDACTED]&api_key=[REDACTED]');
    assert.equal(redactUrl('/a?%zz=1'), '/a?%zz=1');
  });
});
