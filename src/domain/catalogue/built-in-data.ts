// The data behind the built-in catalogue: which countries are served, how well (coverage tier)
// and which multi-country products exist. Names, regions and ISO codes come from the
// world-countries package through src/domain/catalogue/countries.ts; only commercial choices live here.

/** 1 = large, cheap markets with every size; 4 = remote markets with a few small bundles. */
export type Tier = 1 | 2 | 3 | 4;

/** The 27 member states of the European Union. */
const EU27 = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
];

/** Markets with the full range (8 sizes and unlimited bundles). */
export const TIER_1: readonly string[] = [
  // European Union and the wider single market
  ...EU27,
  'GB',
  'NO',
  'IS',
  'CH',
  // Americas
  'US',
  'CA',
  'MX',
  'BR',
  'AR',
  'CL',
  'CO',
  'PE',
  // Asia and Oceania
  'JP',
  'KR',
  'CN',
  'HK',
  'TW',
  'SG',
  'MY',
  'TH',
  'ID',
  'VN',
  'PH',
  'IN',
  'AU',
  'NZ',
  // Middle East and Africa
  'TR',
  'IL',
  'AE',
  'SA',
  'QA',
  'EG',
  'MA',
  'ZA',
];

/** Not served: sanctioned destinations and networks without roaming agreements. */
export const EXCLUDED: readonly string[] = ['CU', 'IR', 'KP', 'SY'];

/** Served territories that are not UN members (the UN members are all served unless excluded). */
export const TERRITORIES: readonly string[] = [
  'AI',
  'AS',
  'AW',
  'AX',
  'BL',
  'BM',
  'BQ',
  'CW',
  'FO',
  'GF',
  'GG',
  'GI',
  'GL',
  'GP',
  'GU',
  'HK',
  'IM',
  'JE',
  'KY',
  'MF',
  'MO',
  'MP',
  'MQ',
  'MS',
  'NC',
  'PF',
  'PR',
  'PS',
  'RE',
  'SX',
  'TC',
  'TW',
  'VG',
  'VI',
  'XK',
  'YT',
];

/** Countries whose bundles also work across a border (microstates and dependencies). */
export const COUNTRY_ROAMING: Readonly<Record<string, readonly string[]>> = {
  AD: ['ES', 'FR'],
  GB: ['GG', 'IM', 'JE'],
  LI: ['AT', 'CH'],
  MC: ['FR'],
  SM: ['IT'],
  US: ['PR', 'VI'],
  VA: ['IT'],
};

/** Markets with IoT (long-validity, no autostart) bundles. */
export const IOT_COUNTRIES: readonly string[] = [
  'GB',
  'DE',
  'FR',
  'ES',
  'IT',
  'NL',
  'SE',
  'PL',
  'US',
  'CA',
  'MX',
  'BR',
  'JP',
  'AU',
  'IN',
  'ZA',
  'AE',
  'SG',
  'KR',
  'TR',
];

/** Destinations with a promotional bundle. */
export const PROMO_COUNTRIES: readonly string[] = [
  'GB',
  'FR',
  'ES',
  'IT',
  'DE',
  'PT',
  'GR',
  'US',
  'MX',
  'JP',
  'TH',
  'AE',
  'TR',
];

/** Destinations with Unlimited Plus bundles (a subset of tier 1). */
export const UNLIMITED_PLUS_COUNTRIES: readonly string[] = [
  'GB',
  'FR',
  'DE',
  'ES',
  'IT',
  'NL',
  'PT',
  'GR',
  'CH',
  'US',
  'CA',
  'MX',
  'JP',
  'KR',
  'TH',
  'SG',
  'AU',
  'AE',
  'TR',
];

export interface RegionDefinition {
  /** The region code of the bundle name, e.g. REUP in esim_1GB_7D_REUP_V2. */
  readonly code: string;
  /** The label used in descriptions, e.g. "Europe+". */
  readonly label: string;
  readonly base: readonly string[];
  readonly roaming: readonly string[];
  /** Price per GB (in cents) before the size discount. */
  readonly centsPerGb: number;
  readonly sizes: readonly (readonly [gb: number, days: number])[];
  /** Unlimited Lite durations, in days, if the region has them. */
  readonly unlimitedDays: readonly number[];
}

export const STANDARD_SIZES: readonly (readonly [number, number])[] = [
  [1, 7],
  [2, 15],
  [3, 30],
  [5, 30],
  [10, 30],
  [20, 30],
  [50, 30],
  [100, 30],
];

/** Sizes offered per coverage tier (indices into STANDARD_SIZES order). */
export const SIZES_BY_TIER: Readonly<Record<Tier, readonly (readonly [number, number])[]>> = {
  1: STANDARD_SIZES,
  2: STANDARD_SIZES.slice(0, 6),
  3: STANDARD_SIZES.slice(0, 4),
  4: [
    [1, 7],
    [3, 30],
    [5, 30],
  ],
};

