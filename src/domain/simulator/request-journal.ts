import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/database.js';
import type { GroupWriter } from '../../store/group-commit.js';
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
// Recording a call costs the request nothing but keeping it in memory: the calls answered
// meanwhile go to the database together, as one write of the group writer (group-commit.ts),
// which shares its transaction with the other writes of the moment (the orders of the next
// batch) instead of committing once a call on the event loop that serves requests.

export const JOURNAL_SIZE = 5000;
const JOURNAL_TRIM = 100;

/** The group of the journal's writes in the group writer: apart from every organisation's. */
const JOURNAL_GROUP = '\u{10FFFF}request journal';

export interface ApiCall {
  readonly organisationId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly durationMs: number;
}

export interface JournalDeps {
  readonly store: { readonly db: Db; readonly writer: GroupWriter };
  readonly clock: Clock;
}

/** The path of a request URL: the query (which may hold an api_key) is left out. */
export function journalPath(url: string): string {
  const at = url.indexOf('?');
  return (at === -1 ? url : url.slice(0, at)).slice(0, 500);
}

/**
 * The journal of one process. A call is kept as its answer goes out and written with the others
 * of the moment, so it costs the caller nothing; a read first waits for the calls already kept,
 * so a client that reads the journal after an answer came back always finds that call in it.
 */
export interface RequestJournal {
  /** Keeps a call for the next write; a failure to write it is handed to `onError`, never thrown. */
  record(call: ApiCall, onError: (error: unknown) => void): void;
  /** The newest calls, newest first: of one organisation, or of all when it is undefined. */
  recent(organisationId: string | undefined, limit: number): Promise<ApiRequestRow[]>;
}

interface Kept {
  readonly call: JournalledCall;
  readonly onError: (error: unknown) => void;
}

export function createRequestJournal(deps: JournalDeps): RequestJournal {
  /** Calls kept since the queued write took its calls. */
  let kept: Kept[] = [];
  /** Whether a write is queued that has not taken its calls yet (it takes `kept` as it runs). */
  let queued = false;
  const pending = new Set<Promise<void>>();

  /** The write of the calls kept until it runs; run again as is if its batch is run again. */
  function queueWrite(): void {
    queued = true;
    let taken: Kept[] | undefined;
    const write = deps.store.writer
      .run(JOURNAL_GROUP, async (trx) => {
        if (taken === undefined) {
          taken = kept;
          kept = [];
          queued = false;
        }
        if (taken.length === 0) return;
        const { first, last } = await insertApiRequests(
          trx,
          taken.map((k) => k.call),
        );
        if (
          last > JOURNAL_SIZE &&
          Math.floor(last / JOURNAL_TRIM) > Math.floor((first - 1) / JOURNAL_TRIM)
        ) {
          await deleteApiRequestsUpTo(trx, last - JOURNAL_SIZE);
        }
      })
      .catch((error: unknown) => {
        // Not written: the calls it had taken (or all kept, if it never ran) are reported.
        const lost = taken ?? kept;
        if (taken === undefined) {
          kept = [];
          queued = false;
        }
        for (const k of lost) k.onError(error);
      })
      .finally(() => pending.delete(write));
    pending.add(write);
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
      if (!queued) queueWrite();
    },
    async recent(organisationId, limit) {
      // The writes queued or running now hold every call answered so far.
      await Promise.all(pending);
      return listApiRequests(deps.store.db, organisationId, limit);
    },
  };
}
