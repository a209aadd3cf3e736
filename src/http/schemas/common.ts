import { Type } from '@sinclair/typebox';

// Shapes shared by several routes. Route-specific shapes live beside their route.

export const ErrorBody = Type.Object(
  {
    message: Type.String({
      description: 'What went wrong, naming the offending field where there is one.',
    }),
    code: Type.Optional(
      Type.String({
        description:
          'A stable machine-readable reason from the error catalogue (docs/errors.md); every error this service builds carries one.',
      }),
    ),
  },
  { $id: 'Error', title: 'Error' },
);

export const ErrorRef = Type.Ref('Error');

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const standardErrors = {
  400: { ...ErrorRef, description: 'Bad request: the message names the offending field.' },
  403: { ...ErrorRef, description: 'Missing or invalid API key.' },
  404: { ...ErrorRef, description: 'No such resource, or it belongs to another organisation.' },
  500: { ...ErrorRef, description: 'Unexpected error; no internals are exposed.' },
} as const;

export const Country = Type.Object(
  {
    name: Type.String({ description: 'Country name in English.' }),
    region: Type.String({
      description: 'Region: Africa, Americas, Asia, Europe, Oceania or Antarctic.',
    }),
    iso: Type.String({ description: 'ISO 3166-1 alpha-2 code.' }),
  },
  { $id: 'Country', title: 'Country' },
);

export const CountryRef = Type.Ref('Country');

/** The security requirement of every authenticated route. */
type Security = { [scheme: string]: readonly string[] }[];
export const apiKeySecurity: Security = [{ apiKeyAuth: [] }, { apiKeyQueryAuth: [] }];
/** POST routes: the api_key query parameter is refused there. */
export const headerOnlySecurity: Security = [{ apiKeyAuth: [] }];
