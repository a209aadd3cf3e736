import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/database.js';
import type { ApiRequestRow } from '../../store/repositories/request-journal-repository.js';
import {
  deleteApiRequestsUpTo,
  insertApiRequest,
  listApiRequests,
} from '../../store/repositories/request-journal-repository.js';

// The request journal of the simulator: every API call an organisation's key made (method,
// path without its query, status, time by the simulated clock, how long it took), for the
// portal's console and GET /_sim/requests. The table is capped: it keeps about the newest
// JOURNAL_SIZE calls of the whole simulator, every JOURNAL_TRIM-th call removing those older.

export const JOURNAL_SIZE = 5000;
const JOURNAL_TRIM = 100;

export interface ApiCall {
  readonly organisationId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly durationMs: number;
}

export interface JournalDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
}

/** The path of a request URL: the query (which may hold an api_key) is left out. */
export function journalPath(url: string): string {
  const at = url.indexOf('?');
  return (at === -1 ? url : url.slice(0, at)).slice(0, 500);
}

/** Records one call, and trims the journal to its size now and then. */
async function recordApiCall(deps: JournalDeps, call: ApiCall): Promise<void> {
  const id = await insertApiRequest(deps.store.db, {
    organisationId: call.organisationId,
    at: iso(deps.clock.now()),
    method: call.method,
    path: journalPath(call.url),
    status: call.status,
    durationMs: Math.max(0, Math.round(call.durationMs)),
  });
  if (id % JOURNAL_TRIM === 0 && id > JOURNAL_SIZE) {
    await deleteApiRequestsUpTo(deps.store.db, id - JOURNAL_SIZE);
  }
}

/**
 * The journal of one process. A call is recorded while its answer goes out, so it costs the
 * caller nothing; a read first waits for the records already started, so a client that reads the
 * journal after an answer came back always finds that call in it.
 */
export interface RequestJournal {
  /** Starts recording a call; a failure is handed to `onError`, never thrown. */
  record(call: ApiCall, onError: (error: unknown) => void): void;
  /** The newest calls, newest first: of one organisation, or of all when it is undefined. */
  recent(organisationId: string | undefined, limit: number): Promise<ApiRequestRow[]>;
}

export function createRequestJournal(deps: JournalDeps): RequestJournal {
  const pending = new Set<Promise<void>>();
  return {
    record(call, onError) {
      const write = recordApiCall(deps, call)
        .catch(onError)
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async recent(organisationId, limit) {
      await Promise.all(pending);
      return listApiRequests(deps.store.db, organisationId, limit);
    },
  };
}
