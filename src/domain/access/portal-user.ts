// A user of an organisation as the portal sees it (the spec's User, with its id and organisation).

export const PORTAL_ROLES = ['Admin', 'Finance', 'Developer', 'Support', 'Viewer'] as const;
export type Role = (typeof PORTAL_ROLES)[number];

export function isRole(value: string): value is Role {
  return (PORTAL_ROLES as readonly string[]).includes(value);
}

export interface PortalUser {
  readonly id: string;
  readonly organisationId: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: Role;
  readonly email: string;
  readonly phoneNumber: string;
  /** IANA time zone the portal shows dates in. */
  readonly timeZone: string;
  readonly createdAt: string;
}
