import { registerApiDetails } from '../routes/api/details.js';
import { registerConsumptionPrices } from '../routes/catalogue/prices.js';
import { registerApplyBundleToEsim } from '../routes/esims/apply-to-esim.js';
import { registerCheckCompatibility } from '../routes/esims/compatible.js';
import { registerDeleteEsim } from '../routes/esims/delete.js';
import { registerSuspendEsim } from '../routes/esims/suspend.js';
import type { Presenters } from './presenter.js';
import { BUNDLE_V21, BUNDLE_V24, PAGE_V21, PAGE_V22, PAGE_V24 } from './presenters/catalogue.js';
import {
  BUNDLES_V21,
  BUNDLES_V23,
  BUNDLES_V24,
  BUNDLES_V25,
  HISTORY_V21,
  HISTORY_V23,
  HISTORY_V24,
} from './presenters/esim-bundles.js';
import {
  COMPATIBLE_V22,
  COMPATIBLE_V24,
  REVOKE_ASSIGNMENT_V21,
  REVOKE_ASSIGNMENT_V25,
  REVOKE_BY_NAME_V21,
  REVOKE_BY_NAME_V24,
} from './presenters/esim-state.js';
import {
  ESIMS_V21,
  ESIMS_V22,
  ESIMS_V24,
  ESIMS_V25,
  ESIM_V21,
  ESIM_V24,
  ESIM_V25,
} from './presenters/esims.js';
import { MESSAGE_V21, MESSAGE_V24 } from './presenters/errors.js';
import { REFUND_V21, REFUND_V24, TOP_UP_V21, TOP_UP_V24 } from './presenters/money-answers.js';
import { ORDERS_V21, ORDERS_V22, ORDERS_V23 } from './presenters/orders.js';
import { ORDERS_V24, ORDERS_V25 } from './presenters/orders-v24.js';
import { ORGANISATION_V21, ORGANISATION_V24 } from './presenters/organisation.js';
import { applyToEsimV22, applyV22, applyV24 } from './shapes/apply.js';
import {
  AdditionalFieldsV25,
  BundleListQuery,
  RevokeAssignmentQueryV25,
  RevokeQueryV24,
  updateFromQuery,
} from './shapes/esim-requests.js';
import { installDataV22, installDataV25 } from './shapes/install-data.js';
import { limitAsPerPage, listEsimsQuery, listOrdersQuery } from './shapes/list-filters.js';
import { laterOrderBodySchema, sharedOrderBody } from './shapes/order-body.js';
import { PlaceOrderQuery } from './shapes/order-query.js';
import { PROCESSING_ERRORS } from './shapes/processing.js';
import { TopUpQueryV24, topUpAmountInMinorUnits } from './shapes/top-up-amount.js';
import { laterVersion } from './version.js';
import type { ApiVersion } from './version.js';
import { SMS_V21, SMS_V24 } from './presenters/sms.js';

// The API versions served side by side, each stated as its differences from the one before:
// its presenters (result -> body), its capabilities, and what it reads differently of a request
// (docs/versions.md has the table, with the reason for each choice).

const PRESENTERS_V21: Presenters = {
  getOrganisation: ORGANISATION_V21,
  topUpBalance: TOP_UP_V21,
  ...ORDERS_V21,
  refundInventory: REFUND_V21,
  getCatalogueBundle: BUNDLE_V21,
  listEsims: ESIMS_V21,
  getEsim: ESIM_V21,
  getEsimHistory: HISTORY_V21,
  ...BUNDLES_V21,
  // Not served on v2.1 (the route is v2.2's); v2.2's answer.
  checkEsimCompatibility: COMPATIBLE_V22,
  revokeBundleByName: REVOKE_BY_NAME_V21,
  revokeAssignment: REVOKE_ASSIGNMENT_V21,
  sendSms: SMS_V21,
};

export const V2_1: ApiVersion = {
  name: '2.1',
  prefix: '/v2.1',
  documentVersion: '2.1.0',
  presenters: PRESENTERS_V21,
  cataloguePage: PAGE_V21,
  errorMessage: MESSAGE_V21,
  capabilities: new Set(),
  requests: {},
  extraRoutes: [],
  bodyWithoutContentType: false,
  summary: '',
};

