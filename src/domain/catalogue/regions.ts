import type { Bundle } from './bundle.js';
import { countryByIso } from './countries.js';

/**
 * The region of each base country of these bundles, by the ISO code the bundle lists ('' for a
 * code the country list does not know). The store indexes bundles by it for the `region` filter.
 */
export function baseCountryRegions(bundles: readonly Bundle[]): ReadonlyMap<string, string> {
  const regions = new Map<string, string>();
  for (const b of bundles) {
    for (const iso of b.countries) {
      if (!regions.has(iso)) regions.set(iso, countryByIso(iso)?.region ?? '');
    }
  }
  return regions;
}
