// Row types of every table, as Kysely sees them. Columns are dialect-neutral: timestamps are
// RFC 3339 UTC text (sortable as text), booleans are 0/1 integers, lists are JSON text, money is
// an integer in minor units (bigint on PostgreSQL, parsed back to number).
import type { Generated, Selectable, Updateable } from 'kysely';
import type {
  BillingType,
  BundleState,
  CallbackVersion,
  EsimState,
  EventStatus,
  ProfileStatus,
} from './domain-types.js';

// Enum-like columns are closed unions, so a value outside them does not compile. The domain
// owns the lists it validates against (BundleState, CallbackVersion, ProfileStatus, EsimState);
// the others are bookkeeping of the store and its workers.

export type { EventStatus, ProfileStatus };
export type EsimStateColumn = EsimState;
export type TopUpStatus = 'pending' | 'unknown' | 'succeeded' | 'declined' | 'failed';
export type IdempotencyState = 'running' | 'done';
export type OrderSource = 'order' | 'apply';
export type OrderStatus = 'completed' | 'validated';
export type LedgerKind =
  | 'topup'
  | 'order'
  | 'refund'
  | 'test_credit_grant'
  | 'test_credit_expiry'
  | 'opening'
  | 'adjustment';

export interface OrganisationsTable {
  id: string;
  name: string;
  api_key_hash: string;
  api_key_enc: string;
  tax_liable: string;
  addr1: string;
  addr2: string;
  city: string;
  country: string;
  postcode: string;
  callback_url: string;
  callback_version: CallbackVersion;
  notes: string;
  groups: string; // JSON array of group names
  currency: string;
  balance: number;
  test_credit: number;
  test_credit_expiry: string | null;
  business_type: string;
  website: string;
  product_description: string;
  created_at: string;
  updated_at: string;
  billing_type: Generated<BillingType>; // 018-esim-state: FixedCost or Consumption
  ip_allow_list: Generated<string>; // 018-esim-state: JSON array of addresses and CIDR ranges
}

export interface UsersTable {
  id: string;
  organisation_id: string;
  first_name: string;
  last_name: string;
  role: string;
  email_address: string;
  phone_number: string;
  time_zone: string;
  created_at: string;
}

export interface BundlesTable {
  name: string;
  description: string;
  groups: string; // JSON array
  countries: string; // JSON array of ISO2 base countries
  roaming: string; // JSON array of ISO2 roaming countries
  data_amount: number; // MB, -1 when unlimited
  duration: number; // days
  speed: string; // JSON array
  autostart: number;
  unlimited: number;
  price: number; // minor units
  created_at: string;
  search_text: Generated<string>; // 002-catalogue: description lower-cased, for the description filter
  item_json: Buffer | null; // 016-bundle-json: the Bundle view's JSON (UTF-8); null until encoded
}

export interface AuthStateTable {
  id: number; // always 1: a single row (013-auth-state)
  version: number; // incremented by every write to what authentication reads
}

export interface CatalogueStateTable {
  id: number; // always 1: a single row (002-catalogue)
  version: number; // incremented by every catalogue write
  json_fingerprint: string | null; // 016-bundle-json: the encoder that wrote bundles.item_json
}

export interface BundleCountriesTable {
  bundle_name: string;
  iso: string;
  region: string; // lower-case region, for case-insensitive filtering
}

export interface BundleGroupsTable {
  bundle_name: string;
  group_name: string;
}

/** 035-count-deltas: one row, the number of snapshots restored into this database. */
export interface RestoreStateTable {
  id: number;
  version: number;
}

/** The bundles an organisation ever bought (032): one row per pair, written by a trigger. */
export interface OrganisationBundlesTable {
  organisation_id: string;
  bundle_name: string;
}

/** 022-growth: how many rows an organisation has of a kind ('orders:order', 'esims', …). */
export interface OrganisationCountsTable {
  organisation_id: string;
  name: string;
  value: number;
}

/**
 * 035-count-deltas, PostgreSQL only: changes to the assignment counters of organisation_counts
 * not folded into it yet, one row per assignment inserted or deleted, two per state change;
 * never updated, deleted by the fold.
 */
