import type { DeliverySummary } from '../callbacks/deliveries.js';
import { listDeliveries } from '../callbacks/deliveries.js';
import type { Db } from '../../store/database.js';
import type { FailingCounts } from '../../store/repositories/callback-repository.js';
import { countFailingEvents } from '../../store/repositories/callback-repository.js';
import { countEsimsByProfileStatus } from '../../store/repositories/esim-repository.js';
import { readFunds } from '../../store/repositories/ledger-repository.js';
import type { StoredOrder } from '../../store/repositories/order-repository.js';
import { countOrders, listOrders } from '../../store/repositories/order-repository.js';
import type { DayUsage } from '../../store/repositories/usage-repository.js';
import { organisationUsageDays } from '../../store/repositories/usage-repository.js';
import { USAGE_DAYS, dailySeries, dayRange } from '../esims/usage-days.js';
import type { ProfileStatus } from '../../store/schema.js';
import { notFound } from '../errors/error-codes.js';
import { testCreditUsable } from '../money/ledger.js';

// What the portal's Overview shows: the organisation's money, its data use of the last 30 days
// (by the service's clock, so the simulator's moved clock too), day by day, its
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
  /** Bytes used by every eSIM of the organisation in the last USAGE_DAYS UTC days. */
  readonly dataUsed: number;
  /** Data used per UTC day of that period, oldest first, one entry per day (0 when none). */
  readonly usageDays: readonly DayUsage[];
  readonly recentOrders: readonly StoredOrder[];
  readonly esimsByStatus: readonly { status: ProfileStatus; count: number }[];
  readonly esimTotal: number;
  readonly failing: FailingCounts;
  /** The newest deliveries that gave up. */
  readonly failedDeliveries: readonly DeliverySummary[];
}

export async function readOverview(db: Db, organisationId: string, at: Date): Promise<Overview> {
  const range = dayRange(at, USAGE_DAYS);
  const [funds, used, orders, counts, failing, failed] = await Promise.all([
    readFunds(db, organisationId),
    organisationUsageDays(db, organisationId, range.from, range.to),
    countOrders(db, organisationId).then((total) =>
      listOrders(db, organisationId, { offset: 0, limit: 5, total }),
    ),
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
    dataUsed: used.reduce((sum, d) => sum + d.bytes, 0),
    usageDays: dailySeries(used, at, USAGE_DAYS),
    recentOrders: orders,
    esimsByStatus,
    esimTotal: esimsByStatus.reduce((sum, s) => sum + s.count, 0),
    failing,
    failedDeliveries: failed.deliveries,
  };
}
