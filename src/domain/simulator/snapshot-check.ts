import type { ColumnMeaning, ColumnShape } from '../../store/snapshot.js';
import type {
  DeferredKind,
  DeferredStatus,
  EventStatus,
  IdempotencyState,
  LedgerKind,
  OrderSource,
  OrderStatus,
  ProfileStatus,
  TopUpStatus,
} from '../../store/schema.js';
import type { EsimState } from '../esims/esim.js';
import { checkAllowList } from '../access/ip-allow-list.js';
import { isValidIccid } from '../esims/esim-issuer.js';
import { BUNDLE_STATES } from '../esims/lifecycle/states.js';
import { badRequest } from '../errors/error-codes.js';
import { BILLING_TYPES, CALLBACK_VERSIONS } from '../organisations/organisation.js';
import { BUSINESS_TYPES, TAX_LIABLE, USER_ROLES } from '../organisations/organisation-changes.js';
import { isWellFormedApiKey } from '../../security/api-keys.js';
import { SERVICE_MODE_KEY } from '../../store/service-mode.js';

// What a snapshot must be before an import writes any of it (snapshot.ts): every table one of
// this simulator's, every row an object of its columns, every value of its column's type in
// this database (an integer a safe integer, a time an RFC 3339 time, ...), and the values the
// API validates held to the API's rules: balances whole minor units in range, allow-lists and
// groups as the API stores them, closed lists (states, roles, versions) one of their values.
// A value that breaks a rule is a 400 naming it, e.g. `tables.organisations[0].balance: ...`.
// What only the rows together can show (foreign keys, the ledger summing to the balances) is
// checked by the database and `verifyLedger` inside the import's transaction.

type Row = Record<string, unknown>;
/** A problem with a value, or undefined when it is fine. */
type Rule = (value: unknown) => string | undefined;

const MAX_MONEY = Number.MAX_SAFE_INTEGER;

const isInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value);

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const integerIn =
  (min: number, max: number, what = 'a whole number'): Rule =>
  (value) =>
    isInteger(value) && value >= min && value <= max
      ? undefined
      : `must be ${what} from ${min} to ${max}, got ${shown(value)}`;

/** Money: the ledger's integer minor units. */
const money = integerIn(0, MAX_MONEY, 'a whole number of minor units');
const signedMoney = integerIn(-MAX_MONEY, MAX_MONEY, 'a whole number of minor units');
const flag = integerIn(0, 1, '0 or 1, as');
const count = integerIn(0, MAX_MONEY);

const oneOf =
  (allowed: readonly string[]): Rule =>
  (value) =>
    typeof value === 'string' && allowed.includes(value)
      ? undefined
      : `must be one of ${allowed.join(', ')}, got ${shown(value)}`;

const matching =
  (pattern: RegExp, what: string): Rule =>
  (value) =>
    typeof value === 'string' && pattern.test(value)
      ? undefined
      : `must be ${what}, got ${shown(value)}`;

function parsed(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== 'string') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(value) as unknown };
  } catch {
    return { ok: false };
  }
}

const jsonOf =
  (what: string, check: (json: unknown) => boolean): Rule =>
  (value) => {
    const json = parsed(value);
    return json.ok && check(json.value) ? undefined : `must be ${what}, got ${shown(value)}`;
  };

const isObject = (json: unknown): boolean =>
  typeof json === 'object' && json !== null && !Array.isArray(json);
const stringList = (json: unknown): json is string[] =>
  Array.isArray(json) && json.every((item) => typeof item === 'string');

const jsonObject = jsonOf('a JSON object', isObject);
const jsonStrings = jsonOf('a JSON array of strings', stringList);
const jsonAny = jsonOf('JSON', () => true);

/** The organisation's bundle groups as the API stores them: at least one, none empty. */
const groups = jsonOf(
  'a JSON array of at least one bundle group name',
  (json) =>
    stringList(json) && json.length > 0 && json.every((g) => g.trim() !== '' && g === g.trim()),
);

/** The IP allow-list as the API stores it: every entry checked and canonical. */
const allowList: Rule = (value) => {
  const json = parsed(value);
  if (!json.ok || !stringList(json.value)) {
    return `must be a JSON array of IP addresses and CIDR ranges, got ${shown(value)}`;
  }
  try {
    const canonical = checkAllowList(json.value);
    if (JSON.stringify(canonical) !== JSON.stringify(json.value)) {
      return `must list each entry once, as the API writes it (${shown(canonical)}), got ${shown(value)}`;
    }
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

const url: Rule = (value) => {
  if (value === '') return undefined;
  try {
    const parsedUrl = new URL(String(value));
    if (typeof value === 'string' && /^https?:$/.test(parsedUrl.protocol)) return undefined;
  } catch {
    // below
  }
  return `must be empty or an http(s) URL, got ${shown(value)}`;
};

const timeZone: Rule = (value) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: String(value) });
    return typeof value === 'string' ? undefined : `must be a time zone, got ${shown(value)}`;
  } catch {
    return `must be an IANA time zone such as Europe/London, got ${shown(value)}`;
  }
};

