import type { Clock } from '../../clock.js';
import { addDays, addSeconds, iso } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { KeyCipher } from '../../security/api-keys.js';
import type { ApiKeyCache } from '../../security/key-cache.js';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../security/api-keys.js';
import type { Db, Executor } from '../../store/database.js';
import {
  findOrganisationById,
  insertOrganisation,
  insertUser,
  updateApiKey,
  updateOrganisation,
} from '../../store/repositories/organisation-repository.js';
import type { PortalUser } from '../access/portal-user.js';
import {
  endGracePeriods,
  insertPreviousKey,
  lockCurrentKeyHash,
} from '../../store/repositories/api-key-repository.js';
import type { CallbackVersion, Organisation } from './organisation.js';
import { BILLING_TYPES, CALLBACK_VERSIONS } from './organisation.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit, systemActor } from '../audit/audit-log.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { openAccount } from '../money/ledger.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { WriteDeps } from '../runner/use-case-runner.js';
import { checkAllowList } from '../access/ip-allow-list.js';

/** The ISO 4217 codes this runtime knows (Intl, from its ICU data). */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const USER_ROLES = ['Admin', 'Finance', 'Developer', 'Support', 'Viewer'] as const;
export const TAX_LIABLE = ['Yes', 'No', 'ReverseCharge'] as const;
export const BUSINESS_TYPES = ['Travel', 'IoT', 'Enterprise', 'Reseller', 'MVNO', 'Other'] as const;
export { CALLBACK_VERSIONS };
export const DEFAULT_GROUPS = ['Standard eSIM Bundles'] as const;

export interface OrganisationDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly cipher: KeyCipher;
  /** The callback URL guard of production mode, applied when an organisation is created. */
  readonly checkCallbackUrl?: CallbackUrlCheck;
  /** Who acts, for the audit log (the system when not given). */
  readonly actor?: AuditActor;
  /** This process's in-memory key lookups, told after a change to an organisation commits. */
  readonly apiKeys?: Pick<ApiKeyCache, 'forget'>;
}

/**
 * The dependencies of a change to an organisation's key or settings: the key cache is required,
 * so no caller can leave this process serving the old key from memory.
 */
export type KeyChangeDeps = OrganisationDeps & Required<Pick<OrganisationDeps, 'apiKeys'>>;

/** What the runner needs to open these use cases' transactions. */
const writer = (deps: Pick<OrganisationDeps, 'db'>): WriteDeps => ({ store: { db: deps.db } });

export interface NewOrganisationInput {
  name: string;
  currency?: string;
  groups?: readonly string[];
  /** Opening balance, in minor units, journaled as such. */
  balance?: number;
  /** Opening test credit, in minor units. */
  testCredit?: number;
  /** Days until the opening test credit expires; without it, it does not. */
  testCreditDays?: number;
  callbackUrl?: string;
  callbackVersion?: string;
  country?: string;
  businessType?: string;
  taxLiable?: string;
  /**
   * A fixed API key (a fixture file's), in the shape the service writes them; without it a new
   * one is generated.
   */
  apiKey?: string;
}

export interface CreatedOrganisation {
  id: string;
  apiKey: string;
  organisation: Organisation;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw badRequest('name must be 1 to 200 characters');
  return trimmed;
}

function checkEnum<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw badRequest(`${field} must be one of ${allowed.join(', ')}`);
  return found;
}

/**
 * Creates an organisation with a fresh API key. Opening balance and test credit go through the
 * ledger (input.balance and input.testCredit, or a caller's own onOpeningCredit), in the same
 * transaction, so the journal explains every unit of money from the start.
 */
