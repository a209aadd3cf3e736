import { createRequire } from 'node:module';
import type { Country as PackageCountry } from 'world-countries';
import type { Bundle } from './bundle.js';
import { allCountries, countryByIso } from './countries.js';
import type { RegionDefinition, Tier } from './built-in-data.js';
import {
  COUNTRY_ROAMING,
  EXCLUDED,
  IOT_COUNTRIES,
  PROMO_COUNTRIES,
  REGIONS,
  SIZES_BY_TIER,
  TERRITORIES,
  TIER_1,
  UNLIMITED_DAYS,
  UNLIMITED_PLUS_COUNTRIES,
} from './built-in-data.js';
import type { UnlimitedTier } from './naming.js';
import {
  GROUP_IOT,
  GROUP_PROMO,
  GROUP_REGIONAL,
  GROUP_STANDARD,
  UNLIMITED_TIERS,
  fixedDescription,
  fixedName,
  unlimitedDescription,
  unlimitedName,
} from './naming.js';

// The built-in catalogue is a pure function of the country data and the tables in
// built-in-data.ts: the same names, prices and contents on every start, on every machine.

const MB_PER_GB = 1000;

/** Price per GB in cents for a country bundle, by tier. */
const CENTS_PER_GB: Readonly<Record<Tier, number>> = { 1: 110, 2: 230, 3: 480, 4: 900 };
/** Price per day in cents for unlimited bundles on tier 1 markets. */
const UNLIMITED_CENTS_PER_DAY: Readonly<Record<UnlimitedTier, number>> = {
  UL: 190,
  ULE: 240,
  ULP: 420,
};

const SPEEDS: Readonly<Record<Tier, readonly string[]>> = {
  1: ['4G', '5G'],
  2: ['3G', '4G', '5G'],
  3: ['2G', '3G', '4G'],
  4: ['2G', '3G', '4G'],
};

const TIER_1_SET = new Set(TIER_1);

// UN membership decides which sovereign states are served; CountryInfo does not carry it.
let unMembers: Set<string> | undefined;

function tierOf(iso: string): Tier {
  if (TIER_1_SET.has(iso)) return 1;
  const c = countryByIso(iso);
  if (c === undefined) return 4;
  if (c.region === 'Europe') return 2;
  if (c.region === 'Asia') return c.subregion === 'Central Asia' ? 3 : 2;
  if (c.region === 'Americas') return c.subregion === 'Caribbean' ? 3 : 2;
  if (c.region === 'Africa') return c.subregion === 'Northern Africa' ? 2 : 3;
  return 4; // Oceania outside Australia and New Zealand
}

/** FNV-1a: a stable per-country variation of a few percent, so prices are not all alike. */
function variation(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return 0.92 + (hash % 1601) / 10_000; // 0.92 .. 1.08
}

/** Larger bundles cost less per GB; longer validity costs a little more. */
function fixedPrice(centsPerGb: number, gb: number, days: number, key: string): number {
  return Math.max(99, Math.round((centsPerGb * gb ** 0.82 + days * 2) * variation(key)));
}

function unlimitedPrice(tier: UnlimitedTier, days: number, key: string): number {
  return Math.round(UNLIMITED_CENTS_PER_DAY[tier] * days ** 0.88 * variation(key));
}

/** Served base countries, in ISO order. */
export function servedCountries(): string[] {
  const excluded = new Set(EXCLUDED);
  const territories = new Set(TERRITORIES);
  return allCountries()
    .filter((c) => c.region !== 'Antarctic' && !excluded.has(c.iso))
    .filter((c) => territories.has(c.iso) || isUnMember(c.iso))
    .map((c) => c.iso)
    .sort();
}

function isUnMember(iso: string): boolean {
  unMembers ??= new Set(
    (createRequire(import.meta.url)('world-countries/countries.json') as PackageCountry[])
      .filter((c) => c.unMember)
      .map((c) => c.cca2),
  );
  return unMembers.has(iso);
}

function countryName(iso: string): string {
  return countryByIso(iso)?.name ?? iso;
}

function bundle(
  fields: Omit<Bundle, 'autostart' | 'unlimited'> & { autostart?: boolean; unlimited?: boolean },
): Bundle {
  return { autostart: true, unlimited: false, ...fields };
}

