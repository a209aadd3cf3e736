import type { CatalogueItem } from '../../domain/catalogue/catalogue-view.js';
import type { TopUpResult } from '../../domain/money/top-up.js';
import type { Operation, Results } from './results.js';
import {
  esimBundleFromV21,
  esimFromV21,
  esimPageFromV21,
  historyFromV21,
  orderFromV21,
  organisationFromV21,
  refundFromV21,
} from './v21-bodies.js';
import type { RevokeOutcome } from '../../domain/esims/revoke-bundle.js';

// The results behind v2.1's recorded examples (src/http/openapi-examples.ts), read back from
// them: each later version's document shows its presenter's answer to the same result, so the
// examples of every version show the same order, eSIM and organisation.

// The caller of the examples: a documentation address, in US dollars.
const CURRENCY = 'USD';
const SOURCE_IP = '203.0.113.7';
/** The balance the example order left, 990.01 USD. */
const BALANCE_AFTER = 99_001;

type Readers = { readonly [K in Operation]: (v21: never) => Results[K] };

const revoke = (body: Omit<RevokeOutcome, 'refundToBalance' | 'refundedAmount'>) => ({
  result: { ...body, refundToBalance: false, refundedAmount: 0 },
  currency: CURRENCY,
});

export const EXAMPLE_RESULTS: Readers = {
  getOrganisation: organisationFromV21,
  topUpBalance: (result: TopUpResult) => ({ result, currency: CURRENCY }),
  placeOrder: (body) => ({
    placed: { ...orderFromV21(body), balanceAfter: BALANCE_AFTER },
    sourceIp: SOURCE_IP,
    allowReassign: [],
  }),
  getOrder: orderFromV21,
  listOrders: (bodies: Parameters<typeof orderFromV21>[0][]) => bodies.map(orderFromV21),
  refundInventory: (body) => ({ result: refundFromV21(body), currency: CURRENCY }),
  getCatalogueBundle: (result: CatalogueItem) => ({ result, currency: CURRENCY }),
  listEsims: esimPageFromV21,
  getEsim: esimFromV21,
  getEsimHistory: historyFromV21,
  listEsimBundles: (body: { bundles: Parameters<typeof esimBundleFromV21>[0][] }) =>
    body.bundles.map(esimBundleFromV21),
  getEsimBundle: esimBundleFromV21,
  checkEsimCompatibility: (body: { iccid: string; bundle: string; compatible: boolean }) => body,
  revokeBundleByName: revoke,
  revokeAssignment: revoke,
  sendSms: () => ({ iccid: '' }),
};