export async function createOrganisation(
  deps: OrganisationDeps,
  input: NewOrganisationInput,
  onOpeningCredit?: (trx: Executor, org: Organisation) => Promise<void>,
): Promise<CreatedOrganisation> {
  const name = checkName(input.name);
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency) || !CURRENCIES.has(currency))
    throw badRequest(
      `currency must be an ISO 4217 code such as USD, got "${currency.slice(0, 12)}"`,
    );
  const groups = [...(input.groups ?? DEFAULT_GROUPS)].map((g) => g.trim()).filter((g) => g !== '');
  if (groups.length === 0) throw badRequest('groups must name at least one bundle group');
  const callbackVersion: CallbackVersion = checkEnum(
    'callbackVersion',
    input.callbackVersion ?? 'V2',
    CALLBACK_VERSIONS,
  );
  const callbackUrl = await checkedCallbackUrl(input.callbackUrl ?? '', deps.checkCallbackUrl);
  const country = input.country ?? '';
  if (country !== '' && !/^[A-Z]{2}$/.test(country)) {
    throw badRequest('country must be an ISO 3166-1 alpha-2 code such as GB');
  }
  const now = iso(deps.clock.now());
  if (input.apiKey !== undefined && !isWellFormedApiKey(input.apiKey)) {
    throw badRequest('apiKey must be esim_ followed by 43 base64url characters (A-Z a-z 0-9 - _)');
  }
  const apiKey = input.apiKey ?? generateApiKey(deps.random);
  const organisation: Organisation = {
    id: deps.random.uuid(),
    name,
    taxLiable: checkEnum('taxLiable', input.taxLiable ?? 'Yes', TAX_LIABLE),
    addr1: '',
    addr2: '',
    city: '',
    country,
    postcode: '',
    callbackUrl,
    callbackVersion,
    notes: '',
    groups,
    currency,
    balance: 0,
    testCredit: 0,
    testCreditExpiry: null,
    businessType: checkEnum('businessType', input.businessType ?? 'Other', BUSINESS_TYPES),
    website: '',
    productDescription: '',
    billingType: 'FixedCost',
    ipAllowList: [],
    createdAt: now,
    updatedAt: now,
  };
  const key = { hash: hashApiKey(apiKey), encrypted: deps.cipher.encrypt(apiKey) };
  await runWrite(
    writer(deps),
    async (trx) => {
      await insertOrganisation(trx, organisation, key);
      await openingCredit(trx, organisation.id, input, deps.clock.now());
      if (onOpeningCredit !== undefined) await onOpeningCredit(trx, organisation);
      await audit(trx, deps.actor ?? systemActor, {
        action: 'organisation.created',
        organisationId: organisation.id,
        at: deps.clock.now(),
        details: { name, currency, groups, callbackUrl, callbackVersion },
      });
    },
    undefined,
  );
  return { id: organisation.id, apiKey, organisation };
}

async function openingCredit(
  trx: Executor,
  organisationId: string,
  input: NewOrganisationInput,
  at: Date,
): Promise<void> {
  const { balance = 0, testCredit = 0, testCreditDays } = input;
  if (!Number.isSafeInteger(balance) || balance < 0) {
    throw badRequest('balance must be a whole number of minor units, 0 or more');
  }
  if (!Number.isSafeInteger(testCredit) || testCredit < 0) {
    throw badRequest('testCredit must be a whole number of minor units, 0 or more');
  }
  if (balance === 0 && testCredit === 0) return;
  await openAccount(trx, {
    organisationId,
    balance,
    testCredit,
    testCreditExpiresAt: testCreditDays === undefined ? undefined : addDays(at, testCreditDays),
    at,
  });
}

/** Default grace period of a rotated-out key: a day, so integrations can switch over. */
export const DEFAULT_KEY_GRACE_SECONDS = 86_400;
/** The longest grace period a rotation may give the old key. */
export const MAX_KEY_GRACE_SECONDS = 90 * 86_400;

export interface RotatedKey {
  readonly apiKey: string;
  /** When the old key stops working: the rotation time itself with no grace. */
  readonly previousValidUntil: string;
}

/**
 * Replaces the organisation's API key. The new key signs V3 callbacks at once; the old one
 * keeps authenticating for `graceSeconds` (0: it stops at once, and so does every earlier key
 * still in its grace period, for a key that leaked).
 */
export async function rotateApiKey(
  deps: KeyChangeDeps,
  id: string,
  graceSeconds: number = DEFAULT_KEY_GRACE_SECONDS,
): Promise<RotatedKey> {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) {
    throw badRequest('grace period must be a whole number of seconds, 0 or more');
  }
  if (graceSeconds > MAX_KEY_GRACE_SECONDS) {
    throw badRequest(`grace period must not exceed ${MAX_KEY_GRACE_SECONDS / 86_400} days`);
  }
  const apiKey = generateApiKey(deps.random);
  const now = deps.clock.now();
  await runWrite(
    writer(deps),
    (trx) => applyKeyRotation(trx, deps, { id, apiKey, graceSeconds, now }),
    undefined,
  );
  // Committed: this process stops serving the old key from memory at once (others within
  // API_KEY_CACHE_MS, through the store's authentication version).
  deps.apiKeys.forget(id);
  return { apiKey, previousValidUntil: iso(addSeconds(now, graceSeconds)) };
}

