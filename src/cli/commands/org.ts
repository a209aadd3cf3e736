import { iso } from '../../clock.js';
import { defaultGroupsFor } from '../../domain/catalogue/naming.js';
import {
  CALLBACK_VERSIONS,
  DEFAULT_KEY_GRACE_SECONDS,
  MAX_KEY_GRACE_SECONDS,
  addUser,
  createOrganisation,
  rotateApiKey,
  updateOrganisationSettings,
} from '../../domain/organisations/organisation-changes.js';
import type {
  OrganisationChanges,
  KeyChangeDeps,
} from '../../domain/organisations/organisation-changes.js';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../domain/errors/error-codes.js';
import { splitAllowList } from '../../domain/access/ip-allow-list.js';
import {
  findOrganisationById,
  listKeysInGrace,
  listOrganisations,
} from '../../domain/organisations/organisation-reads.js';
import type { Command, CommandContext } from '../command.js';
import { UsageError, onePositional, parse, parseInteger, requireOption } from '../command.js';
import { formatAmount } from '../money.js';
import { withServices } from '../services.js';
import { operator } from './audit.js';
import { portalAccess, readPasswordFromStdin } from './user.js';
import { checkPasswordRules } from '../../domain/access/passwords.js';

const orgDeps = (deps: AppDeps, ctx: CommandContext): KeyChangeDeps => ({
  db: deps.store.db,
  clock: deps.clock,
  random: deps.random,
  cipher: deps.cipher,
  checkCallbackUrl: deps.checkCallbackUrl,
  actor: operator(ctx),
  apiKeys: deps.apiKeys,
});

function splitList(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Steps run right after an organisation is created, inside the CLI (e.g. saving a simulator test
 * card). Areas register theirs here so `org create` stays one command.
 */
export type AfterCreateStep = (
  deps: AppDeps,
  orgId: string,
  flags: { noCard: boolean },
) => Promise<string | undefined>;
export const afterCreateSteps: AfterCreateStep[] = [];

export const orgCreate: Command = {
  usage:
    'esim org create --name <name> [--balance <minor units>] [--test-credit <minor units> [--test-credit-days <days>]] [--currency USD] [--groups <g1,g2>] [--callback-url <url>] [--callback-version V2|V3] [--no-card] [--json]',
  summary:
    'Create an organisation and print its id and API key. Without --groups: every built-in group in simulator mode, "Standard eSIM Bundles" in production',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      name: { type: 'string' },
      balance: { type: 'string' },
      'test-credit': { type: 'string' },
      'test-credit-days': { type: 'string' },
      currency: { type: 'string' },
      groups: { type: 'string' },
      'callback-url': { type: 'string' },
      'callback-version': { type: 'string' },
      'no-card': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"`);
    const name = requireOption(values.name, 'name');
    const balance = parseInteger(values.balance, 'balance') ?? 0;
    const testCredit = parseInteger(values['test-credit'], 'test-credit') ?? 0;
    // Without a number of days, test credit does not expire.
    const testCreditDays = parseInteger(values['test-credit-days'], 'test-credit-days', 1);
    if (testCreditDays !== undefined && testCredit === 0) {
      throw new UsageError('--test-credit-days needs --test-credit');
    }
    const callbackVersion = callbackVersionFlag(values['callback-version']);
    return withServices(ctx.config(), async (deps) => {
      const created = await createOrganisation(orgDeps(deps, ctx), {
        name,
        currency: values.currency,
        groups: splitList(values.groups) ?? defaultGroupsFor(deps.config.mode),
        callbackUrl: values['callback-url'],
        callbackVersion,
        balance,
        testCredit,
        testCreditDays,
      });
      const notes: string[] = [];
      for (const step of afterCreateSteps) {
        const note = await step(deps, created.id, { noCard: values['no-card'] === true });
        if (note !== undefined) notes.push(note);
      }
      if (values.json === true) {
        ctx.io.out(
          JSON.stringify({
            id: created.id,
            apiKey: created.apiKey,
            name: created.organisation.name,
            balance,
            notes,
          }),
        );
      } else {
        ctx.io.out(`id: ${created.id}`);
        ctx.io.out(`apiKey: ${created.apiKey}`);
        for (const note of notes) ctx.io.out(note);
      }
      return 0;
    });
  },
};

