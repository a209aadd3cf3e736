// Typed, validated, frozen configuration. Every key is documented once, in docs/configuration.md.
// Only src/cli (through loadConfig) reads the environment; everything else receives a Config.

export type Mode = 'simulator' | 'production';

export type DatabaseTarget =
  | { kind: 'sqlite'; path: string } // path ':memory:' for an in-memory database
  | { kind: 'postgres'; url: string };

export interface Config {
  readonly mode: Mode;
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseTarget;
  /**
   * SQLite: how long a write waits in all for another process (the server, an esim command) to
   * release the database before it fails (a 503 for a request).
   */
  readonly sqliteBusyWaitMs: number;
  /** SQLite: WAL checkpoints on a worker thread this often; 0 leaves them in the commits. */
  readonly sqliteCheckpointIntervalMs: number;
  /** SQLite: when a commit reaches the disk (SQLITE_SYNCHRONOUS; database.ts). */
  readonly sqliteSynchronous: SqliteSynchronous;
  /**
   * PostgreSQL: how long a connection may take to open, or to be had from the pool, before the
   * try fails and is made again like a refused one (DATABASE_CONNECT_TIMEOUT_MS).
   */
  readonly databaseConnectTimeoutMs: number;
  /**
   * PostgreSQL: the longest a statement may run, or a transaction stay idle, before the server
   * ends it (DATABASE_STATEMENT_TIMEOUT_MS; 0: no bound). Migrations are not bound.
   */
  readonly databaseStatementTimeoutMs: number;
  /** Concurrent writes (orders) share one transaction and one commit (docs/operations.md). */
  readonly groupCommit: boolean;
  /** Most writes committed together. */
  readonly groupCommitMaxBatch: number;
  /** PostgreSQL: group-commit batches in flight at once (GROUP_COMMIT_LANES). */
  readonly groupCommitLanes: number;
  readonly dataDir: string;
  /** 32-byte key that encrypts API keys at rest; undefined means "generate into dataDir" (simulator only). */
  readonly masterKey: Buffer | undefined;
  readonly logLevel: string;
  /** How the log is written: `pretty` lines for a person, `json`, or `auto` (pretty on a terminal). */
  readonly logFormat: LogFormat;
  readonly bodyLimitBytes: number;
  /** The address clients use; '' when unset: the OpenAPI server and paging links are then relative. */
  readonly publicBaseUrl: string;
  /** Origins browsers may call the API from (CORS); ['*'] for any, [] for none. */
  readonly corsOrigins: readonly string[];
  readonly smdpAddress: string;
  readonly demoOnFirstStart: boolean;
  /** Load the built-in catalogue into an empty bundles table on start. */
  readonly catalogueSeed: boolean;
  /** Catalogue answers kept per process (0 disables the cache). */
  readonly catalogueCacheEntries: number;
  /**
   * How old what GET /catalogue sees may be: catalogue imports and an organisation's group or key
   * changes reach the catalogue routes within this time (0: every request reads the database).
   */
  readonly catalogueStalenessMs: number;
  /**
   * How long an API key's organisation, once looked up, is served from memory before the process
   * re-checks that no organisation or key changed anywhere (0: every request reads the database).
   */
  readonly apiKeyCacheMs: number;
  /**
   * How long GET /esims/{iccid} may answer from memory (SQLite): the bound for eSIM changes made
   * by other processes; this process's own writes end every entry at once (0: no cache).
   */
  readonly esimCacheMs: number;
  /** How long a shutdown may take to drain requests and workers before the process exits anyway. */
  readonly shutdownTimeoutMs: number;
  // Orders
  readonly orderMaxQuantityPerLine: number;
  readonly orderMaxQuantityPerOrder: number;
  readonly orderMaxLines: number;
  readonly inventoryValidityDays: number;
  /** Days after purchase during which unapplied inventory can be refunded to balance (0: never). */
  readonly inventoryRefundDays: number;
  // Top-up and payments
  readonly topUpMin: number;
  readonly topUpMax: number;
  readonly paymentLatencyMs: number;
  readonly paymentTimeoutMs: number;
  /** `test`: the built-in test processor (test card numbers only); `none`: top-up answers 503. */
  readonly paymentGateway: 'test' | 'none';
  /** How often charges whose outcome was unknown are looked up at the processor. */
  readonly topUpReconcileIntervalMs: number;
  // eSIMs, lifecycle and the simulated network
  readonly processingDelaySeconds: number;
  readonly schedulerIntervalMs: number;
  readonly simSeed: number;
  /**
   * SIM_SEED was given (simulator only): identifiers, ICCIDs, references and API keys come from a
   * sequence seeded by it, so two runs from an empty database make the same ones.
   */
  readonly seedIdentifiers: boolean;
  /** SEED_FILE: a fixture file loaded on an empty simulator database instead of the demo. */
  readonly seedFile: string | undefined;
  readonly simAdminToken: string | undefined;
  readonly smsAllowedSenders: readonly string[];
  // Callbacks
  readonly callbackRetryScheduleSeconds: readonly number[];
  readonly callbackAllowCidrs: readonly string[];
  readonly callbackConnectTimeoutMs: number;
  readonly callbackTimeoutMs: number;
  readonly callbackWorkerIntervalMs: number;
  readonly callbackConcurrency: number;
  /** Whether callback requests are made on a thread of their own, off the event loop (off by default). */
  readonly callbackSenderThread: boolean;
  /**
   * Whether the whole delivery worker (claim, send, record) runs on a thread of its own with its
   * own database connection, off the event loop that serves requests (off by default).
   */
  readonly callbackDeliveryThread: boolean;
  /** Deliveries of one organisation claimed or in flight at once, across instances. */
  readonly callbackOrgConcurrency: number;
  /** Open (pending or being delivered) events an organisation may have; beyond, new ones fail. */
  readonly callbackMaxPending: number;
  /** Consecutive unanswered attempts after which an organisation's endpoint is paused. */
  readonly callbackPauseAfter: number;
  /** Longest wait before an endpoint that gave no answer is tried again. */
  readonly callbackBackoffMaxSeconds: number;
  /** Days a delivered, failed or undeliverable callback and its attempts are kept. */
  readonly callbackRetentionDays: number;
  // Rate limits (docs/operations.md, "Rate limits")
  /** Whether requests are rate limited: on by default in production, off in simulator mode. */
  readonly rateLimitEnabled: boolean;
  /**
   * Points each API key (v2.1-v2.3) or client address (v2.4+) may spend per window; a request
   * costs 1 unless rateLimitCosts says more.
   */
  readonly rateLimitPoints: number;
  readonly rateLimitWindowSeconds: number;
  /** Cost per route, keyed `METHOD /path` with the path as the route declares it, e.g. `GET /catalogue`. */
  readonly rateLimitCosts: Readonly<Record<string, number>>;
  /** Failed authentications a client address may make per auth window before it gets 429. */
  readonly rateLimitAuthFailures: number;
  readonly rateLimitAuthWindowSeconds: number;
  /** Shared store of rate-limit counters across instances; in-process when undefined. */
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key this service writes. */
  readonly redisKeyPrefix: string;
  /** Test events an organisation may send per minute from the portal. */
  readonly callbackTestEventsPerMinute: number;
  /** Deadline of each Redis call; past it the call falls back to the in-process counters. */
  readonly redisTimeoutMs: number;
  /** Failed or late Redis calls in a row that open the circuit breaker. */
  readonly redisBreakerFailures: number;
  /** How long an open breaker keeps calls away from Redis before one probe is let through. */
  readonly redisBreakerOpenMs: number;
  /** Which proxies' X-Forwarded-For to believe for the client address (Fastify trustProxy). */
  readonly trustProxy: boolean | number | string;
  /**
   * Per-address limits count an IPv6 client by this prefix of its address (a /64 is what one
   * customer usually holds); IPv4 addresses count one by one.
   */
  readonly rateLimitIpv6Prefix: number;
  // Metrics
  /** A separate port for /metrics; undefined: served on the main port (see metricsToken). */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Bearer token /metrics requires; in production /metrics on the main port needs one. */
  readonly metricsToken: string | undefined;
  /** The organisation portal (docs/portal.md, "Running the portal in production"). */
  readonly portal: PortalSettings;
}

