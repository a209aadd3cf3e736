import { Type } from '@sinclair/typebox';
import type { TObject, TProperties, TSchema } from '@sinclair/typebox';

// Small helpers for stating a version's schema as a difference from v2.1's.

/** `schema` with some properties replaced (in place, keeping their position) and some added. */
export function reshaped(schema: TObject, replace: TProperties, options: object = {}): TObject {
  const properties: TProperties = { ...schema.properties, ...replace };
  return Type.Object(properties, {
    title: schema.title,
    description: schema.description,
    ...options,
  });
}

/** `schema` without some properties. */
export function without(schema: TObject, names: readonly string[]): TObject {
  const properties: TProperties = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!names.includes(name)) properties[name] = property;
  }
  return Type.Object(properties, { title: schema.title, description: schema.description });
}

/** A money field of v2.4 and later: major units, a JSON number. */
export function money(description: string): TSchema {
  return Type.Number({
    description: `${description}, in major units of the organisation currency (9.99 USD), a decimal number.`,
  });
}
