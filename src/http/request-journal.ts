import type { FastifyInstance } from 'fastify';
import type { RequestJournal } from '../domain/simulator/request-journal.js';

// Simulator mode: every answered API call made with an organisation's key goes into the request
// journal (domain/simulator/request-journal.ts). The call is held as the answer is sent (before
// it goes out, so a read made after the answer arrived finds it) and written later with the
// others of the moment: it costs the caller nothing. Calls refused before the key was known (a
// bad key, a simulated fault) have no organisation and are not journaled.

/** /v<digit>…: the API's paths (not /_sim, the portal or the docs). */
const API_PATH = /^\/v\d/;

export function installRequestJournal(app: FastifyInstance, journal: RequestJournal): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // Set by the API-key hook; null or absent on a request that did not authenticate.
    const organisation = request.organisation as { readonly id: string } | null | undefined;
    if (organisation && API_PATH.test(request.url)) {
      journal.record(
        {
          organisationId: organisation.id,
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          durationMs: reply.elapsedTime,
        },
        app.log,
      );
    }
    done(null, payload);
  });
}