export interface PortalSettings {
  /** A session ends after this long without a request. */
  readonly sessionIdleMinutes: number;
  /** A session ends this long after sign-in, however busy. */
  readonly sessionMaxHours: number;
  /** Whether the session cookie carries Secure (on in production: serve the portal over HTTPS). */
  readonly secureCookie: boolean;
  /** Failed sign-ins in a row, per account and per address, that lock sign-in for a while. */
  readonly lockFailures: number;
  readonly lockMinutes: number;
  /** How long a one-time set-password link works. */
  readonly linkHours: number;
  /** "Forgot your password?" requests per account per hour (an address gets five times as many). */
  readonly forgotPerHour: number;
  /** scrypt's cost of a new password hash: N = 2^passwordCost (r = 8, p = 1). */
  readonly passwordCost: number;
  /** Password checks (scrypt) that run at once, and how many may wait for one. */
  readonly passwordChecks: number;
  readonly passwordQueue: number;
  /** Where mail goes: an SMTP server, or the outbox `esim mail list` reads. */
  readonly mailTransport: 'smtp' | 'outbox';
  readonly smtpUrl: string | undefined;
  /**
   * How long a mail may wait on the SMTP server to connect and to greet, in ms; twice as long on
   * a silent socket later (SMTP_TIMEOUT_MS).
   */
  readonly smtpTimeoutMs: number;
  readonly mailFrom: string;
}

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * PostgreSQL: how long a connection may take before the try fails (DATABASE_CONNECT_TIMEOUT_MS);
 * without one a server whose packets are dropped holds the request for the OS's TCP timeout.
 */
