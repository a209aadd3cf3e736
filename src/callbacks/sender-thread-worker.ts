// The callback sender's thread (sender-thread.ts starts it): it makes the HTTP requests of
// callback delivery, over keep-alive connections of its own, so their CPU (the client's parsing
// and socket work, TLS) runs beside the service's event loop instead of on it. It sends exactly
// what it is handed and answers each request's outcome; it keeps no state of delivery, which
// stays in the rows that the delivery worker writes on the service's thread.
import { parentPort, workerData } from 'node:worker_threads';
import { AddressGuard } from './address-guard.js';
import { createHttpSender } from './http-sender.js';
import type { SendOutcome } from './http-sender.js';

export interface SenderThreadSettings {
  readonly connectTimeoutMs: number;
  readonly timeoutMs: number;
  readonly requireHttps: boolean;
  readonly maxSockets: number;
  /** Production mode: every address checked at connect time, these ranges let through. */
  readonly guardAllowCidrs?: readonly string[];
  readonly ca?: string | Uint8Array;
}

/** One request, as the service's thread posts it. */
export interface ThreadRequest {
  readonly id: number;
  readonly url: string;
  readonly body: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the thread posts back: each request's outcome, by id. */
export interface ThreadAnswer {
  readonly id: number;
  readonly outcome: SendOutcome;
}

function start(settings: SenderThreadSettings): void {
  const port = parentPort;
  if (port === null) throw new Error('the callback sender runs as a worker thread');
  const sender = createHttpSender({
    connectTimeoutMs: settings.connectTimeoutMs,
    timeoutMs: settings.timeoutMs,
    requireHttps: settings.requireHttps,
    maxSockets: settings.maxSockets,
    ...(settings.guardAllowCidrs === undefined
      ? {}
      : { guard: new AddressGuard(settings.guardAllowCidrs) }),
    ...(settings.ca === undefined
      ? {}
      : { ca: typeof settings.ca === 'string' ? settings.ca : Buffer.from(settings.ca) }),
  });
  // Answers that end in the same turn of this thread's loop go back in one message.
  let answers: ThreadAnswer[] = [];
  const post = (): void => {
    const batch = answers;
    answers = [];
    port.postMessage(batch);
  };
  // The service ends the thread (terminate) once no send is under way.
  port.on('message', (message: readonly ThreadRequest[]) => {
    for (const request of message) {
      const body = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.length);
      void sender.send({ url: request.url, body, headers: request.headers }).then((outcome) => {
        if (answers.length === 0) setImmediate(post);
        answers.push({ id: request.id, outcome });
      });
    }
  });
}

start(workerData as SenderThreadSettings);
