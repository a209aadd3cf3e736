// The domain's types the store keeps and returns, in one place: the store names the domain
// through this file only (store/domain-types.ts), and a dependency rule keeps it so. Types only:
// the store runs no domain rule.
export type { AuditEntry } from '../audit/audit-entry.js';
export type { Bundle } from '../catalogue/bundle.js';
export type { CallbackEndpoint } from '../callbacks/callback-endpoint.js';
export type { CallbackEvent, DeliveryAttempt, EventStatus } from '../callbacks/callback-event.js';
export type { PortalUser, Role } from '../access/portal-user.js';
export type { ErrorCode } from '../errors/error-codes.js';
export type { BundleState } from '../esims/lifecycle/states.js';
export type { Assignment, AssignmentChanges } from '../esims/lifecycle/assignment.js';
export type { Esim, EsimActivity, EsimDetail, EsimState, ProfileStatus } from '../esims/esim.js';
export type { EsimLocation } from '../network/esim-location.js';
export type { SimFault } from '../simulator/fault.js';
export type { BillingType, CallbackVersion, Organisation } from '../organisations/organisation.js';