export const DEFAULT_DATABASE_CONNECT_TIMEOUT_MS = 5000;

/**
 * PostgreSQL: the longest a statement may run (a lock wait included), or a transaction stay idle
 * (DATABASE_STATEMENT_TIMEOUT_MS); without one a row lock held by a stuck session holds every
 * request that needs the row, and their connections, for as long as it lasts.
 */
export const DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS = 30_000;

// Roughly a day in total (about 27 h), exponential with jitter applied by the worker.
export const DEFAULT_RETRY_SCHEDULE = [
  10, 30, 60, 120, 300, 600, 1200, 2400, 3600, 7200, 14400, 28800, 43200,
] as const;

function str(env: Env, key: string, fallback: string): string {
  const value = env[key];
  return value === undefined || value === '' ? fallback : value;
}

function int(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(key, `must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(key, `must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function bool(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(key, `must be true or false, got "${raw}"`);
}

export function parseDatabaseUrl(raw: string | undefined, dataDir: string): DatabaseTarget {
  if (raw === undefined || raw === '') return { kind: 'sqlite', path: `${dataDir}/esim.sqlite` };
  if (raw === 'sqlite::memory:') return { kind: 'sqlite', path: ':memory:' };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path');
    return { kind: 'sqlite', path };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    // Without one, PostgreSQL would connect to the database named as the user (often the
    // `postgres` maintenance database) and the migrations would create the tables there.
    if (url.pathname.replace(/^\//, '') === '') {
      throw new ConfigError(
        'DATABASE_URL',
        'names no database: end it with one, as postgres://user@host:port/<database>',
      );
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError(
    'DATABASE_URL',
    'must be sqlite:<path>, sqlite::memory: or postgres://user@host:port/db',
  );
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const SQLITE_SYNCHRONOUS = ['normal', 'full'] as const;
/**
 * normal: a commit survives the process (a crash, SIGKILL), and is on disk by the next
 * checkpoint; full: it is on disk before it is acknowledged (an fsync of the WAL per commit).
 */
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];

function oneOf<T extends string>(env: Env, key: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, key, fallback);
  const value = allowed.find((a) => a === raw);
  if (value === undefined) {
    throw new ConfigError(key, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return value;
}

// A host name or an IP address (IPv6 without brackets), as listen() takes it.
function parseHost(env: Env): string {
  const raw = str(env, 'HOST', '127.0.0.1');
  if (!/^[A-Za-z0-9.:-]+$/.test(raw) || raw.length > 253) {
    throw new ConfigError(
      'HOST',
      `must be a host name or IP address such as 0.0.0.0, got "${raw}"`,
    );
  }
  return raw;
}

function parseHostName(env: Env, key: string, fallback: string): string {
  const raw = str(env, key, fallback);
  if (
    !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(
      raw,
    )
  ) {
    throw new ConfigError(key, `must be a DNS host name such as smdp.example.com, got "${raw}"`);
  }
  return raw;
}

function parsePublicBaseUrl(env: Env): string {
  const raw = env['PUBLIC_BASE_URL'];
  // Unset: nothing absolute is made up (a guessed host is wrong behind a proxy or on another port).
  if (raw === undefined || raw === '') return '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_BASE_URL', `must be an http or https URL, got "${raw}"`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError('PUBLIC_BASE_URL', 'must not carry a query string or fragment');
  }
  return raw.replace(/\/+$/, '');
}

function parseCorsOrigins(raw: string | undefined, mode: Mode): readonly string[] {
  if (raw === undefined || raw.trim() === '') return mode === 'simulator' ? ['*'] : [];
  const value = raw.trim();
  if (value === '*') return ['*'];
  if (['off', 'none', 'false'].includes(value.toLowerCase())) return [];
  const origins = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (
      parsed === undefined ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      parsed.origin !== origin
    ) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `"${origin}" is not an origin such as https://app.example.com (scheme, host and port only); or use * or off`,
      );
    }
  }
  return origins;
}

function parseMasterKey(raw: string | undefined, mode: Mode): Buffer | undefined {
  if (raw === undefined || raw === '') {
    if (mode === 'production')
      throw new ConfigError('MASTER_KEY', 'is required in production mode');
    return undefined;
  }
  const value = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : Buffer.alloc(0);
  // Never echo the value: it is the secret that protects every stored API key.
  if (key.length !== 32) {
    throw new ConfigError('MASTER_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

function parseSchedule(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw === '') return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) <= 0)) {
    throw new ConfigError(
      'CALLBACK_RETRY_SCHEDULE',
      'must be comma-separated positive seconds, e.g. "1,2,5"',
    );
  }
  return parts.map(Number);
}

