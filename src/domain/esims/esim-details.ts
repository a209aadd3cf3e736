import type * as QRCodeModule from 'qrcode';
import type { Executor } from '../../store/database.js';
import { listEsimAssignments } from '../../store/repositories/assignment-repository.js';
import { findEsimDetail } from '../../store/repositories/esim-repository.js';
import { readEsimPage } from '../../store/repositories/esim-list-repository.js';
import { searchEsims } from '../../store/repositories/esim-search-repository.js';
import type { HistoryEntry } from '../../store/repositories/history-repository.js';
import { listHistory } from '../../store/repositories/history-repository.js';
import { findNetwork } from '../../store/repositories/network-repository.js';
import type { EsimLocation } from '../network/esim-location.js';
import type { Esim, EsimDetail } from './esim.js';
import type { Assignment } from './lifecycle/assignment.js';
import { isValidIccid } from './esim-issuer.js';
import { esimNotFound } from './owned-esim.js';
import { DomainError, badRequest } from '../errors/error-codes.js';
import type { BalanceRefundDeps } from '../money/balance-refund.js';
import { planBalanceRefund } from '../money/balance-refund.js';
import { planRevoke } from './lifecycle/revoke-assignment.js';
import { activationCodeOf } from './install-data.js';
import { canTransition } from './lifecycle/states.js';
import type { DayUsage } from './usage-days.js';
import { USAGE_DAYS, dailySeries, dayRange } from './usage-days.js';
import { esimUsageDays } from '../../store/repositories/usage-repository.js';

// The QR code library (and the PNG encoder it brings) is loaded by the first eSIM details that
// draw a code, not by a start.
let qrCode: Promise<typeof QRCodeModule> | undefined;
const loadQrCode = (): Promise<typeof QRCodeModule> => (qrCode ??= import('qrcode'));

// What is read of an organisation's eSIMs: one eSIM with its activity (readEsim: the API's
// GET /esims/{iccid} and the portal's eSIM page both read it so), and for a person looking after
// them, a searchable page of them and one eSIM with its bundles, usage, history, where it was
// last seen and its install QR code (readEsimDetails).

export const HISTORY_SHOWN = 50;

export interface EsimListPage {
  readonly esims: readonly Esim[];
  /** How many eSIMs the organisation holds; undefined for a search (not counted). */
  readonly total?: number;
  /** A search's neighbouring pages, by key: the ICCIDs to page before and after. */
  readonly before?: string;
  readonly after?: string;
}

export interface EsimListOptions {
  /** The start of an ICCID, digits (spaces ignored); empty lists every eSIM. */
  readonly search: string;
  /** Without a search: the page by number. */
  readonly offset: number;
  readonly limit: number;
  /** With a search: the page after or before this ICCID. */
  readonly after?: string;
  readonly before?: string;
}

/**
 * A page of the organisation's eSIMs: newest first by page number, or, for a search, those whose
 * ICCID starts with the digits given (spaces are ignored, as people copy ICCIDs in groups), in
 * ICCID order, paged by key. Both read an index range the size of the page.
 */
export async function listOrganisationEsims(
  db: Executor,
  organisationId: string,
  options: EsimListOptions,
): Promise<EsimListPage> {
  const digits = options.search.replace(/\s+/g, '');
  if (!/^\d{0,19}$/.test(digits)) {
    throw badRequest('ICCID search must be up to 19 digits (the start of an ICCID)');
  }
  if (digits === '') {
    const page = await readEsimPage(db, organisationId, {
      offset: options.offset,
      limit: options.limit,
      direction: 'desc',
    });
    return { esims: page.rows, total: page.total };
  }
  for (const key of [options.after, options.before]) {
    if (key !== undefined && !/^\d{1,22}$/.test(key)) {
      throw badRequest('after and before must be ICCIDs (digits)');
    }
  }
  const page = await searchEsims(db, organisationId, {
    prefix: digits,
    limit: options.limit,
    ...(options.after === undefined ? {} : { after: options.after }),
    ...(options.before === undefined ? {} : { before: options.before }),
  });
  const first = page.esims[0]?.iccid;
  const last = page.esims.at(-1)?.iccid;
  return {
    esims: page.esims,
    ...(page.earlier && first !== undefined ? { before: first } : {}),
    ...(page.later && last !== undefined ? { after: last } : {}),
  };
}

export interface AssignmentView {
  readonly assignment: Assignment;
  /** Processing, Queued or Active: a revoke is possible. */
  readonly revocable: boolean;
  /**
   * What a revoke refunding it to the organisation's money would give back (minor units), where
   * the rules permit one (unused, within the refund window); undefined otherwise.
   */
  readonly balanceRefund?: number;
}

export interface EsimBundleView {
  readonly name: string;
  readonly description: string;
  readonly assignments: readonly AssignmentView[];
}