export interface CountDeltasTable {
  id: Generated<number>;
  organisation_id: string;
  name: string;
  value: number;
}

/**
 * 027-esim-deletions: how many of an organisation's eSIMs were deleted, per node of a Fenwick
 * tree over their row numbers (node n counts the deleted row numbers in (n - lowbit(n), n]).
 */
export interface EsimDeletionsTable {
  organisation_id: string;
  node: number;
  deleted: number;
}

/** 029-callback-deletions: the same tree over an organisation's delivery numbers (`org_seq`). */
export type CallbackDeletionsTable = EsimDeletionsTable;

export interface OrdersTable {
  reference: string;
  organisation_id: string;
  status: OrderStatus;
  status_message: string;
  total: number;
  currency: string;
  assign: number;
  source: OrderSource;
  created_at: string;
  seq: Generated<number>; // 022-growth: row number within the organisation and source, set by a trigger
}

export interface OrderItemsTable {
  id: Generated<number>;
  order_reference: string;
  line_no: number;
  type: string;
  item: string;
  quantity: number;
  price_per_unit: number;
  sub_total: number;
  iccids: Generated<string>; // 003-orders: JSON array of the eSIMs an assigned line went onto
}

export interface InventoryBatchesTable {
  id: Generated<number>;
  organisation_id: string;
  bundle_name: string;
  order_reference: string;
  total: number;
  remaining: number;
  expiry: string;
  created_at: string;
  source_batch_id: number | null; // 007-live-routes: a refunded unit's purchase batch
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  organisation_id: string;
  kind: LedgerKind;
  balance_delta: number;
  test_credit_delta: number;
  balance_after: number;
  test_credit_after: number;
  reference: string;
  description: string;
  created_at: string;
  seq: Generated<number>; // 022-growth: row number within the organisation, set by a trigger
}

export interface PaymentCardsTable {
  id: string;
  organisation_id: string;
  token: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: number;
  created_at: string;
}

export interface TopUpsTable {
  ref: Generated<number>;
  organisation_id: string;
  amount: number;
  status: TopUpStatus;
  card_id: string;
  processor_ref: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  idempotency_key: string | null; // 003-orders: completed by reconciliation when the outcome was unknown
  next_check_at: string | null; // 003-orders: when reconciliation next asks the processor
  checks: Generated<number>; // 003-orders: how often reconciliation has asked
}

export interface TestProcessorChargesTable {
  reference: string;
  token: string;
  amount: number;
  currency: string;
  status: string; // processing | succeeded | declined
  decline_code: string | null;
  processor_ref: string;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  organisation_id: string;
  idem_key: string;
  request_hash: string;
  state: IdempotencyState;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
  owner: string | null; // 003-orders: the claim that holds a running key
  locked_until: string | null; // 003-orders: a running claim older than this may be taken over
}

export interface EsimsTable {
  iccid: string;
  organisation_id: string;
  matching_id: string;
  smdp_address: string;
  profile_status: ProfileStatus;
  pin: string;
  puk: string;
  msisdn: string | null;
  first_installed_at: string | null;
  order_reference: string | null;
  created_at: string;
  customer_ref: string | null; // 007-live-routes: the organisation's own reference (PUT /esims)
  seq: Generated<number | null>; // 022-growth: row number within the organisation, set by a trigger; null once deleted (027: never reused)
  state: Generated<EsimStateColumn>; // 018-esim-state: active, suspended or deactivated
  state_changed_at: string | null; // 018-esim-state: when state last changed
}

/**
 * 026-esim-filters: what GET /esims filters by, one row per eSIM that has any, kept by triggers
 * with the writes that change it (esim_history, assignments, esims.customer_ref, esims.seq).
 */
export interface EsimFiltersTable {
  iccid: string;
  organisation_id: string;
  created_at: string; // the eSIM's, with iccid its place in the list
  listed: number; // 1 while the eSIM is in the organisation's list, 0 once deleted
  customer_ref: string | null; // none when empty
  last_action: string | null; // name of the newest history entry
  action_date: string | null; // its time
  action_id: number | null; // its id: the newest entry wins
  assigned_date: string | null; // when a bundle was first assigned
}