function parseCidrs(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parts = raw.split(',').map((p) => p.trim());
  for (const p of parts) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(p)) {
      throw new ConfigError('CALLBACK_ALLOW_CIDRS', `"${p}" is not a CIDR range like 10.0.0.0/8`);
    }
  }
  return parts;
}

/** Default costs: catalogue listing is the heaviest read, as on the live service. */
export const DEFAULT_RATE_LIMIT_COSTS: Readonly<Record<string, number>> = {
  'GET /catalogue': 5,
};

function parseCosts(raw: string | undefined): Readonly<Record<string, number>> {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RATE_LIMIT_COSTS;
  const costs: Record<string, number> = {};
  for (const part of raw.split(',').map((p) => p.trim())) {
    const match = /^(GET|HEAD|POST|PUT|PATCH|DELETE) +(\/\S*) *= *(\d+)$/i.exec(part);
    const cost = Number(match?.[3]);
    if (match === null || !Number.isSafeInteger(cost) || cost < 0 || cost > 1000) {
      throw new ConfigError(
        'RATE_LIMIT_COSTS',
        `"${part}" is not METHOD /path=cost (cost 0 to 1000), e.g. "GET /catalogue=5"`,
      );
    }
    costs[`${(match[1] ?? '').toUpperCase()} ${match[2] ?? ''}`] = cost;
  }
  return costs;
}

function parseRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  return raw.trim();
}

function parseTrustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  if (/^\d+$/.test(value) && Number(value) <= 10) return Number(value);
  const parts = value.split(',').map((p) => p.trim());
  if (parts.every((p) => /^[0-9a-f:.]+(\/\d{1,3})?$/.test(p))) return parts.join(',');
  throw new ConfigError(
    'TRUST_PROXY',
    'must be true, false, a number of proxy hops (up to 10), or comma-separated addresses/CIDR ranges',
  );
}

// scrypt's N = 2^cost for new password hashes. 15 (32 MiB, tens of milliseconds) is the floor in
// production; a simulator may go down to 10 (1 MiB, about a millisecond), which suits test suites
// that sign in thousands of times and protects nothing worth guessing.
const PASSWORD_COST = { default: 15, production: 15, min: 10, max: 20 } as const;

function passwordCost(env: Env, mode: Mode): number {
  const cost = int(
    env,
    'PORTAL_PASSWORD_COST',
    PASSWORD_COST.default,
    PASSWORD_COST.min,
    PASSWORD_COST.max,
  );
  if (mode === 'production' && cost < PASSWORD_COST.production) {
    throw new ConfigError(
      'PORTAL_PASSWORD_COST',
      `must be at least ${PASSWORD_COST.production} in production (a cheaper hash makes stolen password hashes cheap to guess), got ${cost}`,
    );
  }
  return cost;
}

/** smtp:// or smtps:// with a host: one without would fail each mail, not the start. */
function isSmtpUrl(raw: string): boolean {
  if (!/^smtps?:\/\/[^\s]+$/.test(raw)) return false;
  try {
    return new URL(raw).hostname !== '';
  } catch {
    return false;
  }
}

function parsePortalSettings(env: Env, mode: Mode): PortalSettings {
  const smtpUrl =
    env['SMTP_URL'] === undefined || env['SMTP_URL'] === '' ? undefined : env['SMTP_URL'];
  if (smtpUrl !== undefined && !isSmtpUrl(smtpUrl)) {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL with a host');
  }
  const mailTransport = oneOf(env, 'MAIL_TRANSPORT', smtpUrl === undefined ? 'outbox' : 'smtp', [
    'smtp',
    'outbox',
  ] as const);
  if (mailTransport === 'smtp' && smtpUrl === undefined) {
    throw new ConfigError('MAIL_TRANSPORT', 'smtp needs SMTP_URL');
  }
  return {
    sessionIdleMinutes: int(env, 'PORTAL_SESSION_IDLE_MINUTES', 30, 1, 7 * 24 * 60),
    sessionMaxHours: int(env, 'PORTAL_SESSION_MAX_HOURS', 12, 1, 24 * 30),
    secureCookie: bool(env, 'PORTAL_COOKIE_SECURE', mode === 'production'),
    lockFailures: int(env, 'PORTAL_LOCK_FAILURES', 20, 1, 1000),
    lockMinutes: int(env, 'PORTAL_LOCK_MINUTES', 15, 1, 24 * 60),
    linkHours: int(env, 'PORTAL_LINK_HOURS', 24, 1, 24 * 14),
    forgotPerHour: int(env, 'PORTAL_FORGOT_PER_HOUR', 3, 1, 1000),
    passwordCost: passwordCost(env, mode),
    passwordChecks: int(env, 'PORTAL_PASSWORD_CHECKS', 2, 1, 64),
    passwordQueue: int(env, 'PORTAL_PASSWORD_QUEUE', 32, 0, 10_000),
    mailTransport,
    smtpUrl,
    smtpTimeoutMs: int(env, 'SMTP_TIMEOUT_MS', 10_000, 100, 600_000),
    mailFrom: str(env, 'MAIL_FROM', 'eSIM portal <portal@localhost>'),
  };
}

