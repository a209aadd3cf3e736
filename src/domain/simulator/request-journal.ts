import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/database.js';
import type {
  ApiRequestRow,
  JournalledCall,
} from '../../store/repositories/request-journal-repository.js';
import {
  deleteApiRequestsUpTo,
  insertApiRequests,
  listApiRequests,
} from '../../store/repositories/request-journal-repository.js';

// The request journal of the simulator: every API call an organisation's key made (method,
// path without its query, status, time by the simulated clock, how long it took), for the
// portal's console and GET /_sim/requests. The table is capped: it keeps about the newest
// JOURNAL_SIZE calls of the whole simulator, each write that takes the ids past a multiple of
// JOURNAL_TRIM removing those older.
//
// Recording a call costs the request nothing but keeping it in memory: the calls answered in
// the next JOURNAL_FLUSH_MS (or the first JOURNAL_FLUSH_AT of them) go to the database together,
// in one statement, instead of one transaction a call on the event loop that serves requests.
// The write is a statement of its own, outside the group writer: the writer's batches, and what
// /metrics counts of them, are the service's. A read of the journal writes what is kept first.
// Kept calls not yet written when the process dies are not journaled; a shutdown writes them.

export const JOURNAL_SIZE = 5000;
const JOURNAL_TRIM = 100;
const JOURNAL_FLUSH_MS = 100;
const JOURNAL_FLUSH_AT = 1000;

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

/**
 * The journal of one process. A call is kept as its answer goes out and written with the others
 * of the moment, so it costs the caller nothing; a read first writes the calls kept, so a client
 * that reads the journal after an answer came back always finds that call in it.
 */
export interface RequestJournal {
  /** Keeps a call for the next write; a failure to write it is handed to `onError`, never thrown. */
  record(call: ApiCall, onError: (error: unknown) => void): void;
  /** The newest calls, newest first: of one organisation, or of all when it is undefined. */
  recent(organisationId: string | undefined, limit: number): Promise<ApiRequestRow[]>;
  /** Writes the calls kept so far (at shutdown); resolves once they are written or reported. */
  flush(): Promise<void>;
}

interface Kept {
  readonly call: JournalledCall;
  readonly onError: (error: unknown) => void;
}

export function createRequestJournal(deps: JournalDeps): RequestJournal {
  let kept: Kept[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** Writes queued or running: together they hold every call kept before them. */
  const pending = new Set<Promise<void>>();

  function writeKept(): void {
    clearTimeout(timer);
    timer = undefined;
    if (kept.length === 0) return;
    const taken = kept;
    kept = [];
    const calls = taken.map((k) => k.call);
    const write = (async () => {
      const db = deps.store.db;
      const { first, last } = await insertApiRequests(db, calls);
      const trim =
        last > JOURNAL_SIZE &&
        Math.floor(last / JOURNAL_TRIM) > Math.floor((first - 1) / JOURNAL_TRIM);
      if (trim) await deleteApiRequestsUpTo(db, last - JOURNAL_SIZE);
    })()
      .catch((error: unknown) => {
        for (const k of taken) k.onError(error);
      })
      .finally(() => pending.delete(write));
    pending.add(write);
  }

  async function flush(): Promise<void> {
    writeKept();
    await Promise.all(pending);
  }

  return {
    record(call, onError) {
      kept.push({
        call: {
          organisationId: call.organisationId,
          at: iso(deps.clock.now()),
          method: call.method,
          path: journalPath(call.url),
          status: call.status,
          durationMs: Math.max(0, Math.round(call.durationMs)),
        },
        onError,
      });
      if (kept.length >= JOURNAL_FLUSH_AT) writeKept();
      else timer ??= setTimeout(writeKept, JOURNAL_FLUSH_MS).unref();
    },
    async recent(organisationId, limit) {
      await flush();
      return listApiRequests(deps.store.db, organisationId, limit);
    },
    flush,
  };
}
