import type { Bundle } from './bundle.js';
import { countryByIso } from './countries.js';
import { BUNDLE_NAME_PATTERN, bundleDescription } from './naming.js';

// Validation of one imported bundle, whatever the file format: JSON gives typed values, CSV
// gives strings that are converted first (see import-file.ts). Every problem is reported, each
// naming its field.

export const SPEEDS = ['2G', '3G', '4G', '5G'] as const;
export const MAX_DURATION_DAYS = 3650;

/** The fields of an imported bundle, before validation. */
export const BUNDLE_FIELDS = [
  'name',
  'description',
  'groups',
  'countries',
  'roamingEnabled',
  'dataAmount',
  'duration',
  'speed',
  'autostart',
  'unlimited',
  'price',
] as const;
export type BundleField = (typeof BUNDLE_FIELDS)[number];
export const REQUIRED_FIELDS: readonly BundleField[] = [
  'name',
  'groups',
  'countries',
  'duration',
  'price',
];

export type RawBundle = Partial<Record<BundleField, unknown>>;

export type Checked = { bundle: Bundle; problems?: undefined } | { problems: string[] };

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function countryCodes(field: string, value: unknown, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push(`${field}: must be a list of ISO 3166-1 alpha-2 codes`);
    return [];
  }
  const codes: string[] = [];
  for (const item of value) {
    const code =
      typeof item === 'string'
        ? item
        : typeof item === 'object' && item !== null && 'iso' in item
          ? (item as { iso: unknown }).iso
          : undefined;
    if (typeof code !== 'string') {
      problems.push(`${field}: ${show(item)} is neither an ISO code nor a country with an iso`);
      continue;
    }
    const iso = code.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(iso) || countryByIso(iso) === undefined) {
      problems.push(`${field}: unknown country code ${show(code)}`);
      continue;
    }
    if (!codes.includes(iso)) codes.push(iso);
  }
  return codes;
}

function integer(field: string, value: unknown, min: number, problems: string[]): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    problems.push(`${field}: must be a whole number >= ${min}, got ${show(value)}`);
    return 0;
  }
  return value;
}

function boolean(field: string, value: unknown, fallback: boolean, problems: string[]): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    problems.push(`${field}: must be true or false, got ${show(value)}`);
    return fallback;
  }
  return value;
}

function strings(field: string, value: unknown, problems: string[]): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.push(`${field}: must be a list of strings`);
    return [];
  }
  return [...new Set((value as string[]).map((v) => v.trim()).filter((v) => v !== ''))];
}

export function checkBundle(raw: RawBundle): Checked {
  const problems: string[] = [];
  for (const field of REQUIRED_FIELDS) {
    if (raw[field] === undefined) problems.push(`${field}: is required`);
  }
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (raw.name !== undefined && !BUNDLE_NAME_PATTERN.test(name)) {
    problems.push(
      `name: ${show(raw.name)} must be 1 to 100 letters, digits, "_", "-" or ".", starting with a letter or digit`,
    );
  }
  const groups = raw.groups === undefined ? [] : strings('groups', raw.groups, problems);
  if (raw.groups !== undefined && groups.length === 0 && Array.isArray(raw.groups)) {
    problems.push('groups: must name at least one group');
  }
  if (groups.some((g) => g.length > 100))
    problems.push('groups: a group name is over 100 characters');
  const countries = countryCodes('countries', raw.countries, problems);
  if (raw.countries !== undefined && countries.length === 0 && Array.isArray(raw.countries)) {
    problems.push('countries: must name at least one base country');
  }
  const roaming = countryCodes('roamingEnabled', raw.roamingEnabled, problems).filter(
    (iso) => !countries.includes(iso),
  );
  const unlimited = boolean('unlimited', raw.unlimited, false, problems);
  let dataAmount = -1;
  if (unlimited) {
    if (raw.dataAmount !== undefined && raw.dataAmount !== -1) {
      problems.push(
        `dataAmount: must be -1 (or left out) for an unlimited bundle, got ${show(raw.dataAmount)}`,
      );
    }
  } else if (raw.dataAmount === undefined) {
    problems.push('dataAmount: is required unless unlimited is true');
  } else {
    dataAmount = integer('dataAmount', raw.dataAmount, 1, problems);
  }
  const duration = raw.duration === undefined ? 0 : integer('duration', raw.duration, 1, problems);
  if (duration > MAX_DURATION_DAYS)
    problems.push(`duration: must be at most ${MAX_DURATION_DAYS} days`);
  const price = raw.price === undefined ? 0 : integer('price', raw.price, 0, problems);
  const speed = raw.speed === undefined ? ['4G'] : strings('speed', raw.speed, problems);
  const badSpeed = speed.filter((s) => !(SPEEDS as readonly string[]).includes(s));
  if (badSpeed.length > 0)
    problems.push(`speed: ${badSpeed.map(show).join(', ')} not among ${SPEEDS.join(', ')}`);
  if (raw.speed !== undefined && speed.length === 0 && Array.isArray(raw.speed)) {
    problems.push(`speed: must name at least one of ${SPEEDS.join(', ')}`);
  }
  const autostart = boolean('autostart', raw.autostart, true, problems);
  let description = '';
  if (raw.description !== undefined && typeof raw.description !== 'string') {
    problems.push('description: must be a string');
  } else if (typeof raw.description === 'string' && raw.description.length > 500) {
    problems.push('description: must be at most 500 characters');
  } else {
    description = typeof raw.description === 'string' ? raw.description.trim() : '';
  }
  if (problems.length > 0) return { problems };
  if (description === '') {
    const area =
      countries.length === 1
        ? (countryByIso(countries[0] ?? '')?.name ?? '')
        : `${countries.length} countries`;
    description = bundleDescription(
      unlimited ? 'Unlimited' : `${dataAmount / 1000}GB`,
      duration,
      area,
    );
  }
  return {
    bundle: {
      name,
      description,
      groups,
      countries,
      roaming,
      dataAmount,
      duration,
      speed: SPEEDS.filter((s) => speed.includes(s)),
      autostart,
      unlimited,
      price,
    },
  };
}
