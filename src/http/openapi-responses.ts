import { EXAMPLES } from './openapi-examples.js';

// What the OpenAPI document says about each operation's success answer, by operationId: its
// description, and an example. A route may set either in its own schema instead (a description
// on the 2xx response schema, `examples` on it); what the route sets wins. The examples are real
// answers of the simulator, recorded by `npm run openapi:examples` (test/client/record-examples.ts)
// and checked against their response schemas by test/openapi-examples.test.ts.

export const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  checkLiveness: 'The process is up.',
  checkReadiness: 'The database answers; the instance takes traffic.',
  getOrganisation: 'The caller organisation, in the `organisations` array, with its users.',
  topUpBalance: 'The card was charged and the balance credited.',
  listCatalogue: 'One page of bundles.',
  getCatalogueBundle: 'The bundle.',
  placeOrder: 'The order: placed (status completed) or only checked (status validated).',
  listOrders: 'One page of orders, newest first.',
  getOrder: 'The order with its lines, total and, for assigned orders, its eSIMs.',
  getInventory: 'The bundles in inventory, each with its purchase batches.',
  listEsims: 'One page of the organisation eSIMs.',
  getInstallData: 'The install data, in the format asked for.',
  applyBundle: 'The bundle units were applied; one entry per unit.',
  getEsim: 'The eSIM profile.',
  getEsimHistory: 'History entries, newest first.',
  getEsimLocation: 'Where the eSIM was last seen.',
  sendSms: 'The SMS was accepted for delivery.',
  listEsimBundles: 'Every bundle ever assigned to the eSIM, with its assignments.',
  getEsimBundle: 'The bundle on this eSIM, with its assignments.',
  revokeAssignment:
    'The assignment was revoked (transaction) or what a revoke would do (validate).',
  revokeApplication:
    'The assignment was revoked (transaction) or what a revoke would do (validate).',
  listCallbacks: 'One page of callback deliveries, newest first.',
  getCallback: 'The delivery, its payload and every attempt.',
  resendCallback: 'The delivery is queued again with a fresh retry schedule.',
  simInstallProfile: 'The profile status after the install.',
  simAttach: 'The network the eSIM attached to.',
  simUseData: 'How the usage was served.',
  simSetMsisdn: 'The phone number of the eSIM.',
  simGetClock: 'The simulated time and its offset from real time.',
  simAdvanceClock: 'The new simulated time, and what the scheduler did at it.',
  simListSms: 'SMS messages sent to eSIMs, newest first.',
  simGetProcessing: 'The processing delay in force.',
  simSetProcessing: 'The processing delay now in force.',
  simResetProcessing: 'The configured processing delay, in force again.',
  simAddFault: 'The fault, now active.',
  simListFaults: 'The active faults, in the order they apply.',
  simRemoveFaults: 'The faults that were removed.',
  simReset: 'What was reset.',
  simListRequests: 'Recent API calls, newest first.',
};

export { EXAMPLES };
