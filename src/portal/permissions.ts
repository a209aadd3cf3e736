import type { Role } from '../domain/access/portal-user.js';

// What each role may do in the portal, enforced on the server for every action
// (requirePermission in context.ts), not by hiding buttons. docs/portal.md has the same table.

export type Permission =
  | 'read'
  | 'billing.write'
  | 'key.reveal'
  | 'key.rotate'
  | 'callbacks.write'
  | 'users.write'
  | 'esims.write'
  | 'sms.send'
  | 'orders.write'
  | 'activity.read';

export const PERMISSIONS: readonly Permission[] = [
  'read',
  'billing.write',
  'key.reveal',
  'key.rotate',
  'callbacks.write',
  'users.write',
  'esims.write',
  'sms.send',
  'orders.write',
  'activity.read',
];

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  Admin: PERMISSIONS,
  Finance: ['read', 'billing.write'],
  Developer: ['read', 'key.reveal', 'key.rotate', 'callbacks.write'],
  Support: ['read', 'sms.send'],
  Viewer: ['read'],
};

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
