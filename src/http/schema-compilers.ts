import { createHash } from 'node:crypto';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { bodyValidatorOptions, textValidatorOptions } from './body-input.js';
import type { PrecompiledSchemas, SchemaModule } from './precompiled-schemas.js';

// The compilers Fastify uses for every route's schemas (its `schemaController.compilersFactory`).
// Validation: JSON bodies are validated with strict types (a quantity of "2", true or [1] is a
// 400); the query string, path parameters and headers are text, coerced to the types their
// schemas give. Each has its own Ajv instance, built by Fastify's own compiler. Serialisation:
// fast-json-stringify, as Fastify does by default.
//
// A schema whose generated code is in `precompiled` (the bundle's, made at build time) is not
// compiled at all: its module is loaded. The key covers everything the generated code depends
// on (the schema, the shared schemas it may reference, the compiler options), so a schema that
// changed since the build is simply compiled as before.

export type ExternalSchemas = Readonly<Record<string, unknown>>;

/** What Fastify passes for one schema of one route. */
export interface RouteSchema {
  readonly schema: unknown;
  readonly method?: string;
  readonly url?: string;
  readonly httpPart?: string;
  readonly httpStatus?: string;
  readonly contentType?: string;
}

export type AjvOptions = typeof bodyValidatorOptions | typeof textValidatorOptions;

/** Told about every schema compiled, so that the build can generate its code. */
export interface SchemaRecorder {
  validator(key: string, external: ExternalSchemas, options: AjvOptions, route: RouteSchema): void;
  serializer(key: string, external: ExternalSchemas, options: unknown, route: RouteSchema): void;
}

type Compile = (route: RouteSchema) => unknown;
type Factory = (external: ExternalSchemas, options: unknown) => Compile;

export interface SchemaCompilers {
  /** For Fastify's `schemaController.compilersFactory`. */
  readonly factory: { buildValidator: Factory; buildSerializer: Factory };
  /**
   * Schemas taken from the generated code, and schemas compiled now, of every route built so
   * far (those still waiting for their first call are looked up first).
   */
  counts(): { precompiled: number; compiled: number };
}

/** The key of one schema's generated code. */
export function schemaKey(kind: string, ...parts: readonly string[]): string {
  const hash = createHash('sha256').update(kind);
  for (const part of parts) hash.update('\0').update(part);
  return hash.digest('base64url').slice(0, 22);
}

const json = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

/**
 * Schema keys already worked out in this process, by the compiler's settings and then by the
 * route's schema object: an app built again (the tests build hundreds) gets its routes' schemas
 * from the same modules, the same objects, and need not serialise and hash each again.
 */
const keysHere = new Map<string, WeakMap<object, string>>();

function routeKey(kind: string, settings: string, schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return schemaKey(kind, settings, json(schema));
  let bySchema = keysHere.get(settings);
  if (bySchema === undefined) {
    bySchema = new WeakMap();
    keysHere.set(settings, bySchema);
  }
  let key = bySchema.get(schema);
  if (key === undefined) {
    key = schemaKey(kind, settings, json(schema));
    bySchema.set(schema, key);
  }
  return key;
}

function load(module: SchemaModule): unknown {
  const box: { exports: unknown } = { exports: undefined };
  module(box);
  return box.exports;
}

/**
 * Validators and serialisers compiled in this process, by schema key: a second app built in one
 * process (the tests build hundreds) reuses them instead of compiling its schemas again. What a
 * key names is fixed by the key itself, so a function found here is the one compiling would make.
 */
const compiledHere = {
  validators: new Map<string, unknown>(),
  serializers: new Map<string, unknown>(),
};

type Made = ((data: unknown, context?: unknown) => unknown) & {
  readonly errors?: unknown;
  readonly schemaEnv?: unknown;
};

/**
 * With generated code (the bundle), a route's validator or serialiser is looked up and loaded
 * on its first call, not when the app gets ready: a start then spends nothing on the many
 * schemas (every version's routes, the portal's) that no request has used yet. The function
 * Fastify holds calls the real one, and passes on what Fastify reads of a validator (`errors`
 * after a failure, `schemaEnv` before a call). `settle` makes every one still waiting.
 */
function onFirstCall(make: () => unknown, waiting: Set<() => Made>, validator: boolean): unknown {
  let made: Made | undefined;
  const get = (): Made => {
    if (made === undefined) {
      made = make() as Made;
      waiting.delete(get);
    }
    return made;
  };
  waiting.add(get);
  const call = (data: unknown, context?: unknown): unknown => get()(data, context);
  if (validator) {
    Object.defineProperty(call, 'errors', { get: () => get().errors });
    Object.defineProperty(call, 'schemaEnv', { get: () => get().schemaEnv });
  }
  return call;
}

export function schemaCompilers(
  options: { precompiled?: PrecompiledSchemas; recorder?: SchemaRecorder } = {},
): SchemaCompilers {
  const { precompiled, recorder } = options;
  const counts = { precompiled: 0, compiled: 0 };
  const waiting = new Set<() => Made>();
  /** Later with generated code, at once without (a schema error then stops the start). */
  const deferred = (make: () => unknown, validator: boolean): unknown =>
    precompiled === undefined ? make() : onFirstCall(make, waiting, validator);
  const found = (module: SchemaModule | undefined): unknown => {
    if (module === undefined) return undefined;
    counts.precompiled += 1;
    return load(module);
  };
  const validatorPool = AjvCompiler() as unknown as (
    external: ExternalSchemas,
    options: { customOptions: AjvOptions },
  ) => Compile;
  const serializerPool = SerializerSelector() as unknown as Factory;

  const buildValidator: Factory = (external) => {
    const shared = json(external);
    const parts = new Map<AjvOptions, Compile>();
    const bodySettings = `${shared}\0${json(bodyValidatorOptions)}`;
    const textSettings = `${shared}\0${json(textValidatorOptions)}`;
    const buildOne = (route: RouteSchema): unknown => {
      const body = route.httpPart === 'body';
      const options = body ? bodyValidatorOptions : textValidatorOptions;
      const key = routeKey('validator', body ? bodySettings : textSettings, route.schema);
      const loaded = found(precompiled?.validators[key]);
      if (loaded !== undefined) return loaded;
      counts.compiled += 1;
      recorder?.validator(key, external, options, route);
      const earlier = compiledHere.validators.get(key);
      if (earlier !== undefined) return earlier;
      let compile = parts.get(options);
      if (compile === undefined) {
        compile = validatorPool(external, { customOptions: options });
        parts.set(options, compile);
      }
      const validator = compile(route);
      compiledHere.validators.set(key, validator);
      return validator;
    };
    return (route) => deferred(() => buildOne(route), true);
  };

  const buildSerializer: Factory = (external, serializerOptions) => {
    const settings = `${json(external)}\0${json(serializerOptions)}`;
    const compile = serializerPool(external, serializerOptions);
    const buildOne = (route: RouteSchema): unknown => {
      const key = routeKey('serializer', settings, route.schema);
      const loaded = found(precompiled?.serializers[key]);
      if (loaded !== undefined) return loaded;
      counts.compiled += 1;
      recorder?.serializer(key, external, serializerOptions, route);
      const earlier = compiledHere.serializers.get(key);
      if (earlier !== undefined) return earlier;
      const serializer = compile(route);
      compiledHere.serializers.set(key, serializer);
      return serializer;
    };
    return (route) => deferred(() => buildOne(route), false);
  };

  return {
    factory: { buildValidator, buildSerializer },
    counts: () => {
      for (const make of [...waiting]) make();
      return { ...counts };
    },
  };
}
