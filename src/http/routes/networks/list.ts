import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { countryNetworks } from '../../../domain/network/country-networks.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

const Network = Type.Object({
  name: Type.String({ description: 'Operating company, e.g. Telefónica Europe.' }),
  brandName: Type.String({ description: 'Brand, e.g. O2 (UK); the networkName of a location.' }),
  mcc: Type.String({ description: 'Mobile country code, 3 digits.' }),
  mnc: Type.String({ description: 'Mobile network code, 2 or 3 digits.' }),
  tagid: Type.String({ description: 'TADIG code; empty, as the operator data here has none.' }),
  speed: Type.Array(Type.String(), { description: 'Network generations: 2G, 3G, 4G, 5G.' }),
});

const CountryNetworks = Type.Object({
  name: Type.String({ description: 'ISO 3166-1 alpha-2 code of the country.' }),
  countryName: Type.String({ description: 'Country name in English (an addition).' }),
  networks: Type.Array(Network),
});

const schema = {
  tags: ['Catalogue'],
  operationId: 'listNetworks',
  summary: 'List the mobile networks of countries',
  description:
    'The networks an eSIM registers on in each country asked for: national operators with their ' +
    'own radio network (virtual operators only where a country has no other), from the operator ' +
    'data the simulated network uses. Give countries, isos or returnAll=true; an unknown ' +
    'country is a 400 naming it. Countries without a known network are listed with no networks.',
  security: apiKeySecurity,
  querystring: Type.Object({
    countries: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Comma-separated country names (English, case-insensitive) or ISO codes.',
      }),
    ),
    isos: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Comma-separated ISO 3166-1 alpha-2 codes.',
      }),
    ),
    returnAll: Type.Optional(
      Type.Boolean({ description: 'true: every country with a known network.' }),
    ),
  }),
  response: {
    200: Type.Object(
      { countryNetworks: Type.Array(CountryNetworks) },
      {
        description: 'The networks, per country in the order asked for.',
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListNetworks(app: Api, _deps: AppDeps): void {
  app.get('/networks', { schema }, async (request) => ({
    countryNetworks: countryNetworks(request.query),
  }));
}
