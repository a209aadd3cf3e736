import {
  OrderV22,
  OrderV23,
  OrderV24,
  OrderV25,
  laterOrderBodySchema,
  orderListOf,
  orderV22Answer,
  orderV23Answer,
  orderV24Answer,
  orderV25Answer,
  sharedOrderBody,
} from './shapes/orders.js';
import { EXAMPLES } from '../openapi-examples.js';
import type { OrderBody } from '../routes/orders/order-schema.js';
import { installDataV22, installDataV25 } from './shapes/install-data.js';
import { PlaceOrderQuery } from './shapes/order-query.js';
import { limitAsPerPage, listEsimsQuery, listOrdersQuery } from './shapes/list-filters.js';
import { OrganisationV24, organisationV24Answer } from './shapes/organisation.js';
import { BundleV24, bundleV24Answer, cataloguePage, pageV22, pageV24 } from './shapes/catalogue.js';
import { BundleSchema } from '../routes/catalogue/bundle-schema.js';
import {
  BundleListQuery,
  EsimBundleV23,
  EsimBundleV24,
  EsimBundlesV23,
  EsimBundlesV24,
  HistoryV23,
  HistoryV24,
  bundleListV23Answer,
  bundleListV24Answer,
  bundleV23Answer,
  bundleV24Answer as esimBundleV24Answer,
  esimV24Answer,
  esimV24Schema,
  historyV23Answer,
  historyV24Answer,
  updateFromQuery,
} from './shapes/esims.js';
import {
  REFUND_MONEY,
  TOP_UP_MONEY,
  TopUpQueryV24,
  inMajorUnits,
  majorUnitSchema,
  topUpAmountInMinorUnits,
} from './shapes/money-answers.js';
import {
  CompatibleV24,
  compatibleV24Answer,
  RevokeAssignmentQueryV25,
  RevokeQueryV24,
  esimListV25Schema,
  revokeV24Answer,
  revokeV24Schema,
} from './shapes/esim-state.js';
import { registerCheckCompatibility } from '../routes/esims/compatible.js';
import { registerDeleteEsim } from '../routes/esims/delete.js';
import { registerSuspendEsim } from '../routes/esims/suspend.js';
import { registerApiDetails } from '../routes/api/details.js';
import { registerConsumptionPrices } from '../routes/catalogue/prices.js';
import { registerApplyBundleToEsim } from '../routes/esims/apply-to-esim.js';
import { applyToEsimV22, applyV22, applyV24 } from './shapes/apply.js';
import { PROCESSING_ERRORS } from './shapes/processing.js';
import { SmsV24, smsV24Answer } from './shapes/sms.js';
import { ESIM_ROUTES_V25 } from './shapes/esim-v25.js';
import { laterVersion } from './wire.js';
import type { WireVersion } from './wire.js';

// The API versions served side by side, each stated as its differences from the one before
// (docs/versions.md has the table, with the reason for each choice).

export const V2_1: WireVersion = {
  name: '2.1',
  prefix: '/v2.1',
  documentVersion: '2.1.0',
  routes: {},
  extraRoutes: [],
  bodyWithoutContentType: false,
  switches: {},
  summary: '',
};

export const V2_2 = laterVersion(V2_1, {
  name: '2.2',
  summary:
    'v2.2: orders answer `assigned`; `GET /orders` is `{orders: [...]}`; an order may be sent in the flat quick-start form, with the capital `Order` key, or without a Content-Type; `GET /esims/assignments` takes several references and answers JSON as a list; filter operators: `createdAt=gte:…` on `GET /orders` (with `limit`), `eq:` on the catalogue text filters.',
  bodyWithoutContentType: true,
  switches: {
    installDataLists: true,
    asyncOrders: true,
    filterOperators: true,
    applyRecordsOrder: true,
  },
  extraRoutes: [registerCheckCompatibility, registerApplyBundleToEsim],
  routes: {
    getInstallData: installDataV22,
    placeOrder: {
      querystring: PlaceOrderQuery,
      body: (shared) => laterOrderBodySchema(shared, false),
      request: sharedOrderBody,
      response: OrderV22,
      answer: orderV22Answer,
      errors: PROCESSING_ERRORS,
    },
    getOrder: { response: OrderV22, answer: orderV22Answer, errors: PROCESSING_ERRORS },
    applyBundle: applyV22,
    applyBundleToEsim: applyToEsimV22,
    listOrders: {
      querystring: listOrdersQuery,
      request: limitAsPerPage,
      response: orderListOf(OrderV22),
      answer: (list: OrderBody[]) => ({ orders: list.map(orderV22Answer) }),
    },
    listCatalogue: {
      response: cataloguePage(BundleSchema),
      page: pageV22,
      description:
        'Only bundles of the organisation groups are listed. Filters combine with AND; `eq:` in front of a text filter matches it whole (`description=eq:eSIM, 1GB, 7 Days, France, V2`), and lt, lte, gt, gte do not apply to text (400). The page comes in the envelope {bundles, pageCount, rows, pageSize}; the X-Total-Count and Link headers are kept.',
    },
    listEsims: { querystring: listEsimsQuery },
    updateEsims: { lenient: updateFromQuery },
    revokeApplication: { deprecated: true },
    getInstallQrCodes: { deprecated: true },
    getInstallCsv: { deprecated: true },
  },
});

