import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { recordApiCall } from '../domain/simulator/request-journal.js';

// Simulator mode: every answered API call made with an organisation's key goes into the request
// journal (domain/simulator/request-journal.ts) after its answer is sent, so it costs the
// caller nothing. Calls refused before the key was known (a bad key, a simulated fault) have no
// organisation and are not journaled.

const API_PATH = /^\/v\d/;

export function installRequestJournal(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Set by the API-key hook; null or absent on a request that did not authenticate.
    const organisation = request.organisation as { readonly id: string } | null | undefined;
    if (organisation && API_PATH.test(request.url)) {
      recordApiCall(deps, {
        organisationId: organisation.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
      }).catch((error: unknown) =>
        request.log.warn({ err: error }, 'request journal: not recorded'),
      );
    }
    done();
  });
}
