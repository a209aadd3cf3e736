import type { Db, Executor } from '../../store/database.js';
import { readSnapshot } from '../../store/read-snapshot.js';
import { findEsim } from '../../store/repositories/esim-repository.js';
import { listFilteredEsims } from '../../store/repositories/esim-filter-repository.js';
import type {
  FilteredPage,
  FilteredPageRequest,
} from '../../store/repositories/esim-filter-repository.js';
import type { Esim } from './esim.js';

// How the surfaces read eSIMs beside `readEsim` (esim-details.ts): an eSIM by ICCID whoever owns
// it (the operator's CLI), the organisation's list (a page, a filtered page, one ICCID), the
// activity of a page's eSIMs, an eSIM's history, bundles, network and SMS.

export type {
  EsimFilter,
  EsimFilterColumn,
  FilteredPage,
  FilteredPageRequest,
  ListEnd,
  ListPosition,
  ListStart,
} from '../../store/repositories/esim-filter-repository.js';
export {
  FILTER_WINDOW,
  FilteredPageTooDeep,
} from '../../store/repositories/esim-filter-repository.js';
export type { EsimAssignments } from '../../store/repositories/assignment-repository.js';
export { listEsimAssignments } from '../../store/repositories/assignment-repository.js';
export { esimActivity, findEsim, findOwnedEsim } from '../../store/repositories/esim-repository.js';
export { readEsimPage } from '../../store/repositories/esim-list-repository.js';
export { listOwnedHistory } from '../../store/repositories/history-repository.js';
export { findOwnedNetwork } from '../../store/repositories/network-repository.js';
export type { SmsRow } from '../../store/repositories/sms-repository.js';
export { listSms } from '../../store/repositories/sms-repository.js';

/**
 * The organisation's eSIM of that ICCID as its list shows it: undefined when unknown, another
 * organisation's or deleted (a deleted eSIM has left the list). Found by its primary key alone:
 * with the organisation in the WHERE clause a planner may walk the organisation's eSIMs instead.
 */
export async function findListedEsim(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<Esim | undefined> {
  const esim = await findEsim(db, iccid);
  const mine = esim !== undefined && esim.organisationId === organisationId;
  return mine && esim.state !== 'deactivated' ? esim : undefined;
}

/**
 * A page of the organisation's eSIMs filtered through esim_filters, its statements (its window's
 * count, its matches, where it stops and its rows) run in one snapshot: a row that leaves the
 * range meanwhile cannot move the place the next page starts from past a match no statement
 * checked. Throws FilteredPageTooDeep past the window a page by number may reach.
 */
export function readFilteredEsims(db: Db, request: FilteredPageRequest): Promise<FilteredPage> {
  return readSnapshot(db, (trx) => listFilteredEsims(trx, request));
}
