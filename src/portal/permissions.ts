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
  | 'activity.read'
  /** Simulator mode: drive the simulator from its console (clock, eSIMs, faults). */
  | 'simulator.write';

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
  'simulator.write',
];

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  Admin: PERMISSIONS,
  Finance: ['read', 'billing.write'],
  // Not the key: the API key carries every API power of the organisation (orders, top-ups from
  // the saved card, SMS), more than any role but Admin has here; revealing it would give a
  // Developer those powers by another door.
  Developer: ['read', 'callbacks.write', 'simulator.write'],
  Support: ['read', 'sms.send'],
  Viewer: ['read'],
};

export function can(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