/** A stored password hash the sign-in can check: scrypt with parameters it accepts. */
const passwordHash: Rule = (value) => {
  if (typeof value !== 'string' || value.length > 512)
    return 'must be a scrypt hash as the portal stores them';
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/.exec(
    value,
  );
  const [n, r, p] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  const ok =
    match !== null &&
    n >= 1024 &&
    n <= 1_048_576 &&
    (n & (n - 1)) === 0 &&
    r >= 1 &&
    r <= 16 &&
    p >= 1 &&
    p <= 4;
  return ok ? undefined : 'must be a scrypt hash as the portal stores them';
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const time: Rule = (value) =>
  value === '' ||
  (typeof value === 'string' && TIME.test(value) && !Number.isNaN(Date.parse(value)))
    ? undefined
    : `must be an RFC 3339 time such as 2026-01-31T12:00:00.000Z, got ${shown(value)}`;

const currency = matching(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD');

/** The settings of the simulator's own state whose values it reads as numbers. */
const SIM_SETTINGS: Readonly<Record<string, Rule>> = {
  clock_offset_ms: (v) =>
    typeof v === 'string' && /^\d{1,15}$/.test(v)
      ? undefined
      : `must be whole milliseconds, 0 or more, got ${shown(v)}`,
  processing_delay_seconds: (v) =>
    typeof v === 'string' && /^\d{1,3}$/.test(v) && Number(v) <= 600
      ? undefined
      : `must be whole seconds from 0 to 600, got ${shown(v)}`,
  seed_generation: (v) =>
    typeof v === 'string' && /^\d{1,15}$/.test(v) ? undefined : `must be a count, got ${shown(v)}`,
};

const LEDGER_KINDS = [
  'topup',
  'order',
  'refund',
  'test_credit_grant',
  'test_credit_expiry',
  'opening',
  'adjustment',
] as const satisfies readonly LedgerKind[];

/** The API's rule of each meaning a column may have (store/snapshot.ts says which has which). */
const RULES: Readonly<Record<ColumnMeaning, (value: unknown, row: Row) => string | undefined>> = {
  id: matching(/^\S{1,100}$/, 'an id'),
  name: (v) =>
    typeof v === 'string' && v.trim() !== '' && v.trim().length <= 200
      ? undefined
      : `must be 1 to 200 characters, got ${shown(v)}`,
  currency,
  money,
  signedMoney,
  count,
  bytes: integerIn(-1, MAX_MONEY, 'a number of bytes (-1: unlimited)'),
  flag,
  time,
  day: matching(/^\d{4}-\d{2}-\d{2}$/, 'a day YYYY-MM-DD'),
  country: matching(/^([A-Z]{2})?$/, 'empty or an ISO 3166-1 alpha-2 code'),
  url,
  email: matching(EMAIL, 'an email address'),
  timeZone,
  iccid: (v) =>
    typeof v === 'string' && isValidIccid(v)
      ? undefined
      : `must be an ICCID (19 digits starting 89, Luhn check digit), got ${shown(v)}`,
  pin: matching(/^\d{4}$/, '4 digits'),
  puk: matching(/^\d{8}$/, '8 digits'),
  passwordHash,
  bundleGroups: groups,
  ipAllowList: allowList,
  stringList: jsonStrings,
  numberList: jsonOf(
    'a JSON array of numbers',
    (j) => Array.isArray(j) && j.every((n) => typeof n === 'number'),
  ),
  jsonObject,
  json: jsonAny,
  quantity: integerIn(1, MAX_MONEY),
  duration: integerIn(1, 100_000),
  httpStatus: integerIn(400, 599),
  probability: (v) =>
    typeof v === 'number' && v >= 0 && v <= 1 ? undefined : `must be 0 to 1, got ${shown(v)}`,
  latency: integerIn(0, 60_000),
  // A production service's record (store/service-mode.ts) is never a simulator's to import.
  simSetting: (v, row) =>
    row['key'] === SERVICE_MODE_KEY
      ? "is a production service's record, not a simulator setting"
      : SIM_SETTINGS[String(row['key'])]?.(v),
  callbackVersion: oneOf(CALLBACK_VERSIONS),
  billingType: oneOf(BILLING_TYPES),
  taxLiable: oneOf(TAX_LIABLE),
  businessType: oneOf(BUSINESS_TYPES),
  role: oneOf(USER_ROLES),
  orderStatus: oneOf(['completed', 'validated'] satisfies OrderStatus[]),
  orderSource: oneOf(['order', 'apply'] satisfies OrderSource[]),
  ledgerKind: oneOf(LEDGER_KINDS),
  topUpStatus: oneOf([
    'pending',
    'unknown',
    'succeeded',
    'declined',
    'failed',
  ] satisfies TopUpStatus[]),
  idempotencyState: oneOf(['running', 'done'] satisfies IdempotencyState[]),
  profileStatus: oneOf([
    'Released',
    'Downloaded',
    'Installed',
    'Unavailable',
    'Deactivated',
  ] satisfies ProfileStatus[]),
  esimState: oneOf(['active', 'suspended', 'deactivated'] satisfies EsimState[]),
  bundleState: oneOf(BUNDLE_STATES),
  eventStatus: oneOf([
    'pending',
    'delivering',
    'delivered',
    'failed',
    'undeliverable',
  ] satisfies EventStatus[]),
  deferredKind: oneOf(['order', 'apply'] satisfies DeferredKind[]),
  deferredStatus: oneOf(['queued', 'done', 'failed'] satisfies DeferredStatus[]),
};

/** A value of the column's type in this database; undefined when it is one. */
function typeProblem(value: unknown, shape: ColumnShape): string | undefined {
  switch (shape.kind) {
    case 'int32':
      return isInteger(value) && Math.abs(value) <= 2_147_483_647
        ? undefined
        : `must be a whole number from -2147483648 to 2147483647, got ${shown(value)}`;
    case 'integer':
      return isInteger(value)
        ? undefined
        : `must be a whole number within ±${Number.MAX_SAFE_INTEGER}, got ${shown(value)}`;
    case 'real':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `must be a number, got ${shown(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, got ${shown(value)}`;
    case 'blob': {
      const encoded = value as { $base64?: unknown } | null;
      return typeof encoded === 'object' &&
        encoded !== null &&
        Object.keys(encoded).length === 1 &&
        typeof encoded.$base64 === 'string' &&
        /^[A-Za-z0-9+/]*={0,2}$/.test(encoded.$base64)
        ? undefined
        : `must be {"$base64": "<base64>"}, got ${shown(value)}`;
    }
    case 'text':
      return typeof value === 'string' ? undefined : `must be a string, got ${shown(value)}`;
  }
}

function checkRow(
  table: string,
  index: number,
  row: unknown,
  columns: ReadonlyMap<string, ColumnShape>,
): void {
  const at = `snapshot tables.${table}[${index}]`;
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw badRequest(`${at}: must be an object of column names to values`, 'validation_failed');
  }
  const record = row as Row;
  for (const name of Object.keys(record)) {
    if (!columns.has(name)) {
      throw badRequest(`${at}.${name}: ${table} has no column ${name}`, 'validation_failed');
    }
  }
  for (const [name, shape] of columns) {
    const field = `${at}.${name}`;
    const present = Object.hasOwn(record, name);
    const value = record[name];
    if (!present || value === null) {
      if (present ? shape.nullable : shape.optional) continue;
      throw badRequest(`${field}: is required`, 'validation_failed');
    }
    const problem =
      typeProblem(value, shape) ??
      (shape.meaning === undefined ? undefined : RULES[shape.meaning](value, record));
    if (problem !== undefined) throw badRequest(`${field}: ${problem}`, 'validation_failed');
  }
}

/**
 * Checks every table, row and value of a snapshot against this database's columns and the API's
 * rules, and its API keys against the organisations; a 400 names the first value that fails.
 */
export function checkSnapshotContent(
  tables: Readonly<Record<string, readonly unknown[]>>,
  apiKeys: Readonly<Record<string, unknown>>,
  columns: ReadonlyMap<string, ReadonlyMap<string, ColumnShape>>,
): void {
  for (const [table, rows] of Object.entries(tables)) {
    const shapes = columns.get(table);
    if (shapes === undefined) {
      throw badRequest(
        `snapshot tables.${table}: not a table a snapshot holds`,
        'validation_failed',
      );
    }
    rows.forEach((row, index) => checkRow(table, index, row, shapes));
  }
  const keys = new Map<string, number>();
  (tables['organisations'] ?? []).forEach((row, index) => {
    const id = String((row as Row)['id']);
    const key = apiKeys[id];
    if (typeof key !== 'string' || !isWellFormedApiKey(key)) {
      throw badRequest(
        `snapshot apiKeys.${id}: the key of tables.organisations[${index}] must be esim_ followed by 43 base64url characters`,
        'validation_failed',
      );
    }
    const earlier = keys.get(key);
    if (earlier !== undefined) {
      throw badRequest(
        `snapshot apiKeys.${id}: the same key as tables.organisations[${earlier}]`,
        'validation_failed',
      );
    }
    keys.set(key, index);
  });
}
