import { conflict, notFound } from '../errors.js';
import type { AuditActor } from '../audit.js';
import { audit } from '../audit.js';
import type { NewUserInput } from '../organisations.js';
import { addUser } from '../organisations.js';
import {
  deleteUser,
  findUserById,
  listPortalUsers,
  lockAdmins,
  updateUserRole,
} from '../../store/repositories/user-repository.js';
import { portalUserFromRow } from '../../store/repositories/user-repository.js';
import type { PortalDeps } from './deps.js';
import { issueSetPasswordLink } from './links.js';
import type { PortalUser, Role } from './user.js';
import { isRole } from './user.js';
import { badRequest } from '../errors.js';

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
  const row = await addUser({ ...deps, db: deps.store.db, actor: who }, organisationId, input);
  const link = await issueSetPasswordLink(deps, row.id);
  return { user: portalUserFromRow(row), link };
}

/** The user, if they belong to the organisation (another organisation's user is not found). */
export async function userOf(
  deps: PortalDeps,
  organisationId: string,
  userId: string,
): Promise<PortalUser> {
  const user = await findUserById(deps.store.db, userId);
  if (user === undefined || user.organisationId !== organisationId) {
    throw notFound(`user ${userId} not found`);
  }
  return user;
}

export async function changeUserRole(
  deps: PortalDeps,
  who: AuditActor,
  organisationId: string,
  userId: string,
  role: string,
): Promise<PortalUser> {
  if (!isRole(role))
    throw badRequest('role must be one of Admin, Finance, Developer, Support, Viewer');
  const newRole: Role = role;
  return deps.store.db.transaction().execute(async (trx) => {
    const admins = await lockAdmins(trx, organisationId, deps.store.dialect);
    const user = await findUserById(trx, userId);
    if (user === undefined || user.organisationId !== organisationId) {
      throw notFound(`user ${userId} not found`);
    }
    if (user.role === newRole) return user;
    if (user.role === 'Admin' && admins.length <= 1) throw conflict(LAST_ADMIN_DEMOTE);
    await updateUserRole(trx, userId, newRole);
    await audit(trx, who, {
      action: 'user.role_changed',
      organisationId,
      at: deps.clock.now(),
      details: { userId, email: user.email, from: user.role, to: newRole },
    });
    return { ...user, role: newRole };
  });
}

export async function removeUser(
  deps: PortalDeps,
  who: AuditActor,
  organisationId: string,
  userId: string,
): Promise<PortalUser> {
  return deps.store.db.transaction().execute(async (trx) => {
    const admins = await lockAdmins(trx, organisationId, deps.store.dialect);
    const user = await findUserById(trx, userId);
    if (user === undefined || user.organisationId !== organisationId) {
      throw notFound(`user ${userId} not found`);
    }
    if (user.role === 'Admin' && admins.length <= 1) throw conflict(LAST_ADMIN_REMOVE);
    await deleteUser(trx, userId);
    await audit(trx, who, {
      action: 'user.removed',
      organisationId,
      at: deps.clock.now(),
      details: { userId, email: user.email, role: user.role },
    });
    return user;
  });
}