/**
 * The rotation in the caller's transaction: the new key stored, the old one's grace recorded.
 * Once that transaction commits, the caller tells `deps.apiKeys.forget(id)` (as rotateApiKey
 * does), or this process may accept the old key for up to API_KEY_CACHE_MS.
 */
export async function applyKeyRotation(
  trx: Executor,
  deps: Pick<OrganisationDeps, 'cipher' | 'actor'>,
  r: { id: string; apiKey: string; graceSeconds: number; now: Date },
): Promise<void> {
  const { id, apiKey, graceSeconds, now } = r;
  const at = iso(now);
  const validUntil = iso(addSeconds(now, graceSeconds));
  const currentHash = await lockCurrentKeyHash(trx, id);
  if (currentHash === undefined) throw notFound(`organisation ${id} not found`);
  const ok = await updateApiKey(
    trx,
    id,
    { hash: hashApiKey(apiKey), encrypted: deps.cipher.encrypt(apiKey) },
    at,
  );
  if (!ok) throw notFound(`organisation ${id} not found`);
  if (graceSeconds === 0) await endGracePeriods(trx, id, at);
  else {
    await insertPreviousKey(trx, {
      keyHash: currentHash,
      organisationId: id,
      rotatedAt: at,
      validUntil,
    });
  }
  await audit(trx, deps.actor ?? systemActor, {
    action: 'api_key.rotated',
    organisationId: id,
    at: now,
    details: { graceSeconds, previousValidUntil: validUntil },
  });
}

export interface NewUserInput {
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  phoneNumber?: string;
  timeZone?: string;
}

export async function addUser(
  deps: OrganisationDeps,
  organisationId: string,
  input: NewUserInput,
): Promise<PortalUser> {
  if ((await findOrganisationById(deps.db, organisationId)) === undefined) {
    throw notFound(`organisation ${organisationId} not found`);
  }
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest('email must be an email address');
  if (input.firstName.trim() === '') throw badRequest('first name must not be empty');
  if (input.lastName.trim() === '') throw badRequest('last name must not be empty');
  const timeZone = input.timeZone ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw badRequest(`time zone "${timeZone}" is not an IANA time zone such as Europe/London`);
  }
  const user: PortalUser = {
    id: deps.random.uuid(),
    organisationId,
    firstName: input.firstName.trim(),
    lastName: input.lastName.trim(),
    role: checkEnum('role', input.role, USER_ROLES),
    email,
    phoneNumber: input.phoneNumber ?? '',
    timeZone,
    createdAt: iso(deps.clock.now()),
  };
  try {
    await runWrite(writer(deps), (trx) => applyNewUser(trx, deps, user), undefined);
  } catch (error) {
    if (/unique|duplicate/i.test(String(error)))
      throw badRequest(`a user with email ${email} already exists`);
    throw error;
  }
  return user;
}

/** Stores the user and its audit row in the caller's transaction. */
export async function applyNewUser(
  trx: Executor,
  deps: Pick<OrganisationDeps, 'clock' | 'actor'>,
  user: PortalUser,
): Promise<void> {
  await insertUser(trx, user);
  await audit(trx, deps.actor ?? systemActor, {
    action: 'user.added',
    organisationId: user.organisationId,
    at: deps.clock.now(),
    details: { userId: user.id, email: user.email, role: user.role },
  });
}

export interface OrganisationChanges {
  name?: string;
  callbackUrl?: string;
  callbackVersion?: string;
  groups?: readonly string[];
  notes?: string;
  website?: string;
  businessType?: string;
  taxLiable?: string;
  productDescription?: string;
  addr1?: string;
  addr2?: string;
  city?: string;
  country?: string;
  postcode?: string;
  billingType?: string;
  ipAllowList?: readonly string[];
}

