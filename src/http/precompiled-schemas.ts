// The request validators and response serialisers of every route, generated as JavaScript at
// build time (scripts/build.mjs, scripts/schema-code.mjs) so that a start does not compile them.
// In the sources this module is empty: tests and `tsx` compile every schema when the app is
// ready, as Fastify does by default. The bundle, dist/esim.js, gets the generated module
// (dist/precompiled-schemas.cjs) in its place (docs/operations.md, "Start time").

/** One generated CommonJS module: it sets `module.exports` to a validator or a serialiser. */
export type SchemaModule = (module: { exports: unknown }) => void;

/** Generated modules by schema key (`schemaKey` in schema-compilers.ts). */
export interface PrecompiledSchemas {
  readonly validators: Readonly<Record<string, SchemaModule>>;
  readonly serializers: Readonly<Record<string, SchemaModule>>;
}

export const PRECOMPILED_SCHEMAS: PrecompiledSchemas | undefined = undefined;
