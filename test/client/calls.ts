import type { Client } from 'openapi-fetch';
import type { paths } from 'esim-bundle-service-client/v2.1';

// One call per operation of the OpenAPI document, keyed by operationId, made through the typed
// client (openapi-fetch over the generated types) exactly as an integrator's code would make it.
// The calls run in this order and share what they learn (an ICCID, a reference) in the context.
// A new operation in the document needs one entry here (the typed-client test fails without it):
// regenerate the types with `npm run api:generate`, then add `[operationId, async (c) => ...]`.

export type TypedClient = Client<paths>;

export interface CallContext {
  readonly client: TypedClient;
  /** Delivers the usage callbacks stored so far (the delivery worker, run by the test). */
  readonly deliverCallbacks: () => Promise<void>;
  bundle: string;
  orderReference: string;
  applyReference: string;
  iccid: string;
  /** An inventory batch of the bundle with units left, to refund from. */
  usageId: number;
  assignmentIds: string[];
  callbackId: string;
  faultId: string;
  /** What simExportSnapshot saved, for simImportSnapshot. */
  snapshot?: SnapshotBody;
}

type SnapshotBody =
  paths['/_sim/snapshot']['put']['requestBody']['content']['application/vnd.esim.snapshot+json'];

/** What a call returns: the HTTP response, for the test to check its status. */
export interface CallResult {
  readonly response: Response;
  readonly data?: unknown;
  readonly error?: unknown;
}

export type Call = (c: CallContext) => Promise<CallResult>;

function required<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`no ${what} in the answer`);
  return value;
}

