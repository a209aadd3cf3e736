import type { AuditEntry } from '../../domain/audit/audit-entry.js';
import { formatDateTime, formatMoney } from '../format.js';

// What an Activity row says in words: the audit entry's details as a person reads them, not the
// JSON they are stored as (the CLI's `esim audit list --json` keeps that).

/** Where the words need the organisation: its currency, the user's time zone. */
export interface DetailContext {
  readonly currency: string;
  readonly timeZone: string;
}

/** The settings an `organisation.updated` entry names, by their stored column. */
const SETTING_NAMES: Readonly<Record<string, string>> = {
  ip_allow_list: 'IP allow-list',
  callback_url: 'callback URL',
  callback_version: 'callback version',
  tax_liable: 'tax liability',
  business_type: 'business type',
  product_description: 'product description',
  addr1: 'address',
  addr2: 'address',
  postcode: 'postcode',
  billing_type: 'billing type',
  test_credit_expiry: 'test credit expiry',
  api_key_hash: 'API key',
  api_key_enc: 'API key',
};

const text = (value: unknown): string => {
  if (value === null || value === undefined || value === '') return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(text).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => `${words(k)} ${text(v)}`)
      .join(', ');
  }
  return String(value);
};

/** camelCase or snake_case as words: `previousValidUntil` is "previous valid until". */
function words(key: string): string {
  return key
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

const str = (value: unknown): string => (typeof value === 'string' ? value : text(value));

const money = (value: unknown, ctx: DetailContext): string =>
  typeof value === 'number' ? formatMoney(value, ctx.currency) : text(value);

function settingNames(changed: unknown): string {
  if (!Array.isArray(changed)) return text(changed);
  const names = changed.map((c) => SETTING_NAMES[String(c)] ?? words(String(c)));
  return [...new Set(names)].join(', ');
}

type Describe = (d: Readonly<Record<string, unknown>>, ctx: DetailContext) => string;

const DESCRIBE: Readonly<Record<string, Describe>> = {
  'api_key.address_refused': (d) =>
    `${str(d['method'])} ${str(d['path'])} from ${str(d['address'])}: not in the IP allow-list, answered as an invalid key`,
  'api_key.rotated': (d, ctx) =>
    d['graceSeconds'] === 0 || d['previousValidUntil'] === undefined
      ? 'the old key stopped at once'
      : `the old key works until ${formatDateTime(str(d['previousValidUntil']), ctx.timeZone)}`,
  'organisation.updated': (d) => `changed: ${settingNames(d['changed'])}`,
  'organisation.created': (d) =>
    `${str(d['name'])}, ${str(d['currency'])}, groups: ${text(d['groups'])}`,
  'callback.settings_changed': (d) =>
    d['callbackUrl'] === ''
      ? `no callback URL, version ${str(d['callbackVersion'])}`
      : `${str(d['callbackUrl'])}, version ${str(d['callbackVersion'])}`,
  'callback.test_sent': (d) => `event ${str(d['eventId'])}`,
  'callback.resent': (d) => `event ${str(d['eventId'])}`,
  'user.added': (d) => `${str(d['email'])} (${str(d['role'])})`,
  'user.removed': (d) => `${str(d['email'])} (${str(d['role'])})`,
  'user.role_changed': (d) => `${str(d['email'])}: ${str(d['from'])} to ${str(d['to'])}`,
  'card.saved': (d) => `${str(d['brand'])} ending ${str(d['last4'])}`,
  'topup.succeeded': (d, ctx) =>
    `${money(d['amount'], ctx)}; balance then ${money(d['balance'], ctx)} (reference ${str(d['ref'])})`,
  'topup.failed': (d) => `amount ${str(d['amount'])}: ${words(str(d['reason']))}`,
  'topup.unknown': (d) => `amount ${str(d['amount'])}: ${words(str(d['reason']))}`,
  'portal.sign_in_failed': (d) =>
    [
      str(d['reason']),
      d['refusedDuringLock'] === undefined
        ? ''
        : `${str(d['refusedDuringLock'])} more refused during the lock`,
      d['note'] === undefined ? '' : str(d['note']),
    ]
      .filter((part) => part !== '')
      .join('; '),
};

/** The details of an Activity row in words; empty when there are none. */
export function activityDetails(entry: AuditEntry, ctx: DetailContext): string {
  const details = entry.details;
  if (Object.keys(details).length === 0) return '';
  const describe = DESCRIBE[entry.action];
  if (describe !== undefined) return describe(details, ctx);
  return Object.entries(details)
    .map(([key, value]) => `${words(key)}: ${text(value)}`)
    .join(', ');
}

/** Who acted, as a person reads it. */
export function activityActor(actor: string): string {
  if (actor.startsWith('user:')) return actor.slice('user:'.length);
  if (actor.startsWith('api-key:')) return 'API key';
  if (actor.startsWith('operator:')) return `operator ${actor.slice('operator:'.length)}`;
  return actor === 'system' ? 'the service' : actor;
}
