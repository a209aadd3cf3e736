// How the surfaces read the simulator's state: the armed faults, the processing delay set for the
// network, the mail the service sent, and the type of a journalled API call.

export type { ApiRequestRow } from '../../store/repositories/request-journal-repository.js';
export type { MailRecord } from '../../store/repositories/portal-repository.js';
export { listMail } from '../../store/repositories/portal-repository.js';
export {
  listFaults,
  readProcessingDelayOverride,
} from '../../store/repositories/sim-repository.js';
