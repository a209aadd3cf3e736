import { operatorCountries, operatorsIn } from './operators.js';
import { allCountries, countryByIso } from '../catalogue/countries.js';
import { badRequest } from '../errors/error-codes.js';

// Networks per country (GET /networks), from the operator table (operators.ts) the simulated network uses: the
// radio networks a visiting eSIM registers on (MVNOs only where a country has no other).

export interface NetworkView {
  readonly name: string;
  readonly brandName: string;
  readonly mcc: string;
  readonly mnc: string;
  /** TADIG code; the shipped operator data has none, so it is empty. */
  readonly tagid: string;
  readonly speed: readonly string[];
}

export interface CountryNetworksView {
  /** ISO 3166-1 alpha-2, as the live service answers. */
  readonly name: string;
  readonly countryName: string;
  readonly networks: readonly NetworkView[];
}

export interface NetworksQuery {
  readonly countries?: string | undefined;
  readonly isos?: string | undefined;
  readonly returnAll?: boolean | undefined;
}

let countriesByName: Map<string, string> | undefined;

function byName(name: string): string | undefined {
  countriesByName ??= new Map(allCountries().map((c) => [c.name.toLowerCase(), c.iso]));
  return countriesByName.get(name.toLowerCase());
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Country names or ISO codes to ISO codes; 400 naming the first one that is neither. */
function resolve(values: readonly string[], field: string, namesAllowed: boolean): string[] {
  return values.map((value) => {
    const iso = countryByIso(value)?.iso ?? (namesAllowed ? byName(value) : undefined);
    if (iso === undefined) {
      throw badRequest(
        `query parameter ${field}: "${value.slice(0, 60)}" is not ${namesAllowed ? 'a country name or ' : ''}an ISO 3166-1 alpha-2 code`,
      );
    }
    return iso;
  });
}

export function countryNetworks(query: NetworksQuery): CountryNetworksView[] {
  let isos: string[];
  if (query.returnAll === true) {
    isos = [...operatorCountries()];
  } else {
    isos = [
      ...resolve(list(query.countries), 'countries', true),
      ...resolve(list(query.isos), 'isos', false),
    ];
    if (isos.length === 0) {
      throw badRequest(
        'give countries (names or ISO codes, comma-separated), isos (ISO codes, comma-separated) or returnAll=true',
      );
    }
  }
  const seen = new Set<string>();
  const result: CountryNetworksView[] = [];
  for (const iso of isos) {
    if (seen.has(iso)) continue;
    seen.add(iso);
    result.push({
      name: iso,
      countryName: countryByIso(iso)?.name ?? iso,
      networks: operatorsIn(iso).map((o) => ({
        name: o.operator,
        brandName: o.name,
        mcc: o.mcc,
        mnc: o.mnc,
        tagid: '',
        speed: o.speed,
      })),
    });
  }
  return result;
}
