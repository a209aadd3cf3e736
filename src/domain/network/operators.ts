import { createRequire } from 'node:module';
import type { Operator } from 'mcc-mnc-list';
import { countryByIso } from '../catalogue/countries.js';

// Real mobile operators (MCC/MNC, brand) from the maintained mcc-mnc-list package, joined to the
// countries of world-countries. Only operational national networks of a known country are kept.

export interface NetworkOperator {
  readonly mcc: string;
  readonly mnc: string;
  readonly name: string;
  /** The operating company, e.g. "Telefónica Europe" for the brand "O2 (UK)". */
  readonly operator: string;
  readonly country: string; // ISO2
  /** Network generations its bands offer: 2G, 3G, 4G, 5G. */
  readonly speed: readonly string[];
  /** Runs its own radio network (not an MVNO), so a visiting eSIM would register on it. */
  readonly radio: boolean;
}

const GENERATIONS: readonly [RegExp, string][] = [
  [/GSM/, '2G'],
  [/UMTS|CDMA2000|TD-SCDMA/, '3G'],
  [/LTE/, '4G'],
  [/5G/, '5G'],
];

function speedOf(bands: string): string[] {
  return GENERATIONS.filter(([pattern]) => pattern.test(bands)).map(([, speed]) => speed);
}

interface Operators {
  readonly byCountry: Map<string, NetworkOperator[]>;
  readonly byCode: Map<string, NetworkOperator>;
}

// Read on first use: the package's data is 0.9 MB of JSON, which a start need not parse.
let table: Operators | undefined;

function operators(): Operators {
  if (table !== undefined) return table;
  const list = createRequire(import.meta.url)('mcc-mnc-list/mcc-mnc-list.json') as Operator[];
  const byCountry = new Map<string, NetworkOperator[]>();
  const byCode = new Map<string, NetworkOperator>();
  for (const o of list) {
    if (o.status !== 'Operational' || o.type !== 'National') continue;
    if (!/^\d{3}$/.test(o.mcc) || !/^\d{2,3}$/.test(o.mnc)) continue;
    const country = countryByIso(o.countryCode ?? '');
    if (country === undefined) continue;
    const name = (o.brand ?? '').trim() || (o.operator ?? '').trim();
    if (name === '') continue;
    const bands = (o.bands ?? '').trim();
    const radio = /GSM|UMTS|LTE|5G/.test(bands) && !/MVNO/i.test(bands);
    const op: NetworkOperator = {
      mcc: o.mcc,
      mnc: o.mnc,
      name,
      operator: (o.operator ?? '').trim() || name,
      country: country.iso,
      speed: speedOf(bands),
      radio,
    };
    if (byCode.has(op.mcc + op.mnc)) continue;
    byCode.set(op.mcc + op.mnc, op);
    const ops = byCountry.get(op.country) ?? [];
    ops.push(op);
    byCountry.set(op.country, ops);
  }
  table = { byCountry, byCode };
  return table;
}

/** Operators a visiting eSIM can register on: radio networks first, MVNOs only if none. */
export function operatorsIn(country: string): readonly NetworkOperator[] {
  const all = operators().byCountry.get(country.toUpperCase()) ?? [];
  const radio = all.filter((o) => o.radio);
  return radio.length > 0 ? radio : all;
}

export function operatorByCode(mcc: string, mnc: string): NetworkOperator | undefined {
  return operators().byCode.get(mcc + mnc);
}

/** ISO2 codes of every country with at least one operator, sorted. */
export function operatorCountries(): readonly string[] {
  return [...operators().byCountry.keys()].sort();
}
