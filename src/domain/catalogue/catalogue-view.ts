import type { Bundle } from './bundle.js';
import { allCountries } from './countries.js';

// The API shape of a catalogue bundle (spec "Bundle"): lists of ISO codes become Country objects.

export interface CountryView {
  readonly name: string;
  readonly region: string;
  readonly iso: string;
}

export interface CatalogueItem {
  readonly name: string;
  readonly description: string;
  readonly groups: readonly string[];
  readonly countries: readonly CountryView[];
  readonly dataAmount: number;
  readonly duration: number;
  readonly speed: readonly string[];
  readonly autostart: boolean;
  readonly unlimited: boolean;
  readonly roamingEnabled: readonly CountryView[];
  readonly price: number;
  /** Live field (later versions): how the bundle is charged. Every bundle here is FixedCost. */
  readonly billingType: 'FixedCost';
}

// Built once from the package data, on first use: the list endpoint maps thousands of codes a
// second.
let countryViews: Map<string, CountryView> | undefined;

export function countryView(iso: string): CountryView {
  countryViews ??= new Map<string, CountryView>(
    allCountries().map((c) => [
      c.iso,
      Object.freeze({ name: c.name, region: c.region, iso: c.iso }),
    ]),
  );
  return countryViews.get(iso) ?? { name: iso, region: '', iso };
}

export function catalogueItem(bundle: Bundle): CatalogueItem {
  return {
    name: bundle.name,
    description: bundle.description,
    groups: bundle.groups,
    countries: bundle.countries.map(countryView),
    dataAmount: bundle.unlimited ? -1 : bundle.dataAmount,
    duration: bundle.duration,
    speed: bundle.speed,
    autostart: bundle.autostart,
    unlimited: bundle.unlimited,
    roamingEnabled: bundle.roaming.map(countryView),
    price: bundle.price,
    billingType: 'FixedCost',
  };
}