export const V2_3 = laterVersion(V2_2, {
  name: '2.3',
  summary:
    'v2.3: every order line carries `iccids`; assignment and history states in lower case; `limit` and `includeUsed` on the bundle list; `GET /` answers the API details.',
  routes: {
    placeOrder: { response: OrderV23, answer: orderV23Answer },
    getOrder: { response: OrderV23, answer: orderV23Answer },
    listOrders: {
      response: orderListOf(OrderV23),
      answer: (list: OrderBody[]) => ({ orders: list.map(orderV23Answer) }),
    },
    listEsimBundles: {
      querystring: BundleListQuery,
      response: EsimBundlesV23,
      answer: bundleListV23Answer,
    },
    getEsimBundle: { response: EsimBundleV23, answer: bundleV23Answer },
    getEsimHistory: { response: HistoryV23, answer: historyV23Answer },
  },
  extraRoutes: [registerApiDetails],
});

export const V2_4 = laterVersion(V2_3, {
  name: '2.4',
  summary:
    'v2.4: money in major units (9.99) in answers and in the top-up amount, `createdDate`, `valid` on a validation, `AllowReassign`, `sourceIP`; `GET /organisation` answers the organisation itself; history items `{name, bundleName, date}`; an SMS answers `{status}`; `lapsed` assignments; `firstInstalledDateTime` in milliseconds; rate limits (when on) per client address, 429 `Rate limit exceeded`.',
  routes: {
    getOrganisation: { response: OrganisationV24, answer: organisationV24Answer },
    applyBundle: applyV24,
    placeOrder: {
      response: OrderV24,
      answer: (body: OrderBody, request) => orderV24Answer(body, request, request.ip),
    },
    getOrder: { response: OrderV24, answer: (body: OrderBody) => orderV24Answer(body) },
    listOrders: {
      response: orderListOf(OrderV24),
      answer: (list: OrderBody[]) => ({ orders: list.map((o) => orderV24Answer(o)) }),
    },
    listCatalogue: { response: cataloguePage(BundleV24), page: pageV24 },
    getCatalogueBundle: { response: BundleV24, answer: bundleV24Answer },
    topUpBalance: {
      querystring: TopUpQueryV24,
      request: topUpAmountInMinorUnits,
      response: majorUnitSchema(TOP_UP_MONEY),
      answer: inMajorUnits(TOP_UP_MONEY),
    },
    refundInventory: {
      response: majorUnitSchema(REFUND_MONEY),
      answer: inMajorUnits(REFUND_MONEY),
    },
    listEsimBundles: { response: EsimBundlesV24, answer: bundleListV24Answer },
    getEsimBundle: { response: EsimBundleV24, answer: esimBundleV24Answer },
    getEsimHistory: { response: HistoryV24, answer: historyV24Answer },
    getEsim: { response: esimV24Schema, answer: esimV24Answer },
    checkEsimCompatibility: { response: CompatibleV24, answer: compatibleV24Answer },
    sendSms: { response: SmsV24, answer: smsV24Answer },
    revokeBundleByName: {
      querystring: RevokeQueryV24,
      response: revokeV24Schema,
      answer: revokeV24Answer,
    },
  },
  // rateLimitByAddress: the live limit is 10 requests a second per client address (http/rate-limit.ts).
  switches: { refundToBalanceByName: true, rateLimitByAddress: true },
});

export const V2_5 = laterVersion(V2_4, {
  name: '2.5',
  summary:
    'v2.5: `profileID` on orders (a UUID), `runningBalance` on placed orders; `GET /esims/assignments` answers JSON unless asked for CSV or ZIP; `GET /catalogue/prices` for organisations on Consumption billing.',
  switches: {
    installDataJsonByDefault: true,
    refundToBalanceByAssignment: true,
    androidInstallUrl: true,
  },
  routes: {
    getInstallData: installDataV25,
    placeOrder: {
      body: (shared) => laterOrderBodySchema(shared, true),
      response: OrderV25,
      answer: orderV25Answer,
      example: {
        ...orderV24Answer(EXAMPLES['placeOrder'] as OrderBody, undefined, '203.0.113.7'),
        runningBalance: '990.01',
      },
    },
    getOrder: { response: OrderV25 },
    listOrders: { response: orderListOf(OrderV25) },
    ...ESIM_ROUTES_V25,
    listEsims: {
      response: esimListV25Schema,
      // Every item carries state; a recorded v2.1 answer (the document's example) has none.
      answer: (b: { esims: Record<string, unknown>[] }) => ({
        ...b,
        esims: b.esims.map((e) => ({ state: 'active', ...e })),
      }),
    },
    revokeAssignment: {
      querystring: RevokeAssignmentQueryV25,
      response: revokeV24Schema,
      answer: revokeV24Answer,
    },
  },
  extraRoutes: [registerSuspendEsim, registerDeleteEsim, registerConsumptionPrices],
});

/** Every version, oldest first. */
export const VERSIONS: readonly WireVersion[] = [V2_1, V2_2, V2_3, V2_4, V2_5];

/** The versions after v2.1. */
export const LATER_VERSIONS: readonly WireVersion[] = VERSIONS.slice(1);
