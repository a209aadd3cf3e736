import type { DeliverySummary } from '../callbacks/deliveries.js';
import { listDeliveries } from '../callbacks/deliveries.js';
import type { Db } from '../../store/database.js';
import type { FailingCounts } from '../../store/repositories/callback-repository.js';
import { countFailingEvents } from '../../store/repositories/callback-repository.js';
import { countEsimsByProfileStatus } from '../../store/repositories/esim-repository.js';
import { readFunds } from '../../store/repositories/ledger-repository.js';
import type { StoredOrder } from '../../store/repositories/order-repository.js';
import { listOrders } from '../../store/repositories/order-repository.js';
import { usageBetween } from '../../store/repositories/usage-repository.js';
import type { ProfileStatus } from '../../store/schema.js';
import { notFound } from '../errors/error-codes.js';
import { testCreditUsable } from '../money/ledger.js';

// What the portal's Overview shows: the organisation's money, its data use this month, its
// newest orders, its eSIMs by profile status and the callbacks that are not getting through.
// Each part is one indexed query, so the page stays fast however many eSIMs there are.

export const PROFILE_STATUSES: readonly ProfileStatus[] = [
  'Released',
  'Downloaded',
  'Installed',
  'Unavailable',
];

export interface Overview {
  readonly balance: number;
  readonly testCredit: number;
  /** RFC 3339, or null when the test credit does not expire. */
  readonly testCreditExpiry: string | null;
  /** False once the test credit has expired (it is written off at the next charge). */
  readonly testCreditUsable: boolean;
  /** Bytes used by every eSIM of the organisation in the current calendar month. */
  readonly dataUsedThisMonth: number;
  /** The month counted, as YYYY-MM in the reader's time zone. */
  readonly month: string;
  readonly recentOrders: readonly StoredOrder[];
  readonly esimsByStatus: readonly { status: ProfileStatus; count: number }[];
  readonly esimTotal: number;
  readonly failing: FailingCounts;
  /** The newest deliveries that gave up. */
  readonly failedDeliveries: readonly DeliverySummary[];
}

/** The calendar date (YYYY-MM-DD) of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

export async function readOverview(
  db: Db,
  organisationId: string,
  at: Date,
  timeZone: string,
): Promise<Overview> {
  const today = localDate(at, timeZone);
  const month = today.slice(0, 7);
  const [funds, used, orders, counts, failing, failed] = await Promise.all([
    readFunds(db, organisationId),
    usageBetween(db, organisationId, `${month}-01`, today),
    listOrders(db, organisationId, { offset: 0, limit: 5 }),
    countEsimsByProfileStatus(db, organisationId),
    countFailingEvents(db, organisationId),
    listDeliveries(db, organisationId, { status: 'failed', page: 1, perPage: 5 }),
  ]);
  if (funds === undefined) throw notFound(`organisation ${organisationId} not found`);
  const esimsByStatus = PROFILE_STATUSES.map((status) => ({ status, count: counts[status] ?? 0 }));
  return {
    balance: funds.balance,
    testCredit: funds.testCredit,
    testCreditExpiry: funds.testCreditExpiry,
    testCreditUsable: testCreditUsable(funds, at),
    dataUsedThisMonth: used,
    month,
    recentOrders: orders,
    esimsByStatus,
    esimTotal: esimsByStatus.reduce((sum, s) => sum + s.count, 0),
    failing,
    failedDeliveries: failed.deliveries,
  };
}
