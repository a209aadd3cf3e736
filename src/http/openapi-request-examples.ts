// The example request body of each operation that takes one, by operationId. "Try it out" on the
// documentation page pre-fills it, so each must be accepted by its schema and answered with a 2xx
// on a fresh demo database (the organisation `npm start` creates), tried from the top of the page
// down: the order puts three units into inventory (batch 1), the refund returns one, the apply
// issues a new eSIM from another. An ICCID is the one thing to replace by one of yours (GET
// /v2.1/esims lists them; under SIM_SEED they repeat across runs). test/openapi-request-examples
// .test.ts sends every example of every served document to a fresh demo app.

/** An ICCID in the shape the service issues (19 digits, Luhn), to replace by one of yours. */
export const EXAMPLE_ICCID = '8944000000000000019';

/** A bundle of the demo organisation's groups, in the built-in catalogue. */
export const EXAMPLE_BUNDLE = 'esim_1GB_7D_FR_V2';

export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  placeOrder: {
    type: 'transaction',
    assign: false,
    order: [{ type: 'bundle', item: EXAMPLE_BUNDLE, quantity: 3 }],
  },
  refundInventory: { usageId: 1, quantity: 1 },
  updateEsims: { iccid: EXAMPLE_ICCID, customerRef: 'fleet-7' },
  applyBundle: { name: EXAMPLE_BUNDLE },
  sendSms: { message: 'Welcome to France: your data bundle is ready.' },
  simInstallProfile: { status: 'Installed' },
  simAttach: { country: 'FR' },
  simUseData: { bytes: 100_000_000 },
  simSetMsisdn: { country: 'GB' },
  simAdvanceClock: { seconds: 86_400 },
  simSetProcessing: { delaySeconds: 0 },
  simAddFault: { route: '/v2.1/orders', method: 'POST', status: 503, count: 1 },
  simReceiveCallback: { iccid: EXAMPLE_ICCID, alertType: 'FirstUse' },
};
