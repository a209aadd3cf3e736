import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { consumptionPrices } from '../../../domain/catalogue/consumption-prices.js';
import type { CountryPrices } from '../../../domain/catalogue/consumption-prices.js';
import { catalogueVersion } from '../../../domain/catalogue/catalogue-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { toMajorText } from '../../versions/money.js';

// GET /catalogue/prices (the live service's v2.5 "Consumption – Get Prices"). Only v2.5 serves
// it, so it writes money as v2.5 does: a decimal string in major units.

const Country = Type.Object({
  iso: Type.String({ description: 'ISO 3166-1 alpha-2 code.' }),
  name: Type.String({ description: 'Country name.' }),
});

const Price = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'Identifies the price of this country and profile; the same on every read.',
  }),
  price: Type.String({
    description:
      'Price of 1000 MB of data, major units of `currency` as a decimal string (e.g. "2.28").',
  }),
  currency: Type.String({ description: 'ISO 4217 code: the organisation currency.' }),
  profile: Type.String({
    description:
      'The bundle group of the organisation the price is of (e.g. Standard eSIM Bundles).',
  }),
  country: Country,
});

const ISO = 'GB';
const EXAMPLE_PRICE = {
  id: '3f0b8c4e-2d1a-5b7c-9e6f-0a1b2c3d4e5f',
  price: '2.28',
  currency: 'USD',
  profile: 'Standard eSIM Bundles',
  country: { iso: ISO, name: 'United Kingdom' },
};

const schema = {
  tags: ['Catalogue'],
  operationId: 'listConsumptionPrices',
  summary: 'Consumption prices by country',
  description:
    'For an organisation on Consumption billing: in each country that is the base country of a ' +
    'bundle of its groups, per group (the profile), the price of 1000 MB: what the group’s ' +
    'cheapest bundle there costs per 1000 MB, rounded up to the currency’s minor unit. Unlimited ' +
    'bundles have no such price. Countries in ISO order, profiles by name; no paging (one entry ' +
    'per country). `hash` is the SHA-256 (hex) of the `prices` array as sent: it changes exactly ' +
    'when a price does. An organisation on FixedCost billing gets 403 consumption_billing_only.',
  security: apiKeySecurity,
  response: {
    200: Type.Object(
      {
        hash: Type.String({ description: 'SHA-256 of the price data (the prices array), hex.' }),
        prices: Type.Array(
          Type.Object({
            country: Country,
            prices: Type.Array(Price, { description: 'One price per profile.' }),
          }),
        ),
      },
      {
        description: 'The consumption prices.',
        example: {
          hash: createHash('sha256')
            .update(JSON.stringify([{ country: EXAMPLE_PRICE.country, prices: [EXAMPLE_PRICE] }]))
            .digest('hex'),
          prices: [{ country: EXAMPLE_PRICE.country, prices: [EXAMPLE_PRICE] }],
        },
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

interface Answer {
  readonly hash: string;
  readonly prices: readonly unknown[];
}

/** The answer to these countries' prices: money as v2.5 writes it, and the hash of the array. */
function answerOf(countries: readonly CountryPrices[]): Answer {
  const prices = countries.map((c) => ({
    country: c.country,
    prices: c.prices.map((p) => ({
      id: p.id,
      price: toMajorText(p.price, p.currency),
      currency: p.currency,
      profile: p.profile,
      country: p.country,
    })),
  }));
  // The serialiser writes these fields in this order, so the hash is of the bytes sent.
  return { hash: createHash('sha256').update(JSON.stringify(prices)).digest('hex'), prices };
}

// The prices are a function of the catalogue version, the groups and the currency, and reading
// them aggregates the whole catalogue (tens of milliseconds): answers are kept per groups and
// currency while the catalogue version (one row, read by every request) is unchanged.
const CACHE_ENTRIES = 64;

export function registerConsumptionPrices(app: Api, deps: AppDeps): void {
  const db = deps.store.db;
  const cache = new Map<string, { version: number; answer: Answer }>();
  app.get('/catalogue/prices', { schema }, async (request) => {
    const org = request.organisation;
    const key = `${org.currency}\n${org.groups.join('\n')}`;
    const version = await catalogueVersion(db);
    const cached = cache.get(key);
    // Only an organisation on Consumption billing is answered; the use case refuses the others.
    if (cached?.version === version && org.billingType === 'Consumption') return cached.answer;
    const answer = answerOf(await consumptionPrices(db, org));
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(key, { version, answer });
    return answer;
  });
}
