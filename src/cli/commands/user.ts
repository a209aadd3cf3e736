import type { AppDeps } from '../../deps.js';
import { notFound } from '../../domain/errors/error-codes.js';
import { issueSetPasswordLink, setPassword } from '../../domain/access/set-password-links.js';
import type { PortalUser } from '../../domain/access/portal-user.js';
import { changeUserRole, listUsersOf, removeUser } from '../../domain/access/organisation-users.js';
import {
  findOrganisationById,
  findUserById,
} from '../../domain/organisations/organisation-reads.js';
import type { Command, CommandContext } from '../command.js';
import { UsageError, onePositional, parse } from '../command.js';
import { recordedServerAddress } from '../../server-address.js';
import { withServices } from '../services.js';
import { operator } from './audit.js';

// How a user added by `esim user add` gets into the portal: a one-time set-password link
// printed for the operator to pass on, or, with --password-stdin (for scripts), the password
// read from standard input (its first line).

export async function readPasswordFromStdin(ctx: CommandContext): Promise<string> {
  if (ctx.io.readStdin === undefined) throw new UsageError('--password-stdin needs standard input');
  const text = await ctx.io.readStdin();
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '')
    throw new UsageError('--password-stdin read no password from standard input');
  return password;
}

/**
 * Sets the password, or issues the link; returns the link when there is one. Without
 * PUBLIC_BASE_URL the link points at the server of this data folder where it runs (the address
 * it recorded, as `esim sim …` finds it), so it carries the port the server really listens on.
 */
export async function portalAccess(
  deps: AppDeps,
  ctx: CommandContext,
  userId: string,
  password: string | undefined,
): Promise<string | undefined> {
  if (password === undefined) {
    return issueSetPasswordLink(deps, userId, recordedServerAddress(deps.config.dataDir));
  }
  const user = await findUserById(deps.store.db, userId);
  if (user === undefined) throw new Error(`user ${userId} vanished`);
  await setPassword(deps, operator(ctx), user, password);
  return undefined;
}

/** The user meant by `ref`, an id or an email address, among the organisation's users. */
async function userByRef(deps: AppDeps, orgId: string, ref: string): Promise<PortalUser> {
  const users = await listUsersOf(deps, orgId);
  const lower = ref.toLowerCase();
  const user = users.find((u) => u.id === ref || u.email.toLowerCase() === lower);
  if (user === undefined) throw notFound(`organisation ${orgId} has no user ${ref}`);
  return user;
}

/** Exactly `count` positional arguments, or a usage error naming them. */
function positionalsOf(positionals: readonly string[], count: number, what: string): string[] {
  if (positionals.length !== count) throw new UsageError(`expected ${what}`);
  return [...positionals];
}

export const userList: Command = {
  usage: 'esim user list <org id> [--json]',
  summary: "List an organisation's portal users with their roles",
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const orgId = onePositional(positionals, 'organisation id');
    return withServices(ctx.config(), async (deps) => {
      if ((await findOrganisationById(deps.store.db, orgId)) === undefined) {
        throw notFound(`organisation ${orgId} not found`);
      }
      const users = await listUsersOf(deps, orgId);
      if (values.json === true) {
        ctx.io.out(JSON.stringify(users));
        return 0;
      }
      if (users.length === 0) ctx.io.out('no users');
      for (const u of users) {
        ctx.io.out(`${u.id}  ${u.role.padEnd(9)}  ${u.email}  ${u.firstName} ${u.lastName}`);
      }
      return 0;
    });
  },
};

export const userRole: Command = {
  usage: 'esim user role <org id> <user id|email> <Admin|Finance|Developer|Support|Viewer>',
  summary: 'Change the role of a portal user (the last Admin keeps the Admin role)',
  async run(ctx) {
    const { positionals } = parse(ctx.args, {});
    const [orgId = '', ref = '', role = ''] = positionalsOf(
      positionals,
      3,
      'an organisation id, a user (id or email) and a role',
    );
    return withServices(ctx.config(), async (deps) => {
      const user = await userByRef(deps, orgId, ref);
      const changed = await changeUserRole(deps, operator(ctx), orgId, user.id, role);
      ctx.io.out(`user ${changed.id} (${changed.email}) is now ${changed.role}`);
      return 0;
    });
  },
};

export const userRemove: Command = {
  usage: 'esim user remove <org id> <user id|email>',
  summary:
    'Remove a portal user: their sessions and links end at once (the last Admin cannot be removed)',
  async run(ctx) {
    const { positionals } = parse(ctx.args, {});
    const [orgId = '', ref = ''] = positionalsOf(
      positionals,
      2,
      'an organisation id and a user (id or email)',
    );
    return withServices(ctx.config(), async (deps) => {
      const user = await userByRef(deps, orgId, ref);
      const removed = await removeUser(deps, operator(ctx), orgId, user.id);
      ctx.io.out(`removed user ${removed.id} (${removed.email})`);
      return 0;
    });
  },
};
