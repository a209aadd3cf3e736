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

// Read on first use: the package's data is 1.4 MB of JSON, which a start need not parse.
let table: Map<string, CountryInfo> | undefined;

function byIso(): Map<string, CountryInfo> {
  if (table !== undefined) return table;
  const countries = createRequire(import.meta.url)('world-countries/countries.json') as Country[];
  table = new Map<string, CountryInfo>();
  for (const c of countries) {
    const root = c.idd.root ?? '';
    const suffix = c.idd.suffixes?.length === 1 ? (c.idd.suffixes[0] ?? '') : '';
    table.set(c.cca2, {
      iso: c.cca2,
      name: c.name.common,
      region: c.region,
      subregion: c.subregion,
      callingCode: (root + suffix).replace('+', ''),
    });
  }
  return table;
}

export function countryByIso(iso: string): CountryInfo | undefined {
  return byIso().get(iso.toUpperCase());
}

export function allCountries(): readonly CountryInfo[] {
  return [...byIso().values()];
}

export const REGIONS = ['Africa', 'Americas', 'Asia', 'Europe', 'Oceania', 'Antarctic'] as const;
