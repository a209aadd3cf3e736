// The domain objects repositories take and return, and the closed unions the schema stores: the
// one import of the store from the domain, type-only (domain/stored/types.ts).
export type {
  Assignment,
  AuditEntry,
  AssignmentChanges,
  BillingType,
  Bundle,
  BundleState,
  CallbackVersion,
  ErrorCode,
  Esim,
  EsimActivity,
  EsimDetail,
  EsimLocation,
  EsimState,
  Organisation,
  PortalUser,
  ProfileStatus,
  Role,
} from '../domain/stored/types.js';
