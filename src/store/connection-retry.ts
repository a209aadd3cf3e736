import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgresPool } from 'kysely';
import type { Pool } from 'pg';
import {
  CONFLICT_ATTEMPTS,
  NO_CONNECTION_PAUSE_MS,
  POOL_FULL,
  hasCode,
  noConnection,
} from './conflicts.js';

// A PostgreSQL server that refuses a new connection (53300 too many clients, for the server or
// for the role; 57P03 starting or stopping), or that cannot be reached at all (a network error,
// or no answer within the pool's connect timeout: made DatabaseUnreachable), is asked again after
// a short, growing pause, for
// every connection the pool opens: a read outside a transaction (most GETs) as much as a
// transaction. Other instances' connections, the command-line tool's or the pool's own come free
// meanwhile. After CONFLICT_ATTEMPTS tries the refusal stands: a request is answered 503
// database_busy with Retry-After (http/error-handler.ts), a worker's turn logs a warning.
//
// A wait for one of the pool's own connections that outlasts the same timeout is another matter:
// every connection of this instance's pool was busy, and PostgreSQL may be fine. It is made
// PoolFull, logged on its own, and answered 503 at once (not asked for again: see PoolFull).

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
 * requests meet it meanwhile (a client the pool already holds does not end it). Told likewise of
 * waits for the pool's own connections that timed out: such a burst ends when the pool hands out
 * a connection with no other request waiting for one.
 */
export interface ConnectionWatcher {
  /** The first refusal of a burst. */
  refused(error: unknown): void;
  /** The server accepted a new connection again after refusing `refusals`. */
  accepted(refusals: number): void;
  /** The first wait of a burst that timed out, every connection of the pool busy. */
  poolFull(error: PoolFull): void;
  /** The pool handed out a connection with no request left waiting, after `timeouts` timed out. */
  poolKeepsUp(timeouts: number): void;
}

/** Refusals and timed-out waits of one pool, told to its watchers once per burst. */
export class ConnectionBursts {
  private readonly watchers = new Set<ConnectionWatcher>();
  private refusals = 0;
  private timeouts = 0;

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

  poolFull(error: PoolFull): void {
    this.timeouts += 1;
    if (this.timeouts === 1) for (const watcher of this.watchers) watcher.poolFull(error);
  }

  poolKeepsUp(): void {
    if (this.timeouts === 0) return;
    const timeouts = this.timeouts;
    this.timeouts = 0;
    for (const watcher of this.watchers) watcher.poolKeepsUp(timeouts);
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

// pg-pool's errors when its connectionTimeoutMillis runs out (DATABASE_CONNECT_TIMEOUT_MS). They
// carry no code, only these messages.
/** A new connection that got no answer in time (packets dropped by a firewall, a host gone). */
const CONNECT_TIMEOUT = 'Connection terminated due to connection timeout';
/** A wait for one of the pool's connections, every one of them in use or being opened. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

const saying = (error: unknown, message: string): boolean =>
  error instanceof Error && error.message === message;

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
 * Every connection of this instance's pool stayed busy (in use, or being opened) for the connect
 * timeout while a request waited for one: a shortage of this instance (too much work for its
 * pool, or slow queries holding connections), not a word from PostgreSQL. Nothing was sent.
 * Not asked for again: the wait has already lasted the timeout, and a new one would queue behind
 * every request that came meanwhile, holding the request longer and the queue with it; the
 * request is answered 503 database_busy with Retry-After at once.
 */
export class PoolFull extends Error {
  readonly code = POOL_FULL;

  constructor(size: number, waitedMs: number, cause: unknown) {
    super(
      `all ${size} connections of this instance's database pool stayed busy for ${waitedMs} ms ` +
        '(in use, or being opened); no request was sent to PostgreSQL',
      { cause },
    );
    this.name = 'PoolFull';
  }
}

/**
 * `pool` as Kysely's driver takes it, with a connection the server refuses (or that cannot reach
 * it: DatabaseUnreachable) asked for again after a pause, `retry.attempts` times in all; the last
 * refusal is thrown. A wait for the pool's own connections that timed out is thrown at once as
 * PoolFull; any other error (a login refused, a database that does not exist) is thrown at once.
 */
export function retryingPool(
  pool: Pool,
  bursts: ConnectionBursts,
  retry: ConnectRetry = {},
): PostgresPool {
  const attempts = retry.attempts ?? CONFLICT_ATTEMPTS;
  const pause = retry.pause ?? ((attempt: number) => sleep(NO_CONNECTION_PAUSE_MS * attempt));
  // pg tells of each new connection the server accepted.
  pool.on('connect', () => bursts.accepted());
  return {
    async connect() {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const client = await pool.connect();
          if (pool.waitingCount === 0) bursts.poolKeepsUp();
          return client;
        } catch (thrown) {
          if (saying(thrown, POOL_WAIT_TIMEOUT)) {
            const error = new PoolFull(
              pool.options.max,
              pool.options.connectionTimeoutMillis ?? 0,
              thrown,
            );
            bursts.poolFull(error);
            throw error;
          }
          const error =
            hasCode(thrown, NETWORK) || saying(thrown, CONNECT_TIMEOUT)
              ? new DatabaseUnreachable(thrown)
              : thrown;
          if (!noConnection(error)) throw error;
          bursts.refused(error);
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
 * where the log has it, the count once the server accepts a connection again. A burst of waits
 * for the pool's own connections that timed out likewise, in words of its own: the operator
 * looks at this instance's load, not at PostgreSQL or the network.
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
    poolFull: (error) =>
      log.warn(
        { err: error },
        "Every connection of this instance's database pool stayed busy for DATABASE_CONNECT_TIMEOUT_MS; answering 503 at once (logged once until the pool keeps up)",
      ),
    poolKeepsUp: (timeouts) =>
      log.info?.(
        { timeouts },
        'The database pool keeps up again: a connection handed out with no request waiting',
      ),
  };
}