export const orgList: Command = {
  usage: 'esim org list [--json]',
  summary: 'List organisations with their balances',
  async run(ctx) {
    const { values } = parse(ctx.args, { json: { type: 'boolean' } }, false);
    return withServices(ctx.config(), async (deps) => {
      const rows = await listOrganisations(deps.store.db);
      const list = rows.map((r) => ({
        id: r.id,
        name: r.name,
        currency: r.currency,
        balance: r.balance,
        testCredit: r.testCredit,
        groups: r.groups,
        callbackUrl: r.callbackUrl,
        callbackVersion: r.callbackVersion,
      }));
      if (values.json === true) ctx.io.out(JSON.stringify(list));
      else
        for (const o of list)
          ctx.io.out(
            `${o.id}  ${o.name}  ${formatAmount(o.balance, o.currency)}  [${o.groups.join(', ')}]`,
          );
      return 0;
    });
  },
};

const UPDATE_FLAGS = {
  name: 'name',
  'callback-url': 'callbackUrl',
  'callback-version': 'callbackVersion',
  notes: 'notes',
  website: 'website',
  'business-type': 'businessType',
  'tax-liable': 'taxLiable',
  'product-description': 'productDescription',
  addr1: 'addr1',
  addr2: 'addr2',
  city: 'city',
  country: 'country',
  postcode: 'postcode',
  'billing-type': 'billingType',
} as const satisfies Record<string, keyof OrganisationChanges>;

function callbackVersionFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (!(CALLBACK_VERSIONS as readonly string[]).includes(upper)) {
    throw new UsageError(`--callback-version must be V2 or V3, got "${value}"`);
  }
  return upper;
}

export const orgUpdate: Command = {
  usage:
    'esim org update <id> [--name <n>] [--callback-url <url|"">] [--callback-version V2|V3] [--groups <g1,g2>] [--notes <text>] [--website <url>] [--business-type <t>] [--tax-liable Yes|No|ReverseCharge] [--product-description <text>] [--addr1 …] [--addr2 …] [--city …] [--country <ISO2>] [--postcode …] [--billing-type FixedCost|Consumption] [--ip-allow-list <ip,cidr,…|"">] [--json]',
  summary:
    'Change an organisation’s settings (an empty --callback-url removes it; an empty --ip-allow-list lets any address use the key)',
  async run(ctx) {
    const stringFlags = Object.fromEntries(
      Object.keys(UPDATE_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
    ) as Record<keyof typeof UPDATE_FLAGS, { type: 'string' }>;
    const { values, positionals } = parse(ctx.args, {
      ...stringFlags,
      groups: { type: 'string' },
      'ip-allow-list': { type: 'string' },
      json: { type: 'boolean' },
    });
    const id = onePositional(positionals, 'organisation id');
    const changes: OrganisationChanges = {};
    const allowList = values['ip-allow-list'];
    if (allowList !== undefined) changes.ipAllowList = splitAllowList(allowList);
    for (const [flag, field] of Object.entries(UPDATE_FLAGS)) {
      const value = (values as Record<string, string | undefined>)[flag];
      if (value !== undefined) changes[field] = value;
    }
    if (values.groups !== undefined) changes.groups = splitList(values.groups);
    changes.callbackVersion = callbackVersionFlag(values['callback-version']);
    if (Object.values(changes).every((v) => v === undefined)) {
      throw new UsageError('nothing to change: give at least one option');
    }
    return withServices(ctx.config(), async (deps) => {
      const row = await updateOrganisationSettings(
        orgDeps(deps, ctx),
        id,
        changes,
        deps.checkCallbackUrl,
      );
      const summary = {
        id: row.id,
        name: row.name,
        callbackUrl: row.callbackUrl,
        callbackVersion: row.callbackVersion,
        groups: row.groups,
        billingType: row.billingType,
        ipAllowList: row.ipAllowList,
      };
      ctx.io.out(values.json === true ? JSON.stringify(summary) : `updated ${row.id}`);
      return 0;
    });
  },
};

/** A duration such as `24h`, `90m`, `7d`, `3600s` or `0`, in seconds. */
export function parseGrace(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (match === null) {
    throw new UsageError(`--grace must be a duration such as 24h, 90m, 7d or 0, got "${value}"`);
  }
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  if (seconds > MAX_KEY_GRACE_SECONDS) {
    throw new UsageError(`--grace must not exceed ${MAX_KEY_GRACE_SECONDS / 86_400}d`);
  }
  return seconds;
}

export const orgRotateKey: Command = {
  usage: 'esim org rotate-key <id> [--grace 24h|90m|7d|0] [--json]',
  summary:
    'Replace an organisation’s API key (also the V3 callback signing key); the old key keeps working for the grace period (default 24h, 0: stops at once)',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      grace: { type: 'string' },
      json: { type: 'boolean' },
    });
    const id = onePositional(positionals, 'organisation id');
    const grace = parseGrace(values.grace) ?? DEFAULT_KEY_GRACE_SECONDS;
    return withServices(ctx.config(), async (deps) => {
      const rotated = await rotateApiKey(orgDeps(deps, ctx), id, grace);
      if (values.json === true) {
        ctx.io.out(
          JSON.stringify({
            id,
            apiKey: rotated.apiKey,
            previousKeyValidUntil: rotated.previousValidUntil,
          }),
        );
      } else {
        ctx.io.out(`apiKey: ${rotated.apiKey}`);
        ctx.io.out(
          grace === 0
            ? 'previous keys: stopped working now'
            : `previous key: valid until ${rotated.previousValidUntil}`,
        );
      }
      return 0;
    });
  },
};

