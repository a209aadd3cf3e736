import { Type } from '@sinclair/typebox';
import type { TNumber, TObject, TProperties } from '@sinclair/typebox';

// Small helpers for stating a version's schema as a difference from another's, keeping the
// static types so that a presenter's body is checked against its version's schema.

/** `schema` with some properties replaced (in place, keeping their position) and some added. */
export function reshaped<P extends TProperties, R extends TProperties>(
  schema: TObject<P>,
  replace: R,
  options: object = {},
): TObject<Omit<P, keyof R> & R> {
  const properties = { ...schema.properties, ...replace } as Omit<P, keyof R> & R;
  return Type.Object(properties, {
    title: schema.title,
    description: schema.description,
    ...options,
  });
}

/** `schema` without some properties. */
export function without<P extends TProperties, K extends keyof P & string>(
  schema: TObject<P>,
  names: readonly K[],
): TObject<Omit<P, K>> {
  const properties: TProperties = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!(names as readonly string[]).includes(name)) properties[name] = property;
  }
  return Type.Object(properties as Omit<P, K>, {
    title: schema.title,
    description: schema.description,
  });
}

/** A money field of v2.4 and later: major units, a JSON number. */
export function money(description: string): TNumber {
  return Type.Number({
    description: `${description}, in major units of the organisation currency (9.99 USD), a decimal number.`,
  });
}
