import type { CompiledQuery } from 'kysely';
import type { DialectName, Executor } from './database.js';

// Hot reads whose SQL never changes are built through the query builder once per dialect and
// only their text parameters change from call to call: building and compiling a query costs more
// than running a simple one. Each parameter is marked by a slot value no real input can hold.

/** A query built once per dialect; `bind` fills its parameters in the order the slots name them. */
export interface CompiledOnce<R> {
  bind(db: Executor, dialect: DialectName, values: readonly string[]): CompiledQuery<R>;
}

/**
 * `build` receives one slot value per parameter (in the order `bind` will give the values) and
 * returns the query; its compiled form is kept per dialect.
 */
export function compiledOnce<R>(
  parameterCount: number,
  build: (db: Executor, slots: readonly string[]) => { compile(): CompiledQuery<R> },
): CompiledOnce<R> {
  const slots = Array.from({ length: parameterCount }, (_, i) => `\u0000slot${i}`);
  const byDialect = new Map<DialectName, CompiledQuery<R>>();
  return {
    bind(db, dialect, values) {
      let compiled = byDialect.get(dialect);
      if (compiled === undefined) {
        compiled = build(db, slots).compile();
        byDialect.set(dialect, compiled);
      }
      const parameters = compiled.parameters.map((p) => {
        const index = typeof p === 'string' ? slots.indexOf(p) : -1;
        return index === -1 ? p : values[index];
      });
      return { ...compiled, parameters };
    },
  };
}
