import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// Answers written before routing, or outside the portal's page scope, have the same shape and
// headers as every other: {"message", "code"} for a URL too large or a byte the HTTP parser
// refuses, and the portal's security headers on its not-found page and on a URL that does not
// decode.

/** Sends raw bytes on a socket and returns everything the server answers until it closes. */
function raw(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(request);
  });
}

function parse(answer: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(head.split(' ')[1]),
    headers: head.toLowerCase(),
    body: JSON.parse(body),
  };
}

describe('answers before routing', () => {
  let t: TestApp;
  let base: string;
  let port: number;
  before(async () => {
    t = await startTestApp('sqlite');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(base).port);
  });
  after(() => t.close());

  it('a 20 KB URL gets 431 {"message", "code"}', async () => {
    const url = `/v2.1/organisation?x=${'a'.repeat(20_000)}`;
    const answer = parse(
      await raw(port, Buffer.from(`GET ${url} HTTP/1.1\r\nHost: localhost\r\n\r\n`)),
    );
    assert.equal(answer.status, 431);
    assert.deepEqual(answer.body, {
      message: 'the request line and headers are too large (the URL included)',
      code: 'headers_too_large',
    });
    assert.match(answer.headers, /x-content-type-options: nosniff/);
  });

  it('a raw 0xFF byte in the path gets 400 {"message", "code"}', async () => {
    const request = Buffer.concat([
      Buffer.from('GET /portal/esims/'),
      Buffer.from([0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    ]);
    const answer = parse(await raw(port, request));
    assert.equal(answer.status, 400);
    assert.equal((answer.body as { code: string }).code, 'bad_request');
    assert.match((answer.body as { message: string }).message, /could not be parsed/);
  });

  for (const path of ['/portal/does-not-exist', '/portal/esims/%ff', '/v2.1/esims/%ff']) {
    it(`${path} carries the security headers`, async () => {
      const res = await fetch(base + path, { redirect: 'manual' });
      await res.arrayBuffer();
      assert.ok(res.status === 404 || res.status === 400 || res.status === 303, String(res.status));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    });
  }
});
