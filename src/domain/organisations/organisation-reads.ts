// How every surface reads organisations: one by id, all of them, its users as stored, a portal
// user by id, its API key as stored (encrypted) and the rotated-out keys still in their grace
// period.

export { listKeysInGrace } from '../../store/repositories/api-key-repository.js';
export {
  findEncryptedApiKey,
  findOrganisationById,
  findStoredApiKey,
  listOrganisations,
  listUsers,
} from '../../store/repositories/organisation-repository.js';
export { findUserById } from '../../store/repositories/user-repository.js';
