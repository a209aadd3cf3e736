import type { FastifyReply } from 'fastify';
import type { RequestJournal } from '../domain/simulator/request-journal.js';

// Simulator mode: every answered API call made with an organisation's key goes into the request
// journal (domain/simulator/request-journal.ts). Calls refused before the key was known (a bad
// key, a simulated fault) have no organisation and are not journaled.
//
// The journal adds no hook to a request: the API-key hook, which every API call already runs,
// notes the call (`begin`) once its key is known, and the access log, which every request
// already reaches when its answer has gone out, records it (`end`) with its status and duration.
// A read of the journal must also find a call whose answer went out but whose end is still to
// come (a large answer still being written when the caller, who has it, asks), so before every
// write the journal takes the noted calls already answered (`takeAnswered`).

export interface JournalCalls {
  /** The call's key is known: it is journaled once answered. */
  begin(reply: FastifyReply): void;
  /** The answer has gone out (or failed): records the call if it was noted and not yet taken. */
  end(reply: FastifyReply): void;
}

export function journalCalls(journal: RequestJournal): JournalCalls {
  /** Calls noted and not yet recorded: at most the requests in flight. */
  const noted = new Set<FastifyReply>();

  function record(reply: FastifyReply): void {
    journal.record(
      {
        organisationId: reply.request.organisation.id,
        method: reply.request.method,
        url: reply.request.url,
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
      },
      reply.server.log,
    );
  }

  journal.beforeWrite(() => {
    for (const reply of noted) {
      if (reply.raw.writableEnded) {
        noted.delete(reply);
        record(reply);
      } else if (reply.raw.destroyed) {
        noted.delete(reply); // never answered: the connection went first
      }
    }
  });

  return {
    begin(reply) {
      noted.add(reply);
    },
    end(reply) {
      if (noted.delete(reply)) record(reply);
    },
  };
}
