import http from 'node:http';
import type * as HttpsModule from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { AddressGuard, Resolver } from './address-guard.js';
import { AddressRefusedError, guardedLookup, hostOf } from './address-guard.js';

// POSTs one callback. node:http never follows redirects, so a 3xx is simply a failed attempt.
// Keep-alive agents reuse connections to busy receivers; every new connection goes through the
// guard (production mode) via the lookup hook, and IP-literal hosts (which skip lookup) are
// checked here before the request is made.

export interface OutgoingCallback {
  readonly url: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface SendOutcome {
  /** HTTP status, or null when no response arrived. */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** The first bytes of the response body, for the attempt record. */
  readonly responseSnippet: string | null;
  readonly retryAfter: string | undefined;
}

export interface CallbackTransport {
  send(request: OutgoingCallback): Promise<SendOutcome>;
  close(): void;
}

export interface HttpSenderOptions {
  readonly connectTimeoutMs: number;
  readonly timeoutMs: number;
  /** Set in production mode: https only, and every address checked at connect time. */
  readonly guard?: AddressGuard;
  readonly requireHttps?: boolean;
  readonly resolver?: Resolver;
  readonly maxSockets?: number;
  /** Extra trusted CA certificates (PEM), e.g. a private receiver's CA. */
  readonly ca?: string | Buffer;
}

export const SNIPPET_BYTES = 512;
/** Response bytes read before the connection is dropped rather than drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}

/** Where to send, or why nothing may be sent there (the refusal, as the attempt records it). */
function destination(
  raw: string,
  options: Pick<HttpSenderOptions, 'requireHttps' | 'guard'>,
): { url: URL; secure: boolean } | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `callback URL "${raw}" is not valid`;
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return 'callback URL must be http or https';
  if (!secure && options.requireHttps === true) {
    return 'callback URL must be https in production mode; nothing was sent';
  }
  const host = hostOf(url);
  if (options.guard !== undefined && isIP(host) !== 0) {
    const why = options.guard.refusal(host);
    if (why !== undefined) return `refused to connect: ${why}`;
  }
  return { url, secure };
}

/** Reads the receiver's answer: its status, Retry-After and the start of its body. */
function readResponse(
  res: http.IncomingMessage,
  elapsed: () => number,
  finish: (outcome: SendOutcome) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = (): void => {
    const location = res.headers.location;
    const status = res.statusCode ?? 0;
    finish({
      statusCode: status,
      latencyMs: elapsed(),
      error:
        status >= 300 && status < 400 && location !== undefined
          ? `redirect to ${location} not followed`
          : null,
      responseSnippet:
        size === 0 ? null : Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'),
      retryAfter: res.headers['retry-after'],
    });
  };
  res.on('data', (chunk: Buffer) => {
    if (size < SNIPPET_BYTES) chunks.push(chunk);
    size += chunk.length;
    // A receiver streaming a large body is not worth draining: drop the connection.
    if (size > MAX_RESPONSE_BYTES) {
      complete();
      res.destroy();
    }
  });
  res.on('end', complete);
}

/** The HTTP or HTTPS module and the keep-alive agent of its connections. */
interface Transport {
  readonly module: typeof http | typeof HttpsModule;
  readonly agent: http.Agent;
}

export function createHttpSender(options: HttpSenderOptions): CallbackTransport {
  const lookup =
    options.guard === undefined ? undefined : guardedLookup(options.guard, options.resolver);
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 64,
    scheduling: 'lifo' as const,
  };
  const httpAgent = new http.Agent(agentOptions);
  const plain: Transport = { module: http, agent: httpAgent };
  // HTTPS (and TLS with it) is loaded by the first callback to an https URL, not by a start.
  let secureTransport: Transport | undefined;
  const secureOne = (): Transport => {
    if (secureTransport === undefined) {
      const https = process.getBuiltinModule('node:https');
      secureTransport = {
        module: https,
        agent: new https.Agent({ ...agentOptions, ca: options.ca }),
      };
    }
    return secureTransport;
  };

  function send(request: OutgoingCallback): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const failed = (error: string): SendOutcome => ({
      statusCode: null,
      latencyMs: elapsed(),
      error,
      responseSnippet: null,
      retryAfter: undefined,
    });
    const checked = destination(request.url, options);
    if (typeof checked === 'string') return Promise.resolve(failed(checked));
    const { url, secure } = checked;

    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      // Runs long after req and finish below are set (request creation failing clears it).
      const totalTimer = setTimeout(() => {
        finish(failed(`no complete response within ${options.timeoutMs} ms`));
        req.destroy();
      }, options.timeoutMs);
      const finish = (outcome: SendOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(totalTimer);
        resolve(outcome);
      };
      let req: http.ClientRequest;
      try {
        const transport = secure ? secureOne() : plain;
        req = transport.module.request(url, {
          method: 'POST',
          agent: transport.agent,
          lookup,
          headers: { ...request.headers, 'content-length': String(request.body.length) },
        });
      } catch (error) {
        finish(failed(describe(error)));
        return;
      }
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => {
          finish(failed(`could not connect within ${options.connectTimeoutMs} ms`));
          req.destroy();
        }, options.connectTimeoutMs);
        const clear = (): void => clearTimeout(connectTimer);
        socket.once('connect', clear);
        socket.once('close', clear);
      });
      req.on('error', (error) => {
        finish(failed(error instanceof AddressRefusedError ? error.message : describe(error)));
      });
      req.on('response', (res) => {
        readResponse(res, elapsed, finish);
        res.on('error', (error) => finish(failed(describe(error))));
      });
      req.end(request.body);
    });
  }

  return {
    send,
    close() {
      httpAgent.destroy();
      secureTransport?.agent.destroy();
    },
  };
}
