import { appendFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// A real callback receiver for tests and benchmarks. It records every request (headers and the
// raw body bytes, arrival and response times) and answers as it is told per path: a sequence of
// statuses, always one status, a delay, a Retry-After, a redirect. Use it in-process
// (startReceiver) or as a child process:
//   tsx test/receiver.ts [--host 127.0.0.1] [--port 0] [--log file.jsonl] [--tls-key k --tls-cert c]
// which prints "listening <url>" and serves POST /_receiver/behaviour?path=/x (body: a Behaviour)
// and GET /_receiver/received for remote control.

export interface Behaviour {
  /** Statuses for the next requests, in order; then `status`. */
  statuses?: number[];
  /** Status once `statuses` is used up (default 200). */
  status?: number;
  delayMs?: number;
  retryAfter?: string;
  /** Answer 302 with this Location. */
  redirectTo?: string;
  body?: string;
}

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly receivedAt: number;
  respondedAt: number;
  status: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  behave(path: string, behaviour: Behaviour): void;
  /**
   * Holds every answer until the returned function is called, so a test decides when a
   * delivery under way finishes instead of betting on a delay.
   */
  hold(): () => void;
  /** Requests to one path (e.g. '/v3'). */
  at(path: string): Received[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  host?: string;
  port?: number;
  logFile?: string;
  tls?: { key: string | Buffer; cert: string | Buffer };
  behaviours?: Record<string, Behaviour>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const received: Received[] = [];
  const behaviours = new Map<string, Behaviour>(Object.entries(options.behaviours ?? {}));
  let held: Promise<void> | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (url.pathname === '/_receiver/behaviour' && req.method === 'POST') {
      behaviours.set(
        url.searchParams.get('path') ?? '/',
        JSON.parse(raw.toString('utf8')) as Behaviour,
      );
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === '/_receiver/received' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
      return;
    }
    const entry: Received = {
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      rawBody: raw.toString('utf8'),
      receivedAt: Date.now(),
      respondedAt: 0,
      status: 0,
    };
    received.push(entry);
    const b = behaviours.get(url.pathname) ?? behaviours.get('*') ?? {};
    const status = b.redirectTo !== undefined ? 302 : (b.statuses?.shift() ?? b.status ?? 200);
    if (b.delayMs !== undefined && b.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, b.delayMs));
    }
    if (held !== undefined) await held;
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (b.retryAfter !== undefined) headers['retry-after'] = b.retryAfter;
    if (b.redirectTo !== undefined) headers['location'] = b.redirectTo;
    entry.status = status;
    entry.respondedAt = Date.now();
    if (options.logFile !== undefined)
      appendFileSync(options.logFile, JSON.stringify(entry) + '\n');
    res.writeHead(status, headers).end(b.body ?? (status < 300 ? 'ok' : `status ${status}`));
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => res.writeHead(500).end());
  };
  const server =
    options.tls === undefined
      ? http.createServer(listener)
      : https.createServer(options.tls, listener);
  server.keepAliveTimeout = 30_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls === undefined ? 'http' : 'https';
  return {
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    behave: (path, behaviour) => behaviours.set(path, behaviour),
    hold() {
      let release: () => void = () => undefined;
      held = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    at: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      log: { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-cert': { type: 'string' },
    },
  });
  const { readFileSync } = await import('node:fs');
  const tls =
    values['tls-key'] !== undefined && values['tls-cert'] !== undefined
      ? { key: readFileSync(values['tls-key']), cert: readFileSync(values['tls-cert']) }
      : undefined;
  const receiver = await startReceiver({
    host: values.host,
    port: values.port === undefined ? 0 : Number(values.port),
    logFile: values.log,
    tls,
  });
  process.stdout.write(`listening ${receiver.url}\n`);
  const stop = (): void => void receiver.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