export const CALLS: readonly (readonly [string, Call])[] = [
  ['checkLiveness', (c) => c.client.GET('/healthz')],
  ['checkReadiness', (c) => c.client.GET('/readyz')],
  ['getOrganisation', (c) => c.client.GET('/v2.1/organisation')],
  ['listOrganisationGroups', (c) => c.client.GET('/v2.1/organisation/groups')],
  [
    'topUpBalance',
    (c) => c.client.POST('/v2.1/organisation/balance', { params: { query: { amount: '1000' } } }),
  ],
  [
    'listCatalogue',
    async (c) => {
      const result = await c.client.GET('/v2.1/catalogue', {
        params: { query: { countries: 'FR', orderBy: 'price', perPage: 5 } },
      });
      const fixed = result.data?.find((b) => !b.unlimited);
      c.bundle = required(fixed, 'fixed FR bundle').name;
      return result;
    },
  ],
  [
    'getCatalogueBundle',
    (c) => c.client.GET('/v2.1/catalogue/bundle/{name}', { params: { path: { name: c.bundle } } }),
  ],
  [
    'listNetworks',
    (c) => c.client.GET('/v2.1/networks', { params: { query: { countries: 'FR' } } }),
  ],
  [
    'placeOrder',
    async (c) => {
      const result = await c.client.POST('/v2.1/orders', {
        body: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: c.bundle, quantity: 1 }],
        },
      });
      c.orderReference = required(result.data, 'order').orderReference;
      c.iccid = required(result.data?.order[0]?.iccids?.[0], 'ICCID');
      return result;
    },
  ],
  ['listOrders', (c) => c.client.GET('/v2.1/orders', { params: { query: { perPage: 10 } } })],
  [
    'getOrder',
    (c) =>
      c.client.GET('/v2.1/orders/{orderReference}', {
        params: { path: { orderReference: c.orderReference } },
      }),
  ],
  [
    'getInventory',
    async (c) => {
      // Three units into inventory first, so there is something to list, refund and apply.
      await c.client.POST('/v2.1/orders', {
        body: { type: 'transaction', order: [{ type: 'bundle', item: c.bundle, quantity: 3 }] },
      });
      const result = await c.client.GET('/v2.1/inventory');
      const batch = result.data?.bundles
        .find((b) => b.name === c.bundle)
        ?.available.find((a) => a.remaining >= 3);
      c.usageId = required(batch, 'inventory batch with three units').id;
      return result;
    },
  ],
  [
    'refundInventory',
    // One of the three units back to the balance; applyBundle takes the other two.
    (c) => c.client.POST('/v2.1/inventory/refund', { body: { usageId: c.usageId, quantity: 1 } }),
  ],
  [
    'applyBundle',
    async (c) => {
      const result = await c.client.POST('/v2.1/esims/apply', {
        body: { name: c.bundle, iccid: c.iccid, repeat: 2 },
      });
      c.applyReference = required(result.data, 'apply').applyReference;
      return result;
    },
  ],
  [
    'updateEsims',
    (c) => c.client.PUT('/v2.1/esims', { body: { iccid: c.iccid, customerRef: 'customer-4711' } }),
  ],
  ['listEsims', (c) => c.client.GET('/v2.1/esims')],
  [
    'getEsim',
    (c) =>
      c.client.GET('/v2.1/esims/{iccid}', {
        params: { path: { iccid: c.iccid }, query: { additionalFields: 'appleInstallUrl' } },
      }),
  ],
  [
    'getEsimHistory',
    (c) => c.client.GET('/v2.1/esims/{iccid}/history', { params: { path: { iccid: c.iccid } } }),
  ],
  [
    'listEsimBundles',
    async (c) => {
      const result = await c.client.GET('/v2.1/esims/{iccid}/bundles', {
        params: { path: { iccid: c.iccid } },
      });
      c.assignmentIds = (result.data?.bundles ?? [])
        .flatMap((b) => b.assignments)
        .filter((a) => a.bundleState === 'Queued' || a.bundleState === 'Processing')
        .map((a) => a.id);
      return result;
    },
  ],
  [
    'getEsimBundle',
    (c) =>
      c.client.GET('/v2.1/esims/{iccid}/bundles/{name}', {
        params: { path: { iccid: c.iccid, name: c.bundle } },
      }),
  ],
  [
    'getInstallData',
    (c) =>
      c.client.GET('/v2.1/esims/assignments', {
        params: { query: { reference: c.applyReference, format: 'json' } },
      }),
  ],
  [
    'getInstallQrCodes',
    (c) =>
      c.client.GET('/v2.1/esims/qr/{reference}', {
        params: { path: { reference: c.applyReference } },
        parseAs: 'arrayBuffer',
      }),
  ],
  [
    'getInstallCsv',
    (c) =>
      c.client.GET('/v2.1/esims/csv/{reference}', {
        params: { path: { reference: c.applyReference } },
        parseAs: 'text',
      }),
  ],
  [
    'simInstallProfile',
    (c) =>
      c.client.POST('/_sim/esims/{iccid}/install', {
        params: { path: { iccid: c.iccid } },
        body: { status: 'Installed' },
      }),
  ],
  [
    'simAttach',
    (c) =>
      c.client.POST('/_sim/esims/{iccid}/attach', {
        params: { path: { iccid: c.iccid } },
        body: { country: 'FR' },
      }),
  ],
  [
    'simUseData',
    (c) =>
      c.client.POST('/_sim/esims/{iccid}/usage', {
        params: { path: { iccid: c.iccid } },
        body: { bytes: 600_000 },
      }),
  ],
  [
    'simSetMsisdn',
    (c) =>
      c.client.POST('/_sim/esims/{iccid}/msisdn', {
        params: { path: { iccid: c.iccid } },
        body: { country: 'FR' },
      }),
  ],
  [
    'getEsimLocation',
    (c) => c.client.GET('/v2.1/esims/{iccid}/location', { params: { path: { iccid: c.iccid } } }),
  ],
  [
    'refreshEsim',
    (c) => c.client.GET('/v2.1/esims/{iccid}/refresh', { params: { path: { iccid: c.iccid } } }),
  ],
  [
    'sendSms',
    (c) =>
      c.client.POST('/v2.1/esims/{iccid}/sms', {
        params: { path: { iccid: c.iccid } },
        body: { message: 'Welcome aboard' },
      }),
  ],
  ['simListSms', (c) => c.client.GET('/_sim/sms')],
  ['simGetClock', (c) => c.client.GET('/_sim/clock')],
  ['simAdvanceClock', (c) => c.client.POST('/_sim/clock/advance', { body: { seconds: 60 } })],
  ['simGetProcessing', (c) => c.client.GET('/_sim/processing')],
  ['simSetProcessing', (c) => c.client.POST('/_sim/processing', { body: { delaySeconds: 0 } })],
  ['simResetProcessing', (c) => c.client.DELETE('/_sim/processing')],
  [
    'simAddFault',
    async (c) => {
      const result = await c.client.POST('/_sim/faults', {
        body: { route: '/v2.1/no-such-route', status: 503, count: 1 },
      });
      c.faultId = required(result.data, 'fault').id;
      return result;
    },
  ],
  ['simListFaults', (c) => c.client.GET('/_sim/faults')],
  [
    'simRemoveFaults',
    (c) => c.client.DELETE('/_sim/faults', { params: { query: { id: c.faultId } } }),
  ],
  [
    'simReceiveCallback',
    (c) =>
      c.client.POST('/_sim/callback-receiver', {
        body: { iccid: c.iccid, alertType: 'FirstUse' },
      }),
  ],
  [
    'listCallbacks',
    async (c) => {
      await c.deliverCallbacks();
      const result = await c.client.GET('/v2.1/callbacks', {
        params: { query: { status: 'delivered' } },
      });
      c.callbackId = required(result.data?.callbacks[0], 'callback').id;
      return result;
    },
  ],
  [
    'getCallback',
    (c) => c.client.GET('/v2.1/callbacks/{id}', { params: { path: { id: c.callbackId } } }),
  ],
  [
    'resendCallback',
    (c) => c.client.POST('/v2.1/callbacks/{id}/resend', { params: { path: { id: c.callbackId } } }),
  ],
  [
    'revokeAssignment',
    (c) =>
      c.client.DELETE('/v2.1/esims/{iccid}/bundles/{name}/assignments/{assignmentId}', {
        params: {
          path: {
            iccid: c.iccid,
            name: c.bundle,
            assignmentId: required(c.assignmentIds[0], 'unused assignment'),
          },
          query: { type: 'transaction' },
        },
      }),
  ],
  [
    'revokeApplication',
    (c) =>
      c.client.DELETE('/v2.1/esims/{iccid}/bundles/{name}/applications/{assignmentId}', {
        params: {
          path: {
            iccid: c.iccid,
            name: c.bundle,
            assignmentId: required(c.assignmentIds[1], 'second unused assignment'),
          },
          query: { type: 'validate' },
        },
      }),
  ],
  [
    'revokeBundleByName',
    // The validate above left the second unused assignment in place: this revokes it.
    (c) =>
      c.client.DELETE('/v2.1/esims/{iccid}/bundles/{name}', {
        params: { path: { iccid: c.iccid, name: c.bundle }, query: { type: 'transaction' } },
      }),
  ],
  ['simListRequests', (c) => c.client.GET('/_sim/requests', { params: { query: { limit: 5 } } })],
  ['simReset', (c) => c.client.POST('/_sim/reset')],
  [
    'simExportSnapshot',
    async (c) => {
      const result = await c.client.GET('/_sim/snapshot');
      c.snapshot = result.data;
      return result;
    },
  ],
  [
    'simImportSnapshot',
    // The state just saved, put back: a snapshot is a file of its own media type.
    (c) =>
      c.client.PUT('/_sim/snapshot', {
        body: required(c.snapshot, 'snapshot'),
        headers: { 'content-type': 'application/vnd.esim.snapshot+json' },
      }),
  ],
];
