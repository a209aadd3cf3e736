import { PostgresAdapter, createQueryId } from 'kysely';
import type { Compilable, CompiledQuery, Kysely, QueryResult, Transaction } from 'kysely';
import { batchOf } from './batch.js';
import type { Database as Schema } from './schema.js';
import { mayWrite } from './write-watch.js';

// Statements built and compiled once. Kysely builds an operation tree and compiles it to SQL on
// every call: for the short statements of an order that costs about as much CPU as SQLite takes to
// run them. A compiled statement is built once per dialect with named placeholders, and each call
// only lays its values out in the order of the SQL's parameters. (SQLite's prepared statement is
// then reused by SQL text, database.ts; PostgreSQL receives the same text every time.) In a
// group-commit batch on SQLite the statement runs on the driver directly (direct-statements.ts).

type Handle = Kysely<Schema> | Transaction<Schema>;

interface Template {
  readonly query: CompiledQuery['query'];
  readonly sql: string;
  /** Whether the statement may change data (the write counter, write-watch.ts). */
  readonly writes: boolean;
  /** For each parameter of the SQL: the name of the value to put there, or a constant. */
  readonly slots: readonly ({ name: string } | { constant: unknown })[];
}

const MARKER = '\u0000compiled-placeholder:';

function placeholders<P>(): P {
  return new Proxy({}, { get: (_target, name) => `${MARKER}${String(name)}` }) as P;
}

function dialectOf(db: Handle): 'postgres' | 'sqlite' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

function compileTemplate<P>(
  db: Handle,
  build: (db: Handle, p: P) => Compilable<unknown>,
): Template {
  const compiled = build(db, placeholders<P>()).compile();
  return {
    query: compiled.query,
    sql: compiled.sql,
    writes: mayWrite(compiled.query),
    slots: compiled.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(MARKER)
        ? { name: value.slice(MARKER.length) }
        : { constant: value },
    ),
  };
}

export interface CompiledStatement<P, R> {
  /** Runs the statement with these values on `db` (a handle or a transaction). */
  execute(db: Handle, values: P): Promise<QueryResult<R>>;
}

/**
 * A statement compiled once per dialect. `build` receives placeholders in place of the values:
 * it must pass each of them to the query builder as a plain value, one by one (not compute with
 * them, and not spread the placeholder object, which has no keys of its own).
 */
export function compiledOnce<P extends object, R>(
  build: (db: Handle, p: P) => Compilable<R>,
): CompiledStatement<P, R> {
  const templates = new Map<'postgres' | 'sqlite', Template>();
  return {
    execute(db, values) {
      const dialect = dialectOf(db);
      let template = templates.get(dialect);
      if (template === undefined) {
        template = compileTemplate(db, build);
        templates.set(dialect, template);
      }
      const parameters = template.slots.map((slot) =>
        'name' in slot ? (values as Record<string, unknown>)[slot.name] : slot.constant,
      );
      const direct = batchOf(db)?.direct;
      if (direct !== undefined) return direct.run<R>(template.sql, parameters, template.writes);
      const queryId = createQueryId();
      // Let the plugins see the statement (the query-time metric starts its clock here).
      const query = db.getExecutor().transformQuery(template.query, queryId);
      return db.executeQuery<R>({ query, queryId, sql: template.sql, parameters });
    },
  };
}

/**
 * The named values of `p` (placeholders in a `build`), as the object of an insert's `values`:
 * a row of every column the list names.
 */
export function columnsOf<P extends object, K extends keyof P>(
  p: P,
  columns: readonly K[],
): Pick<P, K> {
  const row = {} as Pick<P, K>;
  for (const column of columns) row[column] = p[column];
  return row;
}