export const V2_2 = laterVersion(V2_1, {
  name: '2.2',
  summary:
    'v2.2: orders answer `assigned`; `GET /orders` is `{orders: [...]}`; an order may be sent in the flat quick-start form, with the capital `Order` key, or without a Content-Type; `GET /esims/assignments` takes several references and answers JSON as a list; filter operators: `createdAt=gte:…` on `GET /orders` (with `limit`), `eq:` on the catalogue text filters.',
  bodyWithoutContentType: true,
  capabilities: ['installDataLists', 'asyncOrders', 'filterOperators', 'applyRecordsOrder'],
  presenters: { ...ORDERS_V22, listEsims: ESIMS_V22 },
  cataloguePage: PAGE_V22,
  extraRoutes: [registerCheckCompatibility, registerApplyBundleToEsim],
  requests: {
    getInstallData: installDataV22,
    placeOrder: {
      querystring: PlaceOrderQuery,
      body: (shared) => laterOrderBodySchema(shared, false),
      request: sharedOrderBody,
      errors: PROCESSING_ERRORS,
    },
    getOrder: { errors: PROCESSING_ERRORS },
    applyBundle: applyV22,
    applyBundleToEsim: applyToEsimV22,
    listOrders: { querystring: listOrdersQuery, request: limitAsPerPage },
    listCatalogue: {
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
  capabilities: ['assignmentWindow'],
  presenters: { ...ORDERS_V23, ...BUNDLES_V23, getEsimHistory: HISTORY_V23 },
  requests: { listEsimBundles: { querystring: BundleListQuery } },
  extraRoutes: [registerApiDetails],
});

export const V2_4 = laterVersion(V2_3, {
  name: '2.4',
  summary:
    'v2.4: money in major units (9.99) in answers, in error messages and in the top-up amount, `createdDate`, `valid` on a validation, `AllowReassign`, `sourceIP`; `GET /organisation` answers the organisation itself; history items `{name, bundleName, date}`; an SMS answers `{status}`; `lapsed` assignments; `firstInstalledDateTime` in milliseconds; rate limits (when on) per client address, 429 `Rate limit exceeded`.',
  presenters: {
    getOrganisation: ORGANISATION_V24,
    ...ORDERS_V24,
    topUpBalance: TOP_UP_V24,
    refundInventory: REFUND_V24,
    getCatalogueBundle: BUNDLE_V24,
    listEsims: ESIMS_V24,
    getEsim: ESIM_V24,
    getEsimHistory: HISTORY_V24,
    ...BUNDLES_V24,
    checkEsimCompatibility: COMPATIBLE_V24,
    revokeBundleByName: REVOKE_BY_NAME_V24,
    sendSms: SMS_V24,
  },
  cataloguePage: PAGE_V24,
  errorMessage: MESSAGE_V24,
  requests: {
    applyBundle: applyV24,
    topUpBalance: { querystring: TopUpQueryV24, request: topUpAmountInMinorUnits },
    revokeBundleByName: { querystring: RevokeQueryV24 },
  },
  // rateLimitByAddress: the live limit is 10 requests a second per client address (http/rate-limit.ts).
  capabilities: ['refundToBalanceByName', 'rateLimitByAddress'],
});

export const V2_5 = laterVersion(V2_4, {
  name: '2.5',
  summary:
    'v2.5: `profileID` on orders (a UUID), `runningBalance` on placed orders; `GET /esims/assignments` answers JSON unless asked for CSV or ZIP; `GET /catalogue/prices` for organisations on Consumption billing.',
  capabilities: ['installDataJsonByDefault', 'refundToBalanceByAssignment', 'androidInstallUrl'],
  presenters: {
    ...ORDERS_V25,
    listEsims: ESIMS_V25,
    getEsim: ESIM_V25,
    ...BUNDLES_V25,
    revokeAssignment: REVOKE_ASSIGNMENT_V25,
  },
  requests: {
    getInstallData: installDataV25,
    placeOrder: { body: (shared) => laterOrderBodySchema(shared, true) },
    getEsim: { querystring: AdditionalFieldsV25 },
    revokeAssignment: { querystring: RevokeAssignmentQueryV25 },
  },
  extraRoutes: [registerSuspendEsim, registerDeleteEsim, registerConsumptionPrices],
});

/** Every version, oldest first. */
export const VERSIONS: readonly ApiVersion[] = [V2_1, V2_2, V2_3, V2_4, V2_5];

/** The versions after v2.1. */
export const LATER_VERSIONS: readonly ApiVersion[] = VERSIONS.slice(1);