// The simulator's tools load published keys, passwords and balances (a fixture), replace the
// whole state (snapshots, /_sim), reproduce identifiers (SIM_SEED) or credit balances for test
// card numbers (PAYMENT_GATEWAY=test): none of them may act on a production database, so a production start that names one is refused before anything opens.
const SIMULATOR_ONLY = {
  SEED_FILE:
    'a fixture file creates organisations with the fixed, published keys and passwords it lists',
  SIM_SEED: 'seeded identifiers make API keys and references that anyone can reproduce',
  SIM_ADMIN_TOKEN:
    'the /_sim control plane (snapshots, faults, the clock) does not exist in production',
} as const;

function refuseSimulatorTools(env: Env): void {
  for (const [key, why] of Object.entries(SIMULATOR_ONLY)) {
    if ((env[key] ?? '') !== '') {
      throw new ConfigError(
        key,
        `is a simulator tool, refused in production mode: ${why}; unset it`,
      );
    }
  }
  if ((env['PAYMENT_GATEWAY'] ?? '').trim() === 'test') {
    throw new ConfigError(
      'PAYMENT_GATEWAY',
      'test is a simulator tool, refused in production mode: the built-in test processor takes the published test card numbers and credits balances with no money moved; set none, or MODE=simulator',
    );
  }
  if (bool(env, 'DEMO_ON_FIRST_START', false)) {
    throw new ConfigError(
      'DEMO_ON_FIRST_START',
      'is a simulator tool, refused in production mode: the demo organisation is for trying the simulator; unset it',
    );
  }
}

