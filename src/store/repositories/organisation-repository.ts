import type { Organisation } from '../domain-types.js';
import type { Executor } from '../database.js';
import type { OrganisationRow, OrganisationUpdate, UserRow } from '../schema.js';
import type { PortalUser } from '../domain-types.js';
import { touchAuthVersion } from './auth-state-repository.js';

// Organisations leave the store as the domain's Organisation: groups parsed, numbers as numbers,
// and without the key columns, which only authentication (findOrganisationByKeyHash) and the
// callback signer (findEncryptedApiKey, callback-repository's findTargets) read.

/** The API key as stored: its SHA-256 lookup hash and its encrypted copy. */
export interface StoredApiKey {
  readonly hash: string;
  readonly encrypted: string;
}

export function organisationFromRow(row: OrganisationRow): Organisation {
  return {
    id: row.id,
    name: row.name,
    taxLiable: row.tax_liable,
    addr1: row.addr1,
    addr2: row.addr2,
    city: row.city,
    country: row.country,
    postcode: row.postcode,
    callbackUrl: row.callback_url,
    callbackVersion: row.callback_version,
    notes: row.notes,
    groups: JSON.parse(row.groups) as string[],
    currency: row.currency,
    balance: Number(row.balance),
    testCredit: Number(row.test_credit),
    testCreditExpiry: row.test_credit_expiry,
    businessType: row.business_type,
    website: row.website,
    productDescription: row.product_description,
    billingType: row.billing_type,
    ipAllowList: JSON.parse(row.ip_allow_list) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertOrganisation(
  db: Executor,
  org: Organisation,
  key: StoredApiKey,
): Promise<void> {
  await db
    .insertInto('organisations')
    .values({
      id: org.id,
      name: org.name,
      api_key_hash: key.hash,
      api_key_enc: key.encrypted,
      tax_liable: org.taxLiable,
      addr1: org.addr1,
      addr2: org.addr2,
      city: org.city,
      country: org.country,
      postcode: org.postcode,
      callback_url: org.callbackUrl,
      callback_version: org.callbackVersion,
      notes: org.notes,
      groups: JSON.stringify(org.groups),
      currency: org.currency,
      balance: org.balance,
      test_credit: org.testCredit,
      test_credit_expiry: org.testCreditExpiry,
      business_type: org.businessType,
      website: org.website,
      product_description: org.productDescription,
      billing_type: org.billingType,
      ip_allow_list: JSON.stringify(org.ipAllowList),
      created_at: org.createdAt,
      updated_at: org.updatedAt,
    })
    .execute();
}

export async function findOrganisationById(
  db: Executor,
  id: string,
): Promise<Organisation | undefined> {
  const row = await db
    .selectFrom('organisations')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : organisationFromRow(row);
}

/** The encrypted API key of the organisation (for showing it to its owner, or checking the master key). */
export async function findEncryptedApiKey(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('organisations')
    .select('api_key_enc')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.api_key_enc;
}

/** The organisation's API key as stored: encrypted, and its hash. */
export async function findStoredApiKey(
  db: Executor,
  id: string,
): Promise<{ encrypted: string; hash: string } | undefined> {
  const row = await db
    .selectFrom('organisations')
    .select(['api_key_enc', 'api_key_hash'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { encrypted: row.api_key_enc, hash: row.api_key_hash };
}

/** Replaces the organisation's API key; false when it does not exist. */
export async function updateApiKey(
  db: Executor,
  id: string,
  key: StoredApiKey,
  at: string,
): Promise<boolean> {
  return updateOrganisation(db, id, {
    api_key_hash: key.hash,
    api_key_enc: key.encrypted,
    updated_at: at,
  });
}

/** The organisation's callback URL ('' when none is set), undefined when it does not exist. */
export async function findCallbackUrl(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('organisations')
    .select('callback_url')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.callback_url;
}

/** An organisation that authenticates with a key, and the stored hash to compare it against. */
export interface KeyHolder {
  readonly organisation: Organisation;
  readonly keyHash: string;
  /** When a rotated-out key stops authenticating (RFC 3339); absent for the current key. */
  readonly validUntil?: string;
}

export async function findOrganisationByKeyHash(
  db: Executor,
  hash: string,
): Promise<KeyHolder | undefined> {
  const row = await db
    .selectFrom('organisations')
    .selectAll()
    .where('api_key_hash', '=', hash)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { organisation: organisationFromRow(row), keyHash: row.api_key_hash };
}

export async function listOrganisations(db: Executor): Promise<Organisation[]> {
  const rows = await db
    .selectFrom('organisations')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(organisationFromRow);
}

export async function countOrganisations(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('organisations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Changes the organisation's row. It also increments auth_state.version in the same transaction,
 * since authentication keeps organisations in memory (src/security/key-cache.ts).
 */
export async function updateOrganisation(
  db: Executor,
  id: string,
  changes: OrganisationUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('organisations')
    .set(changes)
    .where('id', '=', id)
    .executeTakeFirst();
  await touchAuthVersion(db);
  return Number(result.numUpdatedRows) === 1;
}

export async function listUsers(db: Executor, organisationId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertUser(db: Executor, user: PortalUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: user.id,
      organisation_id: user.organisationId,
      first_name: user.firstName,
      last_name: user.lastName,
      role: user.role,
      email_address: user.email,
      phone_number: user.phoneNumber,
      time_zone: user.timeZone,
      created_at: user.createdAt,
    })
    .execute();
}