function countryBundles(iso: string): Bundle[] {
  const tier = tierOf(iso);
  const name = countryName(iso);
  const roaming = COUNTRY_ROAMING[iso] ?? [];
  const out: Bundle[] = [];
  for (const [gb, days] of SIZES_BY_TIER[tier]) {
    out.push(
      bundle({
        name: fixedName(gb, days, iso),
        description: fixedDescription(gb, days, name),
        groups: [GROUP_STANDARD],
        countries: [iso],
        roaming,
        dataAmount: gb * MB_PER_GB,
        duration: days,
        speed: SPEEDS[tier],
        price: fixedPrice(CENTS_PER_GB[tier], gb, days, iso),
      }),
    );
  }
  if (tier === 1) {
    const tiers: UnlimitedTier[] = UNLIMITED_PLUS_COUNTRIES.includes(iso)
      ? ['UL', 'ULE', 'ULP']
      : ['UL', 'ULE'];
    for (const t of tiers) {
      for (const days of UNLIMITED_DAYS) {
        out.push(unlimitedBundle(t, days, iso, name, [iso], roaming, SPEEDS[tier]));
      }
    }
  }
  return out;
}

function unlimitedBundle(
  tier: UnlimitedTier,
  days: number,
  area: string,
  label: string,
  countries: readonly string[],
  roaming: readonly string[],
  speed: readonly string[],
): Bundle {
  return bundle({
    name: unlimitedName(tier, days, area),
    description: unlimitedDescription(tier, days, label),
    groups: [UNLIMITED_TIERS[tier].group],
    countries,
    roaming,
    dataAmount: -1,
    duration: days,
    speed,
    unlimited: true,
    price: unlimitedPrice(tier, days, area),
  });
}

function regionalBundles(region: RegionDefinition): Bundle[] {
  const speed = ['3G', '4G', '5G'];
  const out = region.sizes.map(([gb, days]) =>
    bundle({
      name: fixedName(gb, days, region.code),
      description: fixedDescription(gb, days, region.label),
      groups: [GROUP_STANDARD, GROUP_REGIONAL],
      countries: region.base,
      roaming: region.roaming,
      dataAmount: gb * MB_PER_GB,
      duration: days,
      speed,
      price: fixedPrice(region.centsPerGb, gb, days, region.code),
    }),
  );
  for (const days of region.unlimitedDays) {
    const b = unlimitedBundle(
      'UL',
      days,
      region.code,
      region.label,
      region.base,
      region.roaming,
      speed,
    );
    out.push({ ...b, groups: [...b.groups, GROUP_REGIONAL] });
  }
  return out;
}

function iotBundles(iso: string): Bundle[] {
  const name = countryName(iso);
  return (
    [
      [1, 365],
      [5, 365],
    ] as const
  ).map(([gb, days]) =>
    bundle({
      name: fixedName(gb, days, iso),
      description: fixedDescription(gb, days, name),
      groups: [GROUP_IOT],
      countries: [iso],
      roaming: [],
      dataAmount: gb * MB_PER_GB,
      duration: days,
      speed: ['2G', '3G', '4G'],
      autostart: false,
      price: fixedPrice(CENTS_PER_GB[tierOf(iso)] * 2, gb, days, `${iso}-iot`),
    }),
  );
}

function promoBundle(iso: string): Bundle {
  const [gb, days] = [2, 10];
  return bundle({
    name: fixedName(gb, days, iso),
    description: fixedDescription(gb, days, countryName(iso)),
    groups: [GROUP_PROMO],
    countries: [iso],
    roaming: COUNTRY_ROAMING[iso] ?? [],
    dataAmount: gb * MB_PER_GB,
    duration: days,
    speed: SPEEDS[tierOf(iso)],
    // Priced below the 1GB bundle of the same country.
    price: Math.round(fixedPrice(CENTS_PER_GB[tierOf(iso)], 1, 7, iso) * 0.8),
  });
}

/** The built-in catalogue, sorted by name. */
export function builtInCatalogue(): Bundle[] {
  return byName(catalogueParts().flatMap((part) => part()));
}

/**
 * The same catalogue, made part by part with `between` awaited after each: a first start makes
 * it while it answers its liveness probe (seed.ts).
 */
export async function builtInCatalogueStepwise(between: () => Promise<void>): Promise<Bundle[]> {
  const all: Bundle[] = [];
  for (const part of catalogueParts()) {
    all.push(...part());
    await between();
  }
  return byName(all);
}

/** Countries per part of the catalogue: each part is a few milliseconds of work. */
const COUNTRIES_PER_PART = 40;

function catalogueParts(): (() => Bundle[])[] {
  const countries = servedCountries();
  const parts: (() => Bundle[])[] = [];
  for (let i = 0; i < countries.length; i += COUNTRIES_PER_PART) {
    parts.push(() => countries.slice(i, i + COUNTRIES_PER_PART).flatMap(countryBundles));
  }
  return [
    ...parts,
    () => REGIONS.flatMap(regionalBundles),
    () => IOT_COUNTRIES.flatMap(iotBundles),
    () => PROMO_COUNTRIES.map(promoBundle),
  ];
}

function byName(bundles: Bundle[]): Bundle[] {
  return bundles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