export function loadConfig(env: Env): Config {
  const modeRaw = str(env, 'MODE', 'simulator');
  if (modeRaw !== 'simulator' && modeRaw !== 'production') {
    throw new ConfigError('MODE', `must be simulator or production, got "${modeRaw}"`);
  }
  const mode: Mode = modeRaw;
  const dataDir = str(env, 'DATA_DIR', './data');
  const port = int(env, 'PORT', 8080, 0, 65535);
  const database = parseDatabaseUrl(env['DATABASE_URL'], dataDir);
  if (mode === 'production' && database.kind === 'sqlite' && database.path === ':memory:') {
    throw new ConfigError(
      'DATABASE_URL',
      'sqlite::memory: loses every order and balance on restart; not allowed in production mode',
    );
  }
  if (mode === 'production') refuseSimulatorTools(env);
  const topUpMin = int(env, 'TOPUP_MIN', 500, 1, Number.MAX_SAFE_INTEGER);
  const topUpMax = int(env, 'TOPUP_MAX', 1_000_000, 1, Number.MAX_SAFE_INTEGER);
  if (topUpMin > topUpMax) throw new ConfigError('TOPUP_MIN', 'must not exceed TOPUP_MAX');
  const sms = str(env, 'SMS_ALLOWED_SENDERS', 'eSIM')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const config: Config = {
    mode,
    port,
    host: parseHost(env),
    database,
    sqliteBusyWaitMs: int(env, 'SQLITE_BUSY_WAIT_MS', 15_000, 0, 600_000),
    sqliteCheckpointIntervalMs: int(env, 'SQLITE_CHECKPOINT_INTERVAL_MS', 100, 0, 60_000),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', 'normal', SQLITE_SYNCHRONOUS),
    databaseConnectTimeoutMs: int(
      env,
      'DATABASE_CONNECT_TIMEOUT_MS',
      DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
      10,
      600_000,
    ),
    databaseStatementTimeoutMs: int(
      env,
      'DATABASE_STATEMENT_TIMEOUT_MS',
      DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS,
      0,
      3_600_000,
    ),
    groupCommit: bool(env, 'GROUP_COMMIT', true),
    groupCommitMaxBatch: int(env, 'GROUP_COMMIT_MAX_BATCH', 64, 1, 1000),
    groupCommitLanes: int(env, 'GROUP_COMMIT_LANES', 16, 1, 16),
    dataDir,
    masterKey: parseMasterKey(env['MASTER_KEY'], mode),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', LOG_FORMATS),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    publicBaseUrl: parsePublicBaseUrl(env),
    corsOrigins: parseCorsOrigins(env['CORS_ORIGINS'], mode),
    smdpAddress: parseHostName(env, 'SMDP_ADDRESS', 'smdp.esim-bundle.example'),
    demoOnFirstStart: bool(env, 'DEMO_ON_FIRST_START', mode === 'simulator'),
    catalogueSeed: bool(env, 'CATALOGUE_SEED', true),
    catalogueCacheEntries: int(env, 'CATALOGUE_CACHE_ENTRIES', 1000, 0, 1_000_000),
    catalogueStalenessMs: int(env, 'CATALOGUE_STALENESS_MS', 1000, 0, 1000),
    apiKeyCacheMs: int(env, 'API_KEY_CACHE_MS', 1000, 0, 10_000),
    esimCacheMs: int(env, 'ESIM_CACHE_MS', 1000, 0, 10_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 100, 600_000),
    orderMaxQuantityPerLine: int(env, 'ORDER_MAX_QUANTITY_PER_LINE', 1000, 1, 1_000_000),
    orderMaxQuantityPerOrder: int(env, 'ORDER_MAX_QUANTITY_PER_ORDER', 5000, 1, 10_000_000),
    orderMaxLines: int(env, 'ORDER_MAX_LINES', 50, 1, 1000),
    inventoryValidityDays: int(env, 'INVENTORY_VALIDITY_DAYS', 365, 1, 3650),
    inventoryRefundDays: int(env, 'INVENTORY_REFUND_DAYS', 60, 0, 3650),
    topUpMin,
    topUpMax,
    paymentLatencyMs: int(env, 'PAYMENT_LATENCY_MS', 0, 0, 120_000),
    paymentTimeoutMs: int(env, 'PAYMENT_TIMEOUT_MS', 10_000, 1, 120_000),
    paymentGateway: oneOf(env, 'PAYMENT_GATEWAY', mode === 'simulator' ? 'test' : 'none', [
      'test',
      'none',
    ] as const),
    topUpReconcileIntervalMs: int(env, 'TOPUP_RECONCILE_INTERVAL_MS', 5000, 10, 3_600_000),
    processingDelaySeconds: int(env, 'PROCESSING_DELAY_SECONDS', 0, 0, 600),
    schedulerIntervalMs: int(env, 'SCHEDULER_INTERVAL_MS', 1000, 10, 3_600_000),
    simSeed: int(env, 'SIM_SEED', 42, 0, 2 ** 31 - 1),
    seedIdentifiers: mode === 'simulator' && (env['SIM_SEED'] ?? '') !== '',
    seedFile:
      env['SEED_FILE'] === undefined || env['SEED_FILE'] === '' ? undefined : env['SEED_FILE'],
    simAdminToken: env['SIM_ADMIN_TOKEN'] === '' ? undefined : env['SIM_ADMIN_TOKEN'],
    smsAllowedSenders: sms.length > 0 ? sms : ['eSIM'],
    callbackRetryScheduleSeconds: parseSchedule(env['CALLBACK_RETRY_SCHEDULE']),
    callbackAllowCidrs: parseCidrs(env['CALLBACK_ALLOW_CIDRS']),
    callbackConnectTimeoutMs: int(env, 'CALLBACK_CONNECT_TIMEOUT_MS', 3000, 1, 60_000),
    callbackTimeoutMs: int(env, 'CALLBACK_TIMEOUT_MS', 10_000, 1, 120_000),
    callbackWorkerIntervalMs: int(env, 'CALLBACK_WORKER_INTERVAL_MS', 500, 10, 60_000),
    callbackConcurrency: int(env, 'CALLBACK_CONCURRENCY', 64, 1, 1024),
    callbackSenderThread: bool(env, 'CALLBACK_SENDER_THREAD', false),
    callbackDeliveryThread: bool(env, 'CALLBACK_DELIVERY_THREAD', false),
    callbackOrgConcurrency: int(env, 'CALLBACK_ORG_CONCURRENCY', 16, 1, 1024),
    callbackMaxPending: int(env, 'CALLBACK_MAX_PENDING', 10_000, 1, 10_000_000),
    callbackPauseAfter: int(env, 'CALLBACK_PAUSE_AFTER', 20, 1, 100_000),
    callbackBackoffMaxSeconds: int(env, 'CALLBACK_BACKOFF_MAX_SECONDS', 600, 1, 86_400),
    callbackRetentionDays: int(env, 'CALLBACK_RETENTION_DAYS', 30, 1, 3650),
    rateLimitEnabled: bool(env, 'RATE_LIMIT', mode === 'production'),
    rateLimitPoints: int(env, 'RATE_LIMIT_POINTS', 10, 1, 1_000_000),
    rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 1, 1, 86_400),
    rateLimitCosts: parseCosts(env['RATE_LIMIT_COSTS']),
    rateLimitAuthFailures: int(env, 'RATE_LIMIT_AUTH_FAILURES', 10, 1, 1_000_000),
    rateLimitAuthWindowSeconds: int(env, 'RATE_LIMIT_AUTH_WINDOW_SECONDS', 60, 1, 86_400),
    redisUrl: parseRedisUrl(env['REDIS_URL']),
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX', 'esim:'),
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000),
    callbackTestEventsPerMinute: int(env, 'CALLBACK_TEST_EVENTS_PER_MINUTE', 5, 1, 1000),
    redisBreakerFailures: int(env, 'REDIS_BREAKER_FAILURES', 3, 1, 1000),
    redisBreakerOpenMs: int(env, 'REDIS_BREAKER_OPEN_MS', 5000, 100, 600_000),
    trustProxy: parseTrustProxy(env['TRUST_PROXY']),
    rateLimitIpv6Prefix: int(env, 'RATE_LIMIT_IPV6_PREFIX', 64, 32, 128),
    metricsPort:
      env['METRICS_PORT'] === undefined || env['METRICS_PORT'] === ''
        ? undefined
        : int(env, 'METRICS_PORT', 0, 0, 65535),
    metricsHost: str(env, 'METRICS_HOST', '127.0.0.1'),
    metricsToken: parseMetricsToken(env['METRICS_TOKEN'], mode),
    portal: parsePortalSettings(env, mode),
  };
  return Object.freeze(config);
}

