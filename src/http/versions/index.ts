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
  sharedOrderBody,
} from './shapes/orders.js';
import type { OrderBody } from '../routes/orders/order-schema.js';
import { installDataV22, installDataV25 } from './shapes/install-data.js';
import { PlaceOrderQuery } from './shapes/order-query.js';
import { OrganisationV24, organisationV24Answer } from './shapes/organisation.js';
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
    'v2.2: orders answer `assigned`; `GET /orders` is `{orders: [...]}`; an order may be sent in the flat quick-start form, with the capital `Order` key, or without a Content-Type; `GET /esims/assignments` takes several references and answers JSON as a list.',
  bodyWithoutContentType: true,
  switches: { installDataLists: true, asyncOrders: true },
  routes: {
    getInstallData: installDataV22,
    placeOrder: {
      querystring: PlaceOrderQuery,
      body: (shared) => laterOrderBodySchema(shared, false),
      request: sharedOrderBody,
      response: OrderV22,
      answer: orderV22Answer,
    },
    getOrder: { response: OrderV22, answer: orderV22Answer },
    listOrders: {
      response: orderListOf(OrderV22),
      answer: (list: OrderBody[]) => ({ orders: list.map(orderV22Answer) }),
    },
  },
});

export const V2_3 = laterVersion(V2_2, {
  name: '2.3',
  summary: 'v2.3: every order line carries `iccids`.',
  routes: {
    placeOrder: { response: OrderV23, answer: orderV23Answer },
    getOrder: { response: OrderV23, answer: orderV23Answer },
    listOrders: {
      response: orderListOf(OrderV23),
      answer: (list: OrderBody[]) => ({ orders: list.map(orderV23Answer) }),
    },
  },
});

export const V2_4 = laterVersion(V2_3, {
  name: '2.4',
  summary:
    'v2.4: money in major units (9.99), `createdDate`, `valid` on a validation, `AllowReassign`, `sourceIP`; `GET /organisation` answers the organisation itself.',
  routes: {
    getOrganisation: { response: OrganisationV24, answer: organisationV24Answer },
    placeOrder: {
      response: OrderV24,
      answer: (body: OrderBody, request) => orderV24Answer(body, request, request.ip),
    },
    getOrder: { response: OrderV24, answer: (body: OrderBody) => orderV24Answer(body) },
    listOrders: {
      response: orderListOf(OrderV24),
      answer: (list: OrderBody[]) => ({ orders: list.map((o) => orderV24Answer(o)) }),
    },
  },
});

export const V2_5 = laterVersion(V2_4, {
  name: '2.5',
  summary:
    'v2.5: `profileID` on orders (a UUID), `runningBalance` on placed orders; `GET /esims/assignments` answers JSON unless asked for CSV or ZIP.',
  switches: { installDataJsonByDefault: true },
  routes: {
    getInstallData: installDataV25,
    placeOrder: {
      body: (shared) => laterOrderBodySchema(shared, true),
      response: OrderV25,
    },
    getOrder: { response: OrderV25 },
    listOrders: { response: orderListOf(OrderV25) },
  },
});

/** Every version, oldest first. */
export const VERSIONS: readonly WireVersion[] = [V2_1, V2_2, V2_3, V2_4, V2_5];

/** The versions after v2.1. */
export const LATER_VERSIONS: readonly WireVersion[] = VERSIONS.slice(1);
