import { threadEntry } from '../thread-entry.js';
import { Worker } from 'node:worker_threads';
import type {
  CallbackTransport,
  HttpSenderOptions,
  OutgoingCallback,
  SendOutcome,
} from './http-sender.js';
import { createHttpSender } from './http-sender.js';
import { AddressGuard } from './address-guard.js';
import type { SenderThreadSettings, ThreadAnswer, ThreadRequest } from './sender-thread-worker.js';

// Callback requests made on a thread of their own (sender-thread-worker.ts). An HTTP request
// costs the event loop that makes it more than claiming and recording its delivery: the client's
// request and response handling, the socket's reads and writes. On the service's event loop that
// work competed with ingestion (the network's events, the API). Here the delivery worker stays
// where it was, on the service's loop with its rows, and only hands each request to the thread
// and takes its outcome back, the requests of one turn of the loop in one message each way.
// Should the thread fail, the requests it had are answered as failed attempts (the retry
// schedule sends them again) and later requests are made on the service's thread again.

export type SenderThreadOptions = Omit<HttpSenderOptions, 'guard' | 'resolver'> & {
  /** Production mode: the guard's allowed ranges (the thread builds the guard itself). */
  readonly guardAllowCidrs?: readonly string[];
};

const failed = (error: string): SendOutcome => ({
  statusCode: null,
  latencyMs: 0,
  error,
  responseSnippet: null,
  retryAfter: undefined,
});

/** A transport whose requests are made on a worker thread (the system resolver's DNS answers). */
export function createThreadSender(options: SenderThreadOptions): CallbackTransport {
  const settings: SenderThreadSettings = {
    connectTimeoutMs: options.connectTimeoutMs,
    timeoutMs: options.timeoutMs,
    requireHttps: options.requireHttps ?? false,
    maxSockets: options.maxSockets ?? 64,
    ...(options.guardAllowCidrs === undefined ? {} : { guardAllowCidrs: options.guardAllowCidrs }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  const entry = threadEntry(import.meta.url, 'callback-sender-worker.cjs', 'sender-thread-worker');
  const thread = new Worker(entry.code, { eval: entry.eval, workerData: settings });
  // Never what keeps the process alive: close() ends it, and it has work only while sends wait.
  thread.unref();
  const waiting = new Map<number, (outcome: SendOutcome) => void>();
  let nextId = 0;
  let outbox: ThreadRequest[] = [];
  /** Set once the thread has failed: requests are made on this thread again. */
  let fallback: CallbackTransport | undefined;
  let closed = false;

  const lost = (why: string): void => {
    if (fallback !== undefined || closed) return;
    const { guardAllowCidrs, ...sender } = options;
    fallback = createHttpSender({
      ...sender,
      ...(guardAllowCidrs === undefined ? {} : { guard: new AddressGuard(guardAllowCidrs) }),
    });
    for (const resolve of waiting.values()) resolve(failed(`callback sender thread ${why}`));
    waiting.clear();
    outbox = [];
  };
  thread.on('message', (answers: readonly ThreadAnswer[]) => {
    for (const { id, outcome } of answers) {
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.(outcome);
    }
    if (waiting.size === 0) thread.unref();
  });
  thread.on('error', (error) => lost(`failed: ${error.message}`));
  thread.on('exit', (code) => lost(`exited (${code})`));

  const post = (): void => {
    if (outbox.length === 0 || fallback !== undefined) return;
    const batch = outbox;
    outbox = [];
    thread.postMessage(batch);
  };

  return {
    send(request: OutgoingCallback): Promise<SendOutcome> {
      if (fallback !== undefined) return fallback.send(request);
      if (closed) return Promise.resolve(failed('callback sender closed'));
      const id = nextId;
      nextId += 1;
      return new Promise<SendOutcome>((resolve) => {
        waiting.set(id, resolve);
        // While an answer is awaited the thread keeps the process alive, as a socket would.
        thread.ref();
        if (outbox.length === 0) setImmediate(post);
        // A copy of exactly the body's bytes: a small Buffer is a view of a shared pool, which
        // posting would copy whole.
        const body = new Uint8Array(request.body);
        outbox.push({ id, url: request.url, body, headers: request.headers });
      });
    },
    close() {
      if (closed) return;
      closed = true;
      fallback?.close();
      for (const resolve of waiting.values()) resolve(failed('callback sender closed'));
      waiting.clear();
      void thread.terminate();
    },
  };
}
