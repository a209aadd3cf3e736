import { createHash } from 'node:crypto';
import { DomainError } from '../errors/error-codes.js';
import type { Organisation } from '../organisations/organisation.js';
import { cheapestGigabytes } from '../../store/repositories/consumption-price-repository.js';
import type { Executor } from '../../store/database.js';
import { countryByIso } from './countries.js';

// Consumption prices (the live service's `GET /catalogue/prices`, v2.5): what an organisation on
// Consumption billing pays for data in each country, per profile. This service prices
// consumption from its catalogue: in each base country, each of the organisation's groups (the
// profile) costs per 1000 MB what its cheapest bundle there costs per 1000 MB, rounded up to the
// currency's minor unit (docs/versions.md).

export interface ConsumptionPrice {
  /** Stable for the country and profile: a UUID made from them. */
  readonly id: string;
  /** Minor units of `currency` per 1000 MB. */
  readonly price: number;
  readonly currency: string;
  /** The bundle group the price is of. */
  readonly profile: string;
  readonly country: { readonly iso: string; readonly name: string };
}

export interface CountryPrices {
  readonly country: { readonly iso: string; readonly name: string };
  readonly prices: readonly ConsumptionPrice[];
}

/** A UUID (version 5 layout) made from a SHA-256 of the text. */
function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The organisation's consumption prices by country (ISO order), each country's by profile. An
 * organisation on FixedCost billing is refused (403 consumption_billing_only), as live does.
 */
export async function consumptionPrices(
  db: Executor,
  org: Pick<Organisation, 'billingType' | 'groups' | 'currency'>,
): Promise<CountryPrices[]> {
  if (org.billingType !== 'Consumption') throw new DomainError('consumption_billing_only');
  const rows = await cheapestGigabytes(db, org.groups);
  const byCountry = new Map<
    string,
    { country: CountryPrices['country']; prices: ConsumptionPrice[] }
  >();
  for (const row of [...rows].sort((a, b) => byText(a.iso, b.iso) || byText(a.group, b.group))) {
    let entry = byCountry.get(row.iso);
    if (entry === undefined) {
      entry = {
        country: { iso: row.iso, name: countryByIso(row.iso)?.name ?? row.iso },
        prices: [],
      };
      byCountry.set(row.iso, entry);
    }
    entry.prices.push({
      id: uuidOf(`${row.iso}\n${row.group}`),
      // A tiny epsilon: a ratio computed in floating point that is exactly a whole minor unit
      // must not round up to the next.
      price: Math.ceil(row.perGigabyte - 1e-9),
      currency: org.currency,
      profile: row.group,
      country: entry.country,
    });
  }
  return [...byCountry.values()];
}