export const orgShow: Command = {
  usage: 'esim org show <id> [--json]',
  summary:
    'Show an organisation: settings, balances, and rotated-out API keys still in their grace period',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const id = onePositional(positionals, 'organisation id');
    return withServices(ctx.config(), async (deps) => {
      const row = await findOrganisationById(deps.store.db, id);
      if (row === undefined) throw notFound(`organisation ${id} not found`);
      const now = iso(deps.clock.now());
      const grace = await listKeysInGrace(deps.store.db, id, now);
      const view = {
        id: row.id,
        name: row.name,
        currency: row.currency,
        balance: row.balance,
        testCredit: row.testCredit,
        groups: row.groups,
        callbackUrl: row.callbackUrl,
        callbackVersion: row.callbackVersion,
        billingType: row.billingType,
        ipAllowList: row.ipAllowList,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        // Never the keys themselves: only when each rotated-out key was replaced and stops.
        previousKeys: grace.map((k) => ({ rotatedAt: k.rotatedAt, validUntil: k.validUntil })),
      };
      if (values.json === true) {
        ctx.io.out(JSON.stringify(view));
        return 0;
      }
      ctx.io.out(`id: ${view.id}`);
      ctx.io.out(`name: ${view.name}`);
      ctx.io.out(
        `balance: ${formatAmount(view.balance, view.currency)} (test credit ${formatAmount(view.testCredit, view.currency)})`,
      );
      ctx.io.out(`groups: ${view.groups.join(', ')}`);
      ctx.io.out(
        `callback: ${view.callbackUrl === '' ? '(none)' : view.callbackUrl} ${view.callbackVersion}`,
      );
      ctx.io.out(`billing: ${view.billingType}`);
      ctx.io.out(
        `IP allow-list: ${view.ipAllowList.length === 0 ? '(any address)' : view.ipAllowList.join(', ')}`,
      );
      if (view.previousKeys.length === 0) ctx.io.out('previous keys: none in grace period');
      for (const k of view.previousKeys) {
        ctx.io.out(`previous key: rotated ${k.rotatedAt}, valid until ${k.validUntil}`);
      }
      return 0;
    });
  },
};

export const userAdd: Command = {
  usage:
    'esim user add <org id> --email <e> --first-name <f> --last-name <l> --role <Admin|Finance|Developer|Support|Viewer> [--phone <p>] [--time-zone <tz>] [--password-stdin] [--json]',
  summary:
    'Add a user to an organisation; prints a one-time link to set the portal password, or reads the password from standard input',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string' },
      'time-zone': { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const orgId = onePositional(positionals, 'organisation id');
    const password =
      values['password-stdin'] === true ? await readPasswordFromStdin(ctx) : undefined;
    if (password !== undefined) checkPasswordRules(password);
    const input = {
      email: requireOption(values.email, 'email'),
      firstName: requireOption(values['first-name'], 'first-name'),
      lastName: requireOption(values['last-name'], 'last-name'),
      role: requireOption(values.role, 'role'),
      phoneNumber: values.phone,
      timeZone: values['time-zone'],
    };
    return withServices(ctx.config(), async (deps) => {
      const user = await addUser(orgDeps(deps, ctx), orgId, input);
      const link = await portalAccess(deps, ctx, user.id, password);
      if (values.json === true) {
        ctx.io.out(JSON.stringify({ id: user.id, email: user.email, setPasswordUrl: link }));
        return 0;
      }
      ctx.io.out(`added user ${user.id}`);
      if (link !== undefined) {
        ctx.io.out(
          `set-password link (works once, for ${deps.config.portal.linkHours} hours): ${link}`,
        );
      }
      return 0;
    });
  },
};
