import { REGIONS, countryByIso } from './countries.js';
import { badRequest } from '../errors/error-codes.js';
import type {
  CatalogueFilter,
  CatalogueOrder,
} from '../../store/repositories/catalogue-repository.js';

// GET /catalogue query semantics (docs/catalogue.md). The route schema has already checked
// types, ranges and enums; this turns the values into a store filter and checks what a schema
// cannot (known country codes and regions).

export const DEFAULT_PER_PAGE = 50;
// Sync jobs page with 1000 and 5000 (docs/catalogue.md has the measured sizes and times).
export const MAX_PER_PAGE = 5000;

export interface CatalogueQuery {
  readonly page?: string;
  readonly perPage?: number;
  readonly direction?: 'asc' | 'desc';
  /** `bundleName` is v2.1's spelling of `name`. */
  readonly orderBy?: CatalogueOrder | 'bundleName';
  readonly description?: string;
  /** The description matched whole (case-insensitive, `*` an ordinary character). */
  readonly descriptionExact?: boolean;
  readonly group?: string;
  readonly countries?: string;
  readonly region?: string;
  /** v2.1's name filter (`filter` with `filterBy=bundleName`): matched as `description` is. */
  readonly filter?: string;
  /** The name matched whole (case-insensitive, `*` an ordinary character). */
  readonly filterExact?: boolean;
}

/** The LIKE pattern of a text filter, or undefined for none (description's rules). */
function textPattern(text: string | undefined, exact: boolean | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (exact === true) return exactDescriptionPattern(text);
  return text === '' ? undefined : descriptionPattern(text);
}

const REGION_BY_LOWER = new Map(REGIONS.map((r) => [r.toLowerCase(), r]));

/** Comma-separated ISO 3166-1 alpha-2 codes, upper-cased and de-duplicated; empty items are ignored. */
export function parseCountryList(raw: string): string[] {
  const codes = new Set<string>();
  for (const part of raw.split(',')) {
    const code = part.trim().toUpperCase();
    if (code === '') continue;
    if (!/^[A-Z]{2}$/.test(code) || countryByIso(code) === undefined) {
      throw badRequest(
        `query parameter countries: "${part.trim()}" is not an ISO 3166-1 alpha-2 country code`,
      );
    }
    codes.add(code);
  }
  return [...codes];
}

/**
 * The LIKE pattern for a description search: case-insensitive; `*` matches any run of characters
 * and anchors the pattern at both ends; without `*` the text matches anywhere.
 */
export function descriptionPattern(raw: string): string {
  const escaped = raw.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return escaped.includes('*') ? escaped.replace(/\*+/g, '%') : `%${escaped}%`;
}

/** The LIKE pattern matching exactly this description, case-insensitive. */
export function exactDescriptionPattern(raw: string): string {
  return raw.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The store filter for a query by an organisation with the given groups, or undefined when the
 * answer is certainly empty (the organisation has no groups). A group the organisation does not
 * have is a 400 naming the groups it has: an empty answer would look like an empty catalogue.
 */
export function catalogueFilter(
  query: CatalogueQuery,
  organisationGroups: readonly string[],
): CatalogueFilter | undefined {
  const page = Number(query.page ?? '1');
  if (!Number.isSafeInteger(page) || page < 1) {
    throw badRequest('query parameter page must be a whole number >= 1');
  }
  const perPage = query.perPage ?? DEFAULT_PER_PAGE;
  let groups = organisationGroups;
  if (query.group !== undefined && query.group !== '') {
    if (!organisationGroups.includes(query.group)) {
      const mine = organisationGroups.length === 0 ? 'none' : organisationGroups.join(', ');
      throw badRequest(
        `query parameter group: "${query.group.slice(0, 100)}" is not a group of this organisation (case-sensitive); its groups: ${mine}`,
        'unknown_group',
      );
    }
    groups = [query.group];
  }
  if (groups.length === 0) return undefined;
  let region: string | undefined;
  if (query.region !== undefined && query.region.trim() !== '') {
    const known = REGION_BY_LOWER.get(query.region.trim().toLowerCase());
    if (known === undefined) {
      throw badRequest(`query parameter region must be one of ${REGIONS.join(', ')}`);
    }
    region = known.toLowerCase();
  }
  const countries = query.countries === undefined ? undefined : parseCountryList(query.countries);
  return {
    groups,
    countries: countries !== undefined && countries.length > 0 ? countries : undefined,
    region,
    descriptionLike: textPattern(query.description, query.descriptionExact),
    nameLike: textPattern(query.filter, query.filterExact),
    orderBy: query.orderBy === undefined || query.orderBy === 'bundleName' ? 'name' : query.orderBy,
    direction: query.direction ?? 'asc',
    limit: perPage,
    offset: (page - 1) * perPage,
  };
}
