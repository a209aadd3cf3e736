import { createRequire } from 'node:module';
import type { Country } from 'world-countries';

// Country names, ISO codes and regions come from the maintained world-countries package.

export interface CountryInfo {
  readonly iso: string;
  readonly name: string;
  readonly region: string;
  readonly subregion: string;
  readonly callingCode: string;
}

const countries = createRequire(import.meta.url)('world-countries/countries.json') as Country[];
const byIso = new Map<string, CountryInfo>();
for (const c of countries) {
  const root = c.idd.root ?? '';
  const suffix = c.idd.suffixes?.length === 1 ? (c.idd.suffixes[0] ?? '') : '';
  byIso.set(c.cca2, {
    iso: c.cca2,
    name: c.name.common,
    region: c.region,
    subregion: c.subregion,
    callingCode: (root + suffix).replace('+', ''),
  });
}

export function countryByIso(iso: string): CountryInfo | undefined {
  return byIso.get(iso.toUpperCase());
}

export function allCountries(): readonly CountryInfo[] {
  return [...byIso.values()];
}

export const REGIONS = ['Africa', 'Americas', 'Asia', 'Europe', 'Oceania', 'Antarctic'] as const;
