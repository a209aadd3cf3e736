import {
  DEMO_ACTIVE_ASSIGNMENT,
  DEMO_BUNDLE,
  DEMO_CALLBACK_ID,
  DEMO_COUNTRY,
  DEMO_CUSTOMER_REF,
  DEMO_ICCID,
  DEMO_ORDER_REFERENCE,
  DEMO_QUEUED_ASSIGNMENTS,
  DEMO_USAGE_ID,
} from '../demo-data.js';

// The examples "Try it out" on the documentation page starts each request with: the request body
// and the parameters of every operation, on every version. The values are the demo
// organisation's (src/demo-data.ts: the same ids on every fresh simulator database), so with the
// demo's key (Authorize) every operation of a version's page answers 2xx unedited, executed from
// the top of the page down; the page order (http/openapi.ts, orderForTryIt) puts what destroys
// something after what uses it. The one value to paste is PUT /_sim/snapshot's body: what GET
// /_sim/snapshot answered just above it. test/openapi-request-examples.test.ts sends them all.

/** An ICCID in the shape the service issues: the demo organisation's eSIM. */
export const EXAMPLE_ICCID = DEMO_ICCID;

/** A bundle of the demo organisation's groups, in the built-in catalogue and its inventory. */
export const EXAMPLE_BUNDLE = DEMO_BUNDLE;

/** The demo's order that issued its eSIM. */
export const EXAMPLE_ORDER_REFERENCE = DEMO_ORDER_REFERENCE;

/** A usage callback (V3), for the simulator's receiver. */
const EXAMPLE_CALLBACK = {
  iccid: DEMO_ICCID,
  alertType: 'Utilisation',
  bundle: {
    id: DEMO_ACTIVE_ASSIGNMENT,
    reference: DEMO_ORDER_REFERENCE,
    name: DEMO_BUNDLE,
    description: 'eSIM, 1GB, 7 Days, France, V2',
    initialQuantity: 1_000_000_000,
    remainingQuantity: 500_000_000,
    startTime: '2026-12-06T09:30:00.000Z',
    endTime: '2026-12-13T09:30:00.000Z',
    unlimited: false,
  },
  threshold: 50,
};

/** v2.1's request bodies, by operationId. */
export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  // Three units into inventory (the demo's eSIM order is the one GET /orders/{orderReference} reads).
  placeOrder: {
    type: 'transaction',
    assign: false,
    order: [{ type: 'bundle', item: EXAMPLE_BUNDLE, quantity: 3 }],
  },
  refundInventory: { usageId: DEMO_USAGE_ID, quantity: 1 },
  updateEsims: { iccid: EXAMPLE_ICCID, customerRef: DEMO_CUSTOMER_REF },
  applyBundle: { iccid: EXAMPLE_ICCID, name: EXAMPLE_BUNDLE },
  sendSms: { message: 'Welcome to France: your data bundle is ready.' },
  simInstallProfile: { status: 'Installed' },
  simAttach: { country: DEMO_COUNTRY },
  simUseData: { bytes: 100_000_000 },
  simSetMsisdn: { country: 'GB' },
  simAdvanceClock: { seconds: 86_400 },
  simSetProcessing: { delaySeconds: 0 },
  simAddFault: { route: '/v2.1/orders', method: 'POST', status: 503, count: 1 },
  simReceiveCallback: EXAMPLE_CALLBACK,
};

/** v2.2 and later: what differs from v2.1, by operationId. */
const LATER_REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  // A new eSIM with one bundle.
  placeOrder: {
    type: 'transaction',
    assign: true,
    order: [{ type: 'bundle', item: 'esim_1GB_7D_GB_V2', quantity: 1 }],
  },
  applyBundle: { iccid: EXAMPLE_ICCID, name: EXAMPLE_BUNDLE, repeat: 1 },
  applyBundleToEsim: { name: EXAMPLE_BUNDLE, repeat: 1 },
  sendSms: { message: 'Welcome to France: your data bundle is active.' },
};

/** The request body example of an operation on a version ('2.1' … '2.5'). */
export function requestExample(version: string, operationId: string): unknown {
  const later = version === '2.1' ? undefined : LATER_REQUEST_EXAMPLES[operationId];
  const example = later ?? REQUEST_EXAMPLES[operationId];
  if (operationId === 'placeOrder' && version === '2.5') {
    return { ...(example as object), profileID: '6f1c2a9e-3b7d-4c1e-9a55-2f0d8e4b7c31' };
  }
  return example;
}

// Path parameters, by name, on every operation that has one.
const PATH_EXAMPLES: Readonly<Record<string, string>> = {
  iccid: EXAMPLE_ICCID,
  name: EXAMPLE_BUNDLE,
  bundle: EXAMPLE_BUNDLE,
  orderReference: DEMO_ORDER_REFERENCE,
  reference: DEMO_ORDER_REFERENCE,
  id: DEMO_CALLBACK_ID,
};

// Query parameters (and path parameters that differ from the above), by operationId.
const OPERATION_EXAMPLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  listNetworks: { countries: DEMO_COUNTRY },
  getInstallData: { reference: DEMO_ORDER_REFERENCE },
  revokeAssignment: { assignmentId: DEMO_QUEUED_ASSIGNMENTS[0] },
  revokeApplication: { assignmentId: DEMO_QUEUED_ASSIGNMENTS[1] },
};

const MAJOR_UNITS_FROM = ['2.4', '2.5'];

/** A parameter's example on a version, or undefined when it starts empty on the page. */
export function parameterExample(
  version: string,
  operationId: string,
  parameter: { readonly name: string; readonly in: string },
): string | undefined {
  if (operationId === 'topUpBalance' && parameter.name === 'amount') {
    // 50.00 USD: minor units up to v2.3, major units from v2.4.
    return MAJOR_UNITS_FROM.includes(version) ? '50.00' : '5000';
  }
  const own = OPERATION_EXAMPLES[operationId]?.[parameter.name];
  if (own !== undefined) return own;
  return parameter.in === 'path' ? PATH_EXAMPLES[parameter.name] : undefined;
}