/** Hook for checks that need more than syntax (the callback URL guard in production mode). */
export type CallbackUrlCheck = (url: string) => Promise<void>;

/** A callback URL as stored: trimmed, http(s), past the guard; empty means none. */
async function checkedCallbackUrl(raw: string, check?: CallbackUrlCheck): Promise<string> {
  const url = raw.trim();
  if (url === '') return '';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`callbackUrl "${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw badRequest('callbackUrl must be an http or https URL');
  }
  if (check !== undefined) await check(url);
  return url;
}

export async function updateOrganisationSettings(
  deps: KeyChangeDeps,
  id: string,
  changes: OrganisationChanges,
  checkCallbackUrl?: CallbackUrlCheck,
): Promise<Organisation> {
  const set: Record<string, string> = {};
  if (changes.name !== undefined) set['name'] = checkName(changes.name);
  if (changes.callbackUrl !== undefined) {
    set['callback_url'] = await checkedCallbackUrl(changes.callbackUrl, checkCallbackUrl);
  }
  if (changes.callbackVersion !== undefined) {
    set['callback_version'] = checkEnum(
      'callbackVersion',
      changes.callbackVersion.toUpperCase(),
      CALLBACK_VERSIONS,
    );
  }
  if (changes.groups !== undefined) {
    const groups = changes.groups.map((g) => g.trim()).filter((g) => g !== '');
    if (groups.length === 0) throw badRequest('groups must name at least one bundle group');
    set['groups'] = JSON.stringify(groups);
  }
  if (changes.billingType !== undefined)
    set['billing_type'] = checkEnum('billingType', changes.billingType, BILLING_TYPES);
  if (changes.ipAllowList !== undefined)
    set['ip_allow_list'] = JSON.stringify(checkAllowList(changes.ipAllowList));
  if (changes.businessType !== undefined)
    set['business_type'] = checkEnum('businessType', changes.businessType, BUSINESS_TYPES);
  if (changes.taxLiable !== undefined)
    set['tax_liable'] = checkEnum('taxLiable', changes.taxLiable, TAX_LIABLE);
  if (
    changes.country !== undefined &&
    changes.country !== '' &&
    !/^[A-Z]{2}$/.test(changes.country)
  ) {
    throw badRequest('country must be an ISO 3166-1 alpha-2 code such as GB');
  }
  const plain: [keyof OrganisationChanges, string][] = [
    ['notes', 'notes'],
    ['website', 'website'],
    ['productDescription', 'product_description'],
    ['addr1', 'addr1'],
    ['addr2', 'addr2'],
    ['city', 'city'],
    ['country', 'country'],
    ['postcode', 'postcode'],
  ];
  for (const [field, column] of plain) {
    const value = changes[field];
    if (typeof value === 'string') set[column] = value;
  }
  const now = deps.clock.now();
  set['updated_at'] = iso(now);
  const updated = await runWrite(
    writer(deps),
    (trx) => applySettings(trx, deps, id, set, now),
    undefined,
  );
  deps.apiKeys.forget(id);
  return updated;
}

/**
 * Writes checked column changes and their audit rows in the caller's transaction; after it
 * commits the caller tells `deps.apiKeys.forget(id)`, as updateOrganisationSettings does.
 */
export async function applySettings(
  trx: Executor,
  deps: Pick<OrganisationDeps, 'actor'>,
  id: string,
  set: Readonly<Record<string, string>>,
  now: Date,
): Promise<Organisation> {
  const ok = await updateOrganisation(trx, id, set);
  const updated = ok ? await findOrganisationById(trx, id) : undefined;
  if (updated === undefined) throw notFound(`organisation ${id} not found`);
  const who = deps.actor ?? systemActor;
  const changed = Object.keys(set).filter((column) => column !== 'updated_at');
  await audit(trx, who, {
    action: 'organisation.updated',
    organisationId: id,
    at: now,
    details: { changed },
  });
  if (changed.includes('callback_url') || changed.includes('callback_version')) {
    await audit(trx, who, {
      action: 'callback.settings_changed',
      organisationId: id,
      at: now,
      details: { callbackUrl: updated.callbackUrl, callbackVersion: updated.callbackVersion },
    });
  }
  return updated;
}