export interface EsimDetails {
  /** The eSIM as readEsim reads it. */
  readonly esim: EsimDetail;
  readonly bundles: readonly EsimBundleView[];
  /** Newest first, at most HISTORY_SHOWN entries. */
  readonly history: readonly HistoryEntry[];
  readonly location: EsimLocation | undefined;
  /** LPA:1$<SM-DP+ address>$<matching id>, what the QR code carries. */
  readonly activationCode: string;
  /** The install QR code as an SVG document. */
  readonly qrSvg: string;
  /** Data used per UTC day of the last USAGE_DAYS days, oldest first. */
  readonly usageDays: readonly DayUsage[];
}

function groupByBundle(
  assignments: readonly Assignment[],
  descriptions: ReadonlyMap<string, string>,
): EsimBundleView[] {
  const byName = new Map<string, AssignmentView[]>();
  for (const assignment of assignments) {
    const list = byName.get(assignment.bundleName) ?? [];
    list.push({ assignment, revocable: canTransition(assignment.state, 'Revoked') });
    byName.set(assignment.bundleName, list);
  }
  return [...byName].map(([name, assignments]) => ({
    name,
    description: descriptions.get(name) ?? '',
    assignments,
  }));
}

/**
 * What refunding an assignment to the organisation's money would give back, or undefined when
 * the rules of such a refund (revoke-assignment.ts, balance-refund.ts) do not permit one.
 */
export async function balanceRefundOffer(
  db: Executor,
  deps: BalanceRefundDeps,
  assignment: Assignment,
): Promise<number | undefined> {
  try {
    planRevoke(assignment, 'balance');
    const refund = await planBalanceRefund(db, deps, assignment);
    return refund.toBalance + refund.toTestCredit;
  } catch (error) {
    if (error instanceof DomainError && error.status === 400) return undefined;
    throw error;
  }
}

/** The bundles with, for each unused assignment, what a refund to the money would give back. */
async function withRefundOffers(
  db: Executor,
  deps: BalanceRefundDeps,
  bundles: readonly EsimBundleView[],
): Promise<EsimBundleView[]> {
  return Promise.all(
    bundles.map(async (b) => ({
      ...b,
      assignments: await Promise.all(
        b.assignments.map(async (a) => {
          if (!a.revocable || a.assignment.state === 'Active') return a;
          const balanceRefund = await balanceRefundOffer(db, deps, a.assignment);
          return balanceRefund === undefined ? a : { ...a, balanceRefund };
        }),
      ),
    })),
  );
}

/**
 * One eSIM of the organisation with its activity, in one statement; 404 when unknown or
 * another's. The one read of an eSIM: GET /esims/{iccid} renders it as its answer (through the
 * answers it holds in memory, http/routes/esims/detail-cache.ts), the portal's eSIM page as its
 * profile (readEsimDetails). Each surface checks the ICCID first, in its own words.
 */
export async function readEsim(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<EsimDetail> {
  const esim = await findEsimDetail(db, organisationId, iccid);
  if (esim === undefined) throw esimNotFound(iccid);
  return esim;
}

/**
 * One eSIM of the organisation, as readEsim reads it, with its bundles, usage, history, location
 * and install QR code; 400 for a malformed ICCID, 404 when unknown or another's. With
 * `refunds`, each unused assignment says what a refund of it to the balance would give back.
 */
export async function readEsimDetails(
  db: Executor,
  organisationId: string,
  iccid: string,
  at: Date,
  refunds?: BalanceRefundDeps,
): Promise<EsimDetails> {
  if (!isValidIccid(iccid)) {
    throw badRequest(
      `"${iccid.slice(0, 40)}" is not an ICCID: expected 19 digits starting 89 with a valid Luhn check digit`,
      'invalid_iccid',
    );
  }
  const esim = await readEsim(db, organisationId, iccid);
  const range = dayRange(at, USAGE_DAYS);
  const [found, history, location, used] = await Promise.all([
    listEsimAssignments(db, organisationId, iccid),
    listHistory(db, iccid, HISTORY_SHOWN),
    findNetwork(db, iccid),
    esimUsageDays(db, iccid, range.from, range.to),
  ]);
  const assignments = found?.assignments ?? [];
  const descriptions = found?.descriptions ?? new Map<string, string>();
  // A deleted eSIM keeps no install secrets: no activation code, no QR code.
  const deleted = esim.state === 'deactivated';
  const activationCode = deleted
    ? ''
    : activationCodeOf({ smdpAddress: esim.smdpAddress, matchingId: esim.matchingId });
  const qrSvg = deleted
    ? ''
    : await (
        await loadQrCode()
      ).default.toString(activationCode, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  const grouped = groupByBundle(assignments, descriptions);
  return {
    esim,
    bundles: refunds === undefined ? grouped : await withRefundOffers(db, refunds, grouped),
    history,
    location,
    activationCode,
    qrSvg,
    usageDays: dailySeries(used, at, USAGE_DAYS),
  };
}
