import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { eventually, startTestApp } from '../harness.js';

// During shutdown, requests already in flight finish, and anything new on a live connection is
// told to go elsewhere with 503 {message} and Retry-After, with the CORS headers of any answer.

describe('shutdown', () => {
  it('finishes the request in flight and answers the next one 503 with Retry-After', async () => {
    const t = await startTestApp('sqlite');
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));

      // A request whose body has not fully arrived keeps the connection busy through close().
      const started = once(t.app.server, 'request');
      socket.write(
        'POST /v2.1/nothing HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a"',
      );
      await started;
      const closing = t.app.close();
      await eventually(async () => (t.app.server.listening ? undefined : true), 5000, 'drain');
      socket.write(':1}GET /readyz HTTP/1.1\r\nHost: test\r\n\r\n');
      await closing;
      await eventually(async () => (received.includes('shutting down') ? true : undefined));
      socket.destroy();

      const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
      assert.match(first ?? '', /^HTTP\/1\.1 404 /, 'the request in flight completes normally');
      assert.match(second ?? '', /^HTTP\/1\.1 503 /);
      assert.match(second ?? '', /\r\nretry-after: 5\r\n/i);
      assert.match(second ?? '', /\r\nx-request-id: /i);
      // A browser's script can read it too (CORS_ORIGINS, simulator default `*`).
      assert.match(second ?? '', /\r\naccess-control-allow-origin: \*\r\n/i);
      const body = JSON.parse((second ?? '').split('\r\n\r\n')[1] ?? '') as { message: string };
      assert.match(body.message, /shutting down/);
    } finally {
      await t.app.close();
      await t.deps.store.close().catch(() => undefined);
    }
  });
});
