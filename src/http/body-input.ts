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

/**
 * Renames fields of `value` to the schema's spelling and drops the unknown ones, in place.
 * Returns the paths of the dropped fields.
 */
export function normaliseBody(value: unknown, schema: JsonSchema, path = '', depth = 0): string[] {
  if (depth > MAX_DEPTH) return [];
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (!isObject(items)) return [];
    return value.flatMap((item, i) => normaliseBody(item, items, `${path}[${i}]`, depth + 1));
  }
  if (!isObject(value)) return [];
  const properties = propertiesOf(schema);
  if (properties === undefined || isMap(schema)) return [];
  const known = Object.keys(properties);
  const byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
  const ignored: string[] = [];
  for (const key of Object.keys(value)) {
    let name = key;
    if (!has(properties, key)) {
      const match = byLower.get(key.toLowerCase());
      const field = path === '' ? key : `${path}.${key}`;
      const item = value[key];
      delete value[key];
      if (match === undefined || has(value, match)) {
        ignored.push(field);
        continue;
      }
      value[match] = item;
      name = match;
    }
    const property = properties[name];
    if (property !== undefined) {
      ignored.push(
        ...normaliseBody(value[name], property, path === '' ? name : `${path}.${name}`, depth + 1),
      );
    }
  }
  return ignored;
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