export interface AssignmentsTable {
  id: string;
  reference: string; // order or apply reference
  iccid: string;
  organisation_id: string;
  bundle_name: string;
  batch_id: number | null; // inventory batch it was drawn from, for refunds
  state: BundleState;
  initial_bytes: number; // -1 when unlimited
  remaining_bytes: number; // -1 when unlimited
  used_bytes: number;
  unlimited: number;
  duration_days: number;
  queue_position: number;
  processing_due_at: string | null;
  valid_until: string; // a Queued assignment expires unused after this
  start_time: string | null;
  end_time: string | null;
  alerts_sent: string; // JSON array of utilisation thresholds already alerted
  created_at: string;
  updated_at: string;
}

export interface EsimHistoryTable {
  id: Generated<number>;
  iccid: string;
  name: string;
  bundle: string;
  bundle_state: string;
  alert_type: string;
  created_at: string;
}

export interface EsimNetworkTable {
  iccid: string;
  mcc: string;
  mnc: string;
  network_name: string;
  country: string;
  attached: number;
  last_seen: string;
  first_used_at: string | null; // 004-esims: when the eSIM first used data
}

export interface SmsMessagesTable {
  id: string;
  iccid: string;
  organisation_id: string;
  message: string;
  sender: string;
  msisdn: string;
  created_at: string;
}

export interface SimStateTable {
  key: string;
  value: string;
}

export interface SimFaultsTable {
  id: string;
  route: string;
  method: string;
  status: number | null;
  remaining: number | null;
  probability: number | null;
  latency_ms: number;
  created_at: string;
}

export interface CallbackEventsTable {
  id: string;
  organisation_id: string;
  iccid: string;
  alert_type: string;
  payload: string; // JSON of the full (V3) event; the V2 shape is derived at send time
  status: EventStatus;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  locked_by: string | null;
  last_status: number | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  retry_from: Generated<number>; // attempts made before the current retry round (resend restarts it)
  seq: Generated<number | string>; // insertion order (a bigint on PostgreSQL): delivery order per eSIM
  org_seq: Generated<number | string | null>; // 023-list-counters: row number within the organisation, set by a trigger
}

/** 021-callback-fairness: one organisation's delivery turn and the state of its endpoint. */
export interface CallbackEndpointsTable {
  organisation_id: string;
  /** Pending or being delivered (kept by a trigger). */
  open_events: Generated<number>;
  /** Claimed by a worker (kept by a trigger). */
  in_flight: Generated<number>;
  /** When a worker last took this organisation's turn (round-robin order); '' never. */
  served_at: Generated<string>;
  /** Consecutive attempts that got no answer (timeout, refused). */
  failures: Generated<number>;
  backoff_until: string | null;
  paused_at: string | null;
}

export interface CallbackAttemptsTable {
  id: Generated<number>;
  event_id: string;
  attempt_no: number;
  attempted_at: string;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_snippet: string | null;
  /** 024-console: the headers sent, a JSON object; null before 024. */
  request_headers?: string | null;
  /** 024-console: the body sent; null before 024. */
  request_body?: string | null;
}

export interface PreviousApiKeysTable {
  key_hash: string;
  organisation_id: string;
  rotated_at: string;
  /** The end of the key's grace period: it authenticates until then. */
  valid_until: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  organisation_id: string | null;
  /** Who: `operator:<name>` (the CLI) or `api-key:<organisation id>` (the HTTP API). */
  actor: string;
  /** From where: `cli@<host>` or the client's IP address. */
  source: string;
  action: string;
  details: string; // JSON object
}

export interface UsageDaysTable {
  organisation_id: string;
  day: string; // 015-portal-money: YYYY-MM-DD (UTC)
  bytes: number; // data used that day, bytes (a bigint on PostgreSQL)
}

