import type { AppDeps } from '../../deps.js';
import { issueSetPasswordLink, setPassword } from '../../domain/portal/links.js';
import { findUserById } from '../../store/repositories/user-repository.js';
import type { CommandContext } from '../command.js';
import { UsageError } from '../command.js';
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

/** Sets the password, or issues the link; returns the link when there is one. */
export async function portalAccess(
  deps: AppDeps,
  ctx: CommandContext,
  userId: string,
  password: string | undefined,
): Promise<string | undefined> {
  if (password === undefined) return issueSetPasswordLink(deps, userId);
  const user = await findUserById(deps.store.db, userId);
  if (user === undefined) throw new Error(`user ${userId} vanished`);
  await setPassword(deps, operator(ctx), user, password);
  return undefined;
}
