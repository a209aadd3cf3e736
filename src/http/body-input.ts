import type { FastifyInstance, FastifyRequest } from 'fastify';

// Request bodies are read the way the live service reads them (docs/interface.md, "Input"):
// - field names match case-insensitively: an order sent as "Order" is the order. The exact name
//   wins when both are present;
// - fields the route does not know are ignored (dropped before validation), so clients written
//   for later versions of the interface keep working. Each request lists what it dropped at
//   debug level;
// - the fields the route knows are validated strictly against its schema, with no type coercion
//   (the body validator is built without it, see bodyValidatorOptions).
// This runs as a preValidation hook, after the body is parsed and before the schema sees it.

type JsonSchema = Readonly<Record<string, unknown>>;

const MAX_DEPTH = 32;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The properties a schema names, including those of the members of a union or intersection. */
function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  let found: Record<string, JsonSchema> | undefined;
  if (isObject(schema['properties']))
    found = { ...(schema['properties'] as Record<string, JsonSchema>) };
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const members = schema[key];
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      if (!isObject(member)) continue;
      const nested = propertiesOf(member);
      if (nested !== undefined) found = { ...(found ?? {}), ...nested };
    }
  }
  return found;
}

/** A schema that describes a map of free names (patternProperties, additionalProperties: schema). */
function isMap(schema: JsonSchema): boolean {
  return isObject(schema['patternProperties']) || isObject(schema['additionalProperties']);
}

const has = (value: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(value, key);

/** What normaliseBody needs of an object schema, worked out once per schema (they never change). */
interface Shape {
  /** Undefined: nothing to rename or drop (no properties, or a map of free names). */
  readonly properties: Readonly<Record<string, JsonSchema>> | undefined;
  /** Each property's name by its lower-case form. */
  readonly byLower: ReadonlyMap<string, string>;
}

const shapes = new WeakMap<JsonSchema, Shape>();

function shapeOf(schema: JsonSchema): Shape {
  let shape = shapes.get(schema);
  if (shape === undefined) {
    const found = propertiesOf(schema);
    const properties = found === undefined || isMap(schema) ? undefined : found;
    const names = properties === undefined ? [] : Object.keys(properties);
    shape = { properties, byLower: new Map(names.map((k) => [k.toLowerCase(), k])) };
    shapes.set(schema, shape);
  }
  return shape;
}

/**
 * Renames fields of `value` to the schema's spelling and drops the unknown ones, in place.
 * Returns the paths of the dropped fields.
 */
export function normaliseBody(value: unknown, schema: JsonSchema, path = '', depth = 0): string[] {
  const ignored: string[] = [];
  normaliseInto(ignored, value, schema, path, depth);
  return ignored;
}

function normaliseInto(
  ignored: string[],
  value: unknown,
  schema: JsonSchema,
  path: string,
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (!isObject(items)) return;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      // Only objects and arrays have fields to drop: no path is built for the others.
      if (typeof item === 'object' && item !== null) {
        normaliseInto(ignored, item, items, `${path}[${i}]`, depth + 1);
      }
    }
    return;
  }
  if (!isObject(value)) return;
  const { properties, byLower } = shapeOf(schema);
  if (properties === undefined) return;
  for (const key of Object.keys(value)) {
    let name = key;
    if (!has(properties, key)) {
      const match = byLower.get(key.toLowerCase());
      const item = value[key];
      delete value[key];
      if (match === undefined || has(value, match)) {
        ignored.push(path === '' ? key : `${path}.${key}`);
        continue;
      }
      value[match] = item;
      name = match;
    }
    const property = properties[name];
    const field: unknown = value[name];
    if (property !== undefined && typeof field === 'object' && field !== null) {
      normaliseInto(ignored, field, property, path === '' ? name : `${path}.${name}`, depth + 1);
    }
  }
}

/** Ajv options of the body validator: strict JSON types, defaults filled in. */
export const bodyValidatorOptions = {
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
} as const;

/**
 * Ajv options of the query string, path parameter and header validators: these are text on the
 * wire, so a number parameter is coerced from its string form (and a repeated one to an array).
 */
export const textValidatorOptions = {
  coerceTypes: 'array',
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
} as const;

export function installBodyLeniency(app: FastifyInstance): void {
  // The callback form: it never waits, and most requests (every GET) have no body.
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const schema = request.routeOptions.schema?.body;
    if (isObject(schema) && request.body !== undefined && request.body !== null) {
      const ignored = normaliseBody(request.body, schema);
      if (ignored.length > 0) {
        request.log.debug({ ignoredFields: ignored.slice(0, 50) }, 'ignored unknown body fields');
      }
    }
    done();
  });
}
