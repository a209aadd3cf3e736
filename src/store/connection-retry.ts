import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgresPool } from 'kysely';
import type { Pool } from 'pg';
import { CONFLICT_ATTEMPTS, NO_CONNECTION_PAUSE_MS, hasCode, noConnection } from './conflicts.js';

// A PostgreSQL server that refuses a new connection (53300 too many clients, for the server or
// for the role; 57P03 starting or stopping), or that cannot be reached at all (a network error,
// or no answer within the pool's connect timeout: made DatabaseUnreachable), is asked again after
// a short, growing pause, for
// every connection the pool opens: a read outside a transaction (most GETs) as much as a
// transaction. Other instances' connections, the command-line tool's or the pool's own come free
// meanwhile. After CONFLICT_ATTEMPTS tries the refusal stands: a request is answered 503
// database_busy with Retry-After (http/error-handler.ts), a worker's turn logs a warning.

/** How the pool asks again for a connection the server refused. */
export interface ConnectRetry {
  /** Tries in all (CONFLICT_ATTEMPTS). */
  readonly attempts?: number;
  /** Waits before try `attempt + 1` (NO_CONNECTION_PAUSE_MS times `attempt`). */
  readonly pause?: (attempt: number) => Promise<void>;
}

/**
 * Told of refused connections once per burst: a burst begins with a refusal after the server
 * accepted a new connection (or none yet) and ends when it accepts one again, however many
 * requests meet it meanwhile (a client the pool already holds does not end it).
 */
export interface ConnectionWatcher {
  /** The first refusal of a burst. */
  refused(error: unknown): void;
  /** The server accepted a new connection again after refusing `refusals`. */
  accepted(refusals: number): void;
}

/** Refusals of one pool, told to its watchers once per burst. */
export class RefusedConnections {
  private readonly watchers = new Set<ConnectionWatcher>();
  private refusals = 0;

  /** Tells `watcher` of bursts from now on; the function returned stops it. */
  watch(watcher: ConnectionWatcher): () => void {
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  refused(error: unknown): void {
    this.refusals += 1;
    if (this.refusals === 1) for (const watcher of this.watchers) watcher.refused(error);
  }

  accepted(): void {
    if (this.refusals === 0) return;
    const refusals = this.refusals;
    this.refusals = 0;
    for (const watcher of this.watchers) watcher.accepted(refusals);
  }
}

/** Errors of the network, before any word from PostgreSQL: down, restarting, unreachable. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * pg-pool's errors when its connectionTimeoutMillis runs out (DATABASE_CONNECT_TIMEOUT_MS): a new
 * connection that got no answer in time (packets dropped by a firewall, a host gone), and a wait
 * for one of the pool's connections that lasted as long. They carry no code, only these messages.
 */
const CONNECT_TIMEOUTS = new Set([
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
]);

const connectTimedOut = (error: unknown): boolean =>
  error instanceof Error && CONNECT_TIMEOUTS.has(error.message);

/**
 * No connection could be made to PostgreSQL (SQLSTATE 08001): nothing was sent, so the work may
 * be tried again later; asked for again like a refused connection, then answered 503.
 */
export class DatabaseUnreachable extends Error {
  readonly code = '08001';

  constructor(cause: unknown) {
    super(
      `could not connect to PostgreSQL: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = 'DatabaseUnreachable';
  }
}

/**
 * `pool` as Kysely's driver takes it, with a connection the server refuses (or that cannot reach
 * it: DatabaseUnreachable) asked for again after a pause, `retry.attempts` times in all; the last
 * refusal is thrown. Any other error (a login refused, a database that does not exist) is thrown
 * at once.
 */
export function retryingPool(
  pool: Pool,
  refusals: RefusedConnections,
  retry: ConnectRetry = {},
): PostgresPool {
  const attempts = retry.attempts ?? CONFLICT_ATTEMPTS;
  const pause = retry.pause ?? ((attempt: number) => sleep(NO_CONNECTION_PAUSE_MS * attempt));
  // pg tells of each new connection the server accepted.
  pool.on('connect', () => refusals.accepted());
  return {
    async connect() {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await pool.connect();
        } catch (thrown) {
          const error =
            hasCode(thrown, NETWORK) || connectTimedOut(thrown)
              ? new DatabaseUnreachable(thrown)
              : thrown;
          if (!noConnection(error)) throw error;
          refusals.refused(error);
          if (attempt >= attempts) throw error;
          await pause(attempt);
        }
      }
    },
    end: () => pool.end(),
  };
}

/** A log's two levels that connection bursts are written at. */
export interface ConnectionLog {
  warn(details: object, message: string): void;
  info?(details: object, message: string): void;
}

/**
 * Logs a burst of refused connections: one warning at its first refusal, and at info level,
 * where the log has it, the count once the server accepts a connection again.
 */
export function connectionLog(log: ConnectionLog): ConnectionWatcher {
  return {
    refused: (error) =>
      log.warn(
        { err: error },
        'PostgreSQL refused a connection; asking again after a pause (logged once until it accepts one)',
      ),
    accepted: (refusals) =>
      log.info?.({ refusals }, 'PostgreSQL accepted a connection again after refusing some'),
  };
}