export const UNLIMITED_DAYS: readonly number[] = [1, 3, 5, 7, 10, 15, 30];

const TIER_1_SET = new Set(TIER_1);

export const REGIONS: readonly RegionDefinition[] = [
  {
    code: 'REUP',
    label: 'Europe+',
    base: [...EU27, 'GB', 'NO', 'IS', 'CH', 'LI'],
    roaming: [
      'AD',
      'MC',
      'SM',
      'VA',
      'GI',
      'IM',
      'JE',
      'GG',
      'FO',
      'AX',
      'TR',
      'UA',
      'RS',
      'ME',
      'AL',
      'BA',
      'MK',
      'MD',
      'XK',
    ],
    centsPerGb: 150,
    sizes: STANDARD_SIZES,
    unlimitedDays: [3, 5, 7, 10, 15, 30],
  },
  {
    code: 'REUL',
    label: 'Europe Lite',
    base: [...EU27, 'NO', 'IS', 'LI'],
    roaming: [],
    centsPerGb: 130,
    sizes: STANDARD_SIZES,
    unlimitedDays: [],
  },
  {
    code: 'RBK',
    label: 'Balkans',
    base: ['AL', 'BA', 'BG', 'GR', 'HR', 'MK', 'ME', 'RO', 'RS', 'SI', 'MD'],
    roaming: ['XK'],
    centsPerGb: 290,
    sizes: STANDARD_SIZES,
    unlimitedDays: [],
  },
  {
    code: 'RNA',
    label: 'North America',
    base: ['US', 'CA', 'MX'],
    roaming: ['PR', 'VI'],
    centsPerGb: 260,
    sizes: STANDARD_SIZES,
    unlimitedDays: [3, 5, 7, 10, 15, 30],
  },
  {
    code: 'RLA',
    label: 'Latin America',
    base: ['AR', 'BR', 'CL', 'CO', 'CR', 'EC', 'SV', 'PE', 'UY', 'MX'],
    roaming: ['BO', 'PY', 'GT', 'HN', 'NI', 'PA'],
    centsPerGb: 340,
    sizes: STANDARD_SIZES.slice(0, 7),
    unlimitedDays: [],
  },
  {
    code: 'RCA',
    label: 'Caribbean',
    base: [
      'AG',
      'AI',
      'AW',
      'BB',
      'BM',
      'BQ',
      'CW',
      'DM',
      'DO',
      'GD',
      'JM',
      'KN',
      'KY',
      'LC',
      'MS',
      'TC',
      'TT',
      'VC',
      'VG',
    ],
    roaming: ['BS', 'HT', 'SX', 'MF', 'BL', 'GP', 'MQ'],
    centsPerGb: 650,
    sizes: STANDARD_SIZES.slice(0, 6),
    unlimitedDays: [],
  },
  {
    code: 'RAS',
    label: 'Asia',
    base: [
      'JP',
      'KR',
      'CN',
      'HK',
      'MO',
      'TW',
      'SG',
      'MY',
      'TH',
      'ID',
      'VN',
      'PH',
      'IN',
      'LK',
      'PK',
    ],
    roaming: ['KH', 'LA', 'BD', 'NP', 'UZ', 'KZ'],
    centsPerGb: 300,
    sizes: STANDARD_SIZES,
    unlimitedDays: [3, 5, 7, 10, 15, 30],
  },
  {
    code: 'RME',
    label: 'Middle East',
    base: ['AE', 'SA', 'QA', 'KW', 'BH', 'OM', 'JO', 'IL', 'TR'],
    roaming: ['EG', 'IQ'],
    centsPerGb: 410,
    sizes: STANDARD_SIZES.slice(0, 7),
    unlimitedDays: [],
  },
  {
    code: 'RAF',
    label: 'Africa',
    base: ['ZA', 'EG', 'MA', 'TN', 'KE', 'TZ', 'UG', 'NG', 'GH', 'ZM', 'MG', 'MU', 'RE'],
    roaming: ['BW', 'NA', 'SN', 'CI', 'RW'],
    centsPerGb: 690,
    sizes: STANDARD_SIZES.slice(0, 6),
    unlimitedDays: [],
  },
  {
    code: 'ROC',
    label: 'Oceania',
    base: ['AU', 'NZ'],
    roaming: ['FJ', 'NC', 'PF', 'GU'],
    centsPerGb: 170,
    sizes: STANDARD_SIZES,
    unlimitedDays: [],
  },
  {
    code: 'RGB',
    label: 'Global',
    base: TIER_1,
    roaming: [
      'UA',
      'RS',
      'KZ',
      'UZ',
      'LK',
      'PK',
      'KE',
      'TZ',
      'NG',
      'GH',
      'EC',
      'UY',
      'CR',
      'PA',
      'JO',
      'OM',
      'KW',
    ].filter((iso) => !TIER_1_SET.has(iso)),
    centsPerGb: 800,
    sizes: STANDARD_SIZES.slice(0, 6),
    unlimitedDays: [],
  },
];