/** The shortest METRICS_TOKEN production takes: 16 characters, such as `openssl rand -hex 16` gives 32. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

function parseMetricsToken(raw: string | undefined, mode: Mode): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (mode === 'production' && raw.length < METRICS_TOKEN_MIN_LENGTH) {
    // The token itself is never echoed: only its length.
    throw new ConfigError(
      'METRICS_TOKEN',
      `must be at least ${METRICS_TOKEN_MIN_LENGTH} characters in production (a short token is guessed), got ${raw.length}; e.g. openssl rand -hex 16`,
    );
  }
  return raw;
}

/** A config for tests and embedding: defaults, overridden field by field. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    MODE: 'simulator',
    DATABASE_URL: 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    // The cheapest password hashing a simulator allows: tests sign in a great many times.
    PORTAL_PASSWORD_COST: '10',
  });
  return Object.freeze({ ...base, masterKey: Buffer.alloc(32, 7), ...overrides });
}

/** A listen() failure that is really a setting's fault, as a ConfigError naming that setting. */
export function listenError(error: unknown, config: Pick<Config, 'port' | 'host'>): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError('PORT', `${config.port} is already in use on ${config.host}`);
  }
  if (code === 'EACCES') {
    return new ConfigError('PORT', `${config.port} needs privileges this process does not have`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError('HOST', `cannot listen on ${config.host}: not an address of this host`);
  }
  return error;
}