export interface Database {
  organisations: OrganisationsTable;
  users: UsersTable;
  bundles: BundlesTable;
  bundle_countries: BundleCountriesTable;
  bundle_groups: BundleGroupsTable;
  catalogue_state: CatalogueStateTable;
  auth_state: AuthStateTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  inventory_batches: InventoryBatchesTable;
  organisation_counts: OrganisationCountsTable;
  count_deltas: CountDeltasTable;
  restore_state: RestoreStateTable;
  organisation_bundles: OrganisationBundlesTable;
  esim_deletions: EsimDeletionsTable;
  callback_deletions: CallbackDeletionsTable;
  ledger_entries: LedgerEntriesTable;
  payment_cards: PaymentCardsTable;
  topups: TopUpsTable;
  idempotency_keys: IdempotencyKeysTable;
  test_processor_charges: TestProcessorChargesTable;
  esims: EsimsTable;
  assignments: AssignmentsTable;
  esim_history: EsimHistoryTable;
  esim_filters: EsimFiltersTable;
  esim_network: EsimNetworkTable;
  sms_messages: SmsMessagesTable;
  sim_state: SimStateTable;
  sim_faults: SimFaultsTable;
  callback_events: CallbackEventsTable;
  callback_attempts: CallbackAttemptsTable;
  callback_endpoints: CallbackEndpointsTable;
  previous_api_keys: PreviousApiKeysTable;
  audit_log: AuditLogTable;
  portal_credentials: PortalCredentialsTable;
  portal_sessions: PortalSessionsTable;
  portal_tokens: PortalTokensTable;
  portal_sign_in_failures: PortalSignInFailuresTable;
  mail_outbox: MailOutboxTable;
  usage_days: UsageDaysTable;
  deferred_requests: DeferredRequestsTable;
  api_requests: ApiRequestsTable;
  esim_usage_days: EsimUsageDaysTable;
}

/** 024-console: the simulator's request journal (capped). */
export interface ApiRequestsTable {
  id: Generated<number>;
  organisation_id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
}

/** 024-console: data used per eSIM and UTC day. */
export interface EsimUsageDaysTable {
  iccid: string;
  day: string; // YYYY-MM-DD (UTC)
  bytes: number; // a bigint on PostgreSQL
}

export type DeferredKind = 'order' | 'apply';
export type DeferredStatus = 'queued' | 'done' | 'failed';

/** 019-deferred-requests: an order or apply accepted to be processed in the background. */
export interface DeferredRequestsTable {
  id: string;
  organisation_id: string;
  kind: DeferredKind;
  /** `key:<Idempotency-Key>` or `body:<request hash>`; `answered:<id>` once a keyless one is answered. */
  request_key: string;
  request_hash: string;
  /** JSON of the use case's input. */
  input: string;
  reference: string;
  status: DeferredStatus;
  error_code: string | null;
  error_message: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  /** Wall clock: a claim older than this may be taken over (its worker died). */
  locked_until: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

export interface PortalCredentialsTable {
  user_id: string;
  /** `scrypt$N$r$p$salt$hash` (base64), docs/portal.md "Passwords". */
  password_hash: string;
  changed_at: string;
}

export interface PortalSessionsTable {
  /** SHA-256 (hex) of the session cookie's value; the value itself is never stored. */
  id_hash: string;
  user_id: string;
  organisation_id: string;
  csrf_token: string;
  /** The client address that signed in. */
  source: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute expiry; the idle expiry follows from last_seen_at. */
  expires_at: string;
}

export type PortalTokenPurpose = 'set_password';

export interface PortalTokensTable {
  token_hash: string;
  user_id: string;
  purpose: PortalTokenPurpose;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface PortalSignInFailuresTable {
  /** `account:<lower-case email>` or `address:<ip>`. */
  key: string;
  failures: number;
  window_started_at: string;
  locked_until: string | null;
}

export interface MailOutboxTable {
  id: Generated<number>;
  at: string;
  to_address: string;
  subject: string;
  body: string;
}

export type OrganisationRow = Selectable<OrganisationsTable>;
export type OrganisationUpdate = Updateable<OrganisationsTable>;
export type UserRow = Selectable<UsersTable>;
export type BundleRow = Selectable<BundlesTable>;
export type EsimRow = Omit<Selectable<EsimsTable>, 'seq'>;
export type AssignmentRow = Selectable<AssignmentsTable>;
export type AuditRow = Selectable<AuditLogTable>;
