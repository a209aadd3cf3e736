import type { Mode } from '../../config.js';
import { DEFAULT_GROUPS } from '../organisations/organisation-changes.js';

// Names and descriptions follow the live convention (docs/catalogue.md):
//   fixed       esim_<GB>GB_<days>D_<ISO2>_V2     "eSIM, 1GB, 7 Days, France, V2"
//   regional    esim_<GB>GB_<days>D_<REGION>_V2   REGION is an R-code such as REUP (Europe+)
//   unlimited   esim_<UL|ULE|ULP>_<days>D_<ISO2 or REGION>_V2

export const GROUP_STANDARD = DEFAULT_GROUPS[0];
export const GROUP_UNLIMITED_LITE = 'Standard Unlimited Lite';
export const GROUP_UNLIMITED_ESSENTIAL = 'Standard Unlimited Essential';
export const GROUP_UNLIMITED_PLUS = 'Standard Unlimited Plus';
export const GROUP_REGIONAL = 'Regional Bundles';
export const GROUP_IOT = 'IoT Bundles';
export const GROUP_PROMO = 'Promo';

/** Every group of the built-in catalogue. */
export const BUILT_IN_GROUPS: readonly string[] = [
  GROUP_STANDARD,
  GROUP_UNLIMITED_LITE,
  GROUP_UNLIMITED_ESSENTIAL,
  GROUP_UNLIMITED_PLUS,
  GROUP_REGIONAL,
  GROUP_IOT,
  GROUP_PROMO,
];

/**
 * The groups of a new organisation when none are given: in simulator mode every built-in group,
 * so a newcomer sees the whole catalogue (fixed, unlimited, regional, IoT, promo); in production
 * the standard group only, as an account manager would open an account.
 */
export function defaultGroupsFor(mode: Mode): readonly string[] {
  return mode === 'simulator' ? BUILT_IN_GROUPS : DEFAULT_GROUPS;
}

export type UnlimitedTier = 'UL' | 'ULE' | 'ULP';

export const UNLIMITED_TIERS: Readonly<Record<UnlimitedTier, { label: string; group: string }>> = {
  UL: { label: 'Unlimited Lite', group: GROUP_UNLIMITED_LITE },
  ULE: { label: 'Unlimited Essential', group: GROUP_UNLIMITED_ESSENTIAL },
  ULP: { label: 'Unlimited Plus', group: GROUP_UNLIMITED_PLUS },
};

/** A name that is safe in a URL path segment and in CSV without quoting. */
export const BUNDLE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export function fixedName(gb: number, days: number, area: string): string {
  return `esim_${gb}GB_${days}D_${area}_V2`;
}

export function unlimitedName(tier: UnlimitedTier, days: number, area: string): string {
  return `esim_${tier}_${days}D_${area}_V2`;
}

function daysText(days: number): string {
  return days === 1 ? '1 Day' : `${days} Days`;
}

/** A description in the live convention, e.g. "eSIM, 1GB, 7 Days, France, V2". */
export function bundleDescription(dataLabel: string, days: number, areaLabel: string): string {
  return `eSIM, ${dataLabel}, ${daysText(days)}, ${areaLabel}, V2`;
}

export function fixedDescription(gb: number, days: number, areaLabel: string): string {
  return bundleDescription(`${gb}GB`, days, areaLabel);
}

export function unlimitedDescription(tier: UnlimitedTier, days: number, areaLabel: string): string {
  return bundleDescription(UNLIMITED_TIERS[tier].label, days, areaLabel);
}
