import { conflict, notFound } from '../errors/error-codes.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit } from '../audit/audit-log.js';
import type { NewUserInput } from '../organisations/organisation-changes.js';
import { addUser } from '../organisations/organisation-changes.js';
import {
  deleteUser,
  findUserById,
  listPortalUsers,
  lockAdmins,
  updateUserRole,
} from '../../store/repositories/user-repository.js';
import type { Executor } from '../../store/database.js';
import type { UseCase } from '../runner/use-case-runner.js';
import { runWrite } from '../runner/use-case-runner.js';
import type { PortalDeps } from './access-deps.js';
import { issueSetPasswordLink } from './set-password-links.js';
import type { PortalUser, Role } from './portal-user.js';
import { isRole } from './portal-user.js';
import { badRequest } from '../errors/error-codes.js';

// The organisation's users: add (with a one-time set-password link), change role, remove. An
// organisation always keeps at least one Admin: the last one can be neither demoted nor removed.
// The check and the change happen in one transaction with the Admins locked (PostgreSQL) or the
// write lock held (SQLite), so two concurrent changes cannot both pass it.

export const LAST_ADMIN_DEMOTE = 'the last Admin of the organisation cannot be given another role';
export const LAST_ADMIN_REMOVE = 'the last Admin of the organisation cannot be removed';

export function listUsersOf(deps: PortalDeps, organisationId: string): Promise<PortalUser[]> {
  return listPortalUsers(deps.store.db, organisationId);
}

export async function addOrganisationUser(
  deps: PortalDeps,
  who: AuditActor,
  organisationId: string,
  input: NewUserInput,
): Promise<{ user: PortalUser; link: string }> {
  const user = await addUser({ ...deps, db: deps.store.db, actor: who }, organisationId, input);
  const link = await issueSetPasswordLink(deps, user.id);
  return { user, link };
}

interface UserChange {
  readonly who: AuditActor;
  readonly organisationId: string;
  readonly userId: string;
}

/** The user, with the organisation's Admins locked, in the change's transaction. */
async function lockedUser(
  tx: Executor,
  deps: PortalDeps,
  change: UserChange,
): Promise<{ user: PortalUser; admins: number }> {
  const admins = await lockAdmins(tx, change.organisationId, deps.store.dialect);
  const user = await findUserById(tx, change.userId);
  if (user === undefined || user.organisationId !== change.organisationId) {
    throw notFound(`user ${change.userId} not found`);
  }
  return { user, admins: admins.length };
}

/** Gives a user another role; the last Admin keeps theirs. */
export const applyRoleChange: UseCase<PortalDeps, UserChange & { role: Role }, PortalUser> = async (
  tx,
  deps,
  change,
) => {
  const { user, admins } = await lockedUser(tx, deps, change);
  if (user.role === change.role) return user;
  if (user.role === 'Admin' && admins <= 1) throw conflict(LAST_ADMIN_DEMOTE);
  await updateUserRole(tx, user.id, change.role);
  await audit(tx, change.who, {
    action: 'user.role_changed',
    organisationId: change.organisationId,
    at: deps.clock.now(),
    details: { userId: user.id, email: user.email, from: user.role, to: change.role },
  });
  return { ...user, role: change.role };
};

/** Removes a user with their password, sessions and links; the last Admin stays. */
export const applyUserRemoval: UseCase<PortalDeps, UserChange, PortalUser> = async (
  tx,
  deps,
  change,
) => {
  const { user, admins } = await lockedUser(tx, deps, change);
  if (user.role === 'Admin' && admins <= 1) throw conflict(LAST_ADMIN_REMOVE);
  await deleteUser(tx, user.id);
  await audit(tx, change.who, {
    action: 'user.removed',
    organisationId: change.organisationId,
    at: deps.clock.now(),
    details: { userId: user.id, email: user.email, role: user.role },
  });
  return user;
};

export async function changeUserRole(
  deps: PortalDeps,
  who: AuditActor,
  organisationId: string,
  userId: string,
  role: string,
): Promise<PortalUser> {
  if (!isRole(role)) {
    throw badRequest('role must be one of Admin, Finance, Developer, Support, Viewer');
  }
  return runWrite(deps, applyRoleChange, { who, organisationId, userId, role });
}

export async function removeUser(
  deps: PortalDeps,
  who: AuditActor,
  organisationId: string,
  userId: string,
): Promise<PortalUser> {
  return runWrite(deps, applyUserRemoval, { who, organisationId, userId });
}
