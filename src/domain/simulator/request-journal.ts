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
// Recording a call costs the request a few stores into arrays: the calls are held in a ring of
// JOURNAL_SIZE places (the values the answer already has: the organisation's id, the method,
// the URL as received, status, time and duration), and the path, the time's text and the row
// are made only when they are written. The ring is written every JOURNAL_WRITE_MS, and before
// every read of the journal, a snapshot, a reset and a shutdown, in statements of at most
// JOURNAL_CHUNK rows with a turn of the event loop between them, outside the group writer: the
// writer's batches, and what /metrics counts of them, are the service's. Calls beyond
// JOURNAL_SIZE since the last write push the oldest out of the ring unwritten: the table would
// have dropped them at that write anyway, so a busy simulator writes at most JOURNAL_SIZE rows
// per JOURNAL_WRITE_MS, however many calls it answers. Calls held when the process dies are not
// journaled; a shutdown writes them.

export const JOURNAL_SIZE = 5000;
const JOURNAL_TRIM = 100;
const JOURNAL_WRITE_MS = 5000;
const JOURNAL_CHUNK = 500;

export interface ApiCall {
  readonly organisationId: string;
  readonly method: string;
  /** The URL as received; only its path is written (the query may hold an api_key). */
  readonly url: string;
  readonly status: number;
  readonly durationMs: number;
}

/** Where a failed write is told: one warning per write, whatever the number of calls in it. */
export interface JournalLog {
  warn(fields: object, message: string): void;
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
 * The journal of one process. A call is held as its answer goes out and written with the others
 * of the moment, so it costs the caller nothing; a read first writes the calls held, so a client
 * that reads the journal after an answer came back always finds that call in it.
 */
export interface RequestJournal {
  /** Holds a call for the next write; a failure to write it is told to `log`, never thrown. */
  record(call: ApiCall, log: JournalLog): void;
  /** The newest calls, newest first: of one organisation, or of all when it is undefined. */
  recent(organisationId: string | undefined, limit: number): Promise<ApiRequestRow[]>;
  /** Writes the calls held so far; resolves once they are written or their failure told. */
  flush(): Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createRequestJournal(deps: JournalDeps): RequestJournal {
  // The ring: `held` calls from place `first` on, column by column.
  const organisations: string[] = new Array<string>(JOURNAL_SIZE).fill('');
  const methods: string[] = new Array<string>(JOURNAL_SIZE).fill('');
  const urls: string[] = new Array<string>(JOURNAL_SIZE).fill('');
  const statuses = new Uint16Array(JOURNAL_SIZE);
  const times = new Float64Array(JOURNAL_SIZE);
  const durations = new Float64Array(JOURNAL_SIZE);
  let first = 0;
  let held = 0;
  /** The log of the calls held (the last one given): a failed write is told there, once. */
  let heldLog: JournalLog | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The writes, one after the other (ids follow the calls' order): settles after the last. */
  let writes: Promise<void> = Promise.resolve();

  /** The calls held, oldest first, as rows; the ring is empty afterwards. */
  function takeHeld(): JournalledCall[] {
    const calls: JournalledCall[] = new Array<JournalledCall>(held);
    for (let n = 0; n < held; n += 1) {
      const i = (first + n) % JOURNAL_SIZE;
      calls[n] = {
        organisationId: organisations[i] ?? '',
        at: iso(new Date(times[i] ?? 0)),
        method: methods[i] ?? '',
        path: journalPath(urls[i] ?? ''),
        status: statuses[i] ?? 0,
        durationMs: Math.max(0, Math.round(durations[i] ?? 0)),
      };
      urls[i] = '';
    }
    first = 0;
    held = 0;
    return calls;
  }

  async function write(calls: readonly JournalledCall[]): Promise<void> {
    const db = deps.store.db;
    for (let at = 0; at < calls.length; at += JOURNAL_CHUNK) {
      if (at > 0) await nextTurn();
      const chunk = calls.slice(at, at + JOURNAL_CHUNK);
      const { first: lowest, last } = await insertApiRequests(db, chunk);
      const trim =
        last > JOURNAL_SIZE &&
        Math.floor(last / JOURNAL_TRIM) > Math.floor((lowest - 1) / JOURNAL_TRIM);
      if (trim) await deleteApiRequestsUpTo(db, last - JOURNAL_SIZE);
    }
  }

  function writeHeld(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    if (held === 0) return writes;
    const calls = takeHeld();
    const log = heldLog;
    heldLog = undefined;
    writes = writes.then(() =>
      write(calls).catch((error: unknown) => {
        log?.warn(
          { err: error, calls: calls.length },
          `request journal: ${calls.length} call${calls.length === 1 ? '' : 's'} not recorded`,
        );
      }),
    );
    return writes;
  }

  return {
    record(call, log) {
      let i: number;
      if (held < JOURNAL_SIZE) {
        i = (first + held) % JOURNAL_SIZE;
        held += 1;
      } else {
        // Full: the oldest call gives its place (the table's cap would drop it at this write).
        i = first;
        first = (first + 1) % JOURNAL_SIZE;
      }
      organisations[i] = call.organisationId;
      methods[i] = call.method;
      urls[i] = call.url;
      statuses[i] = call.status;
      times[i] = deps.clock.now().getTime();
      durations[i] = call.durationMs;
      heldLog = log;
      timer ??= setTimeout(() => void writeHeld(), JOURNAL_WRITE_MS).unref();
    },
    async recent(organisationId, limit) {
      await writeHeld();
      return listApiRequests(deps.store.db, organisationId, limit);
    },
    flush: writeHeld,
  };
}
