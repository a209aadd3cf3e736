// Generated from /v2.1/openapi.json by scripts/api-files (npm run api:generate). Do not edit.

import type { ClientOptions } from '../runtime.js';
import { createCaller } from '../runtime.js';
import type { operations } from './openapi.js';

export type { ClientOptions } from '../runtime.js';
export { EsimApiError } from '../runtime.js';
export type { components, operations, paths } from './openapi.js';

/** The v2.1 interface: one method per operation of /v2.1/openapi.json. */
export interface EsimClient {
  /**
   * Liveness: the process is up
   *
   * `GET /healthz`
   */
  checkLiveness(input?: {
    signal?: AbortSignal;
  }): Promise<operations['checkLiveness']['responses'][200]['content']['application/json']>;

  /**
   * Readiness: the database is reachable
   *
   * `GET /readyz`
   *
   * 200 when the database answers; status "degraded" (still 200) when Redis does not and the instance serves on its own rate-limit counters. 503 when the database does not answer.
   */
  checkReadiness(input?: {
    signal?: AbortSignal;
  }): Promise<operations['checkReadiness']['responses'][200]['content']['application/json']>;

  /**
   * Get the caller organisation, including its users
   *
   * `GET /v2.1/organisation`
   */
  getOrganisation(input?: {
    signal?: AbortSignal;
  }): Promise<operations['getOrganisation']['responses'][200]['content']['application/json']>;

  /**
   * Top up the prepaid balance by charging the saved card
   *
   * `POST /v2.1/organisation/balance`
   *
   * Charges the card saved in the portal (the first payment is made there) and credits the balance. Declined: 400 with the reason. Processor unreachable or not answering in time: 503 with Retry-After and the balance unchanged; a charge whose answer was lost is confirmed with the processor afterwards and credited at most once.
   */
  topUpBalance(input: {
    query: NonNullable<operations['topUpBalance']['parameters']['query']>;
    headers?: NonNullable<operations['topUpBalance']['parameters']['header']>;
    signal?: AbortSignal;
  }): Promise<operations['topUpBalance']['responses'][200]['content']['application/json']>;

  /**
   * List the bundle groups of the organisation
   *
   * `GET /v2.1/organisation/groups`
   *
   * The bundle groups the organisation may order from, in the order the organisation lists them (GET /organisation groups). The shape is the live service’s later one, {"groups":[{"name","desc"}]}; bundleCount is an addition.
   */
  listOrganisationGroups(input?: {
    signal?: AbortSignal;
  }): Promise<
    operations['listOrganisationGroups']['responses'][200]['content']['application/json']
  >;

  /**
   * List the bundles the organisation may order
   *
   * `GET /v2.1/catalogue`
   *
   * Only bundles of the organisation groups are listed. Filters combine with AND. The body is a bare array; paging metadata is in the X-Total-Count and Link headers.
   */
  listCatalogue(input?: {
    query?: NonNullable<operations['listCatalogue']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['listCatalogue']['responses'][200]['content']['application/json']>;

  /**
   * Get one bundle of the catalogue by name
   *
   * `GET /v2.1/catalogue/bundle/{name}`
   *
   * A bundle outside the organisation groups is answered like an unknown one (404).
   */
  getCatalogueBundle(input: {
    path: operations['getCatalogueBundle']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getCatalogueBundle']['responses'][200]['content']['application/json']>;

  /**
   * Place or validate an order
   *
   * `POST /v2.1/orders`
   *
   * The price is debited from test credit first (while unexpired), then from the balance. Insufficient funds, an unknown bundle or one outside the organisation groups, an ICCID the organisation does not own, or a quantity above the limits: 400, and nothing changes.
   */
  placeOrder(input: {
    headers?: NonNullable<operations['placeOrder']['parameters']['header']>;
    body: NonNullable<operations['placeOrder']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['placeOrder']['responses'][200]['content']['application/json']>;

  /**
   * List the organisation orders, newest first
   *
   * `GET /v2.1/orders`
   *
   * The body is a bare array of Order, as for the catalogue; paging metadata is in the X-Total-Count and Link headers.
   */
  listOrders(input?: {
    query?: NonNullable<operations['listOrders']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['listOrders']['responses'][200]['content']['application/json']>;

  /**
   * Get an order with its total cost and contents
   *
   * `GET /v2.1/orders/{orderReference}`
   */
  getOrder(input: {
    path: operations['getOrder']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getOrder']['responses'][200]['content']['application/json']>;

  /**
   * List the bundles the organisation bought and has not applied yet
   *
   * `GET /v2.1/inventory`
   *
   * Grouped by bundle (by name), with one `available` entry per purchase batch. Batches that are used up or expired are left out. The answer is streamed as it is read (chunked transfer encoding, no Content-Length), so its size has no limit: about 75 bytes per batch.
   */
  getInventory(input?: {
    signal?: AbortSignal;
  }): Promise<operations['getInventory']['responses'][200]['content']['application/json']>;

  /**
   * Refund unapplied inventory bundles to the balance
   *
   * `POST /v2.1/inventory/refund`
   *
   * Takes quantity unapplied units out of one inventory batch (usageId is the id of an available[] entry of GET /inventory) and credits their purchase price back: to the balance up to what the order paid from the balance, the rest to test credit. Allowed within 60 days of the purchase (INVENTORY_REFUND_DAYS; 0 turns refunds off) and while the units have not lapsed. A unit refunded to inventory by a revoke keeps the purchase date and price of the order it was bought in. One journal entry (kind refund) per call.
   */
  refundInventory(input: {
    headers?: NonNullable<operations['refundInventory']['parameters']['header']>;
    body: NonNullable<operations['refundInventory']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['refundInventory']['responses'][200]['content']['application/json']>;

  /**
   * List the eSIMs of the organisation
   *
   * `GET /v2.1/esims`
   *
   * A page of the organisation eSIMs in the order they were issued. Paging metadata is in the body (pageCount, rows, pageSize) and, as for the catalogue, in the X-Total-Count and Link headers.
   */
  listEsims(input?: {
    query?: NonNullable<operations['listEsims']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['listEsims']['responses'][200]['content']['application/json']>;

  /**
   * Set the customer reference of an eSIM
   *
   * `PUT /v2.1/esims`
   *
   * Stores the organisation’s own reference for one of its eSIMs (for example its customer or device id). GET /esims and GET /esims/{iccid} then carry it as customerRef, and the eSIM history gains an "eSIM Updated" entry. An empty customerRef clears it. An ICCID that is unknown or another organisation’s is a 404. The fields go in a JSON body, or, as the live documentation also shows, in the query string of a request without a body (the body wins when both are sent).
   */
  updateEsims(input: {
    query?: NonNullable<operations['updateEsims']['parameters']['query']>;
    body: NonNullable<operations['updateEsims']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['updateEsims']['responses'][200]['content']['application/json']>;

  /**
   * Install data for an order or apply reference (CSV or ZIP of QR codes)
   *
   * `GET /v2.1/esims/assignments`
   *
   * The eSIMs assigned by one order (assign=true) or one apply, as a CSV with the columns ICCID, Matching ID, RSP URL, Bundle (one row per eSIM and bundle), or as a ZIP holding <iccid>.png, a QR code per eSIM carrying its activation code LPA:1$<smdpAddress>$<matchingId>. As JSON, the eSIMs themselves (iccid, matchingId, smdpAddress, profileStatus, pin, puk, firstInstalledDateTime): one object when the reference has one eSIM, as the live service answers, and an array of them when it has several. Choose with Accept: text/csv (the default, also for *\/* or no Accept), application/json or application/zip, q-values honoured; or with format (which wins). A reference that is unknown or another organisation’s is a 404.
   */
  getInstallData(input: {
    query: NonNullable<operations['getInstallData']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<
    | string
    | operations['getInstallData']['responses'][200]['content']['application/json']
    | Uint8Array
  >;

  /**
   * QR codes of the eSIMs of an order or apply reference (ZIP of PNG)
   *
   * `GET /v2.1/esims/qr/{reference}`
   *
   * A ZIP holding <iccid>.png for each eSIM the reference assigned: a QR code carrying the activation code LPA:1$<smdpAddress>$<matchingId>, which a phone camera turns into the profile download. The same files as GET /esims/assignments?reference=...&format=zip.
   */
  getInstallQrCodes(input: {
    path: operations['getInstallQrCodes']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<Uint8Array>;

  /**
   * Install data of the eSIMs of an order or apply reference (CSV)
   *
   * `GET /v2.1/esims/csv/{reference}`
   *
   * A CSV with the header ICCID, Matching ID, RSP URL, Bundle and one row per eSIM and bundle the reference assigned (RFC 4180 quoting, CRLF line ends). The same file as GET /esims/assignments?reference=...&format=csv.
   */
  getInstallCsv(input: {
    path: operations['getInstallCsv']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<string>;

  /**
   * Apply a bundle from inventory to an eSIM
   *
   * `POST /v2.1/esims/apply`
   *
   * Takes units of a bundle from the organisation inventory (oldest unexpired batch first) and assigns them to an eSIM the organisation owns, or to a newly issued eSIM when iccid is omitted. Each assignment starts in Processing and is Queued once provisioned. All or nothing: without enough units in inventory nothing changes (400, code insufficient_inventory). A bundle that does not exist and one outside the organisation groups that it never bought get the same 400 (code unknown_bundle). The applyReference works with GET /esims/assignments for install data. Accepts Idempotency-Key.
   */
  applyBundle(input: {
    headers?: NonNullable<operations['applyBundle']['parameters']['header']>;
    body: NonNullable<operations['applyBundle']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['applyBundle']['responses'][200]['content']['application/json']>;

  /**
   * Get an eSIM
   *
   * `GET /v2.1/esims/{iccid}`
   *
   * Profile details of one eSIM of the organisation. With additionalFields=appleInstallUrl the response also carries appleInstallUrl, a link that installs the profile on an iPhone (iOS 17.4+).
   */
  getEsim(input: {
    path: operations['getEsim']['parameters']['path'];
    query?: NonNullable<operations['getEsim']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['getEsim']['responses'][200]['content']['application/json']>;

  /**
   * Get the history of an eSIM
   *
   * `GET /v2.1/esims/{iccid}/history`
   *
   * Bundle and profile events of the eSIM, newest first (at most 1000).
   */
  getEsimHistory(input: {
    path: operations['getEsimHistory']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getEsimHistory']['responses'][200]['content']['application/json']>;

  /**
   * Get the last known location of an eSIM
   *
   * `GET /v2.1/esims/{iccid}/location`
   *
   * The network the eSIM last registered on. An eSIM never seen on a network is a 404 saying so.
   */
  getEsimLocation(input: {
    path: operations['getEsimLocation']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getEsimLocation']['responses'][200]['content']['application/json']>;

  /**
   * Send an SMS to an eSIM
   *
   * `POST /v2.1/esims/{iccid}/sms`
   *
   * Delivers a text message to the eSIM phone number. The eSIM must have an MSISDN (400 otherwise). In simulator mode delivered messages appear in GET /_sim/sms.
   */
  sendSms(input: {
    path: operations['sendSms']['parameters']['path'];
    headers?: NonNullable<operations['sendSms']['parameters']['header']>;
    body: NonNullable<operations['sendSms']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['sendSms']['responses'][200]['content']['application/json']>;

  /**
   * List the bundles of an eSIM with their assignments
   *
   * `GET /v2.1/esims/{iccid}/bundles`
   *
   * Every bundle ever assigned to the eSIM, in the order first assigned, each with its assignments (id, reference, state, data in bytes, start and end time). Includes finished (Depleted, Expired, Revoked) assignments.
   */
  listEsimBundles(input: {
    path: operations['listEsimBundles']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['listEsimBundles']['responses'][200]['content']['application/json']>;

  /**
   * Revoke one assignment of a bundle
   *
   * `DELETE /v2.1/esims/{iccid}/bundles/{name}/assignments/{assignmentId}`
   *
   * Revokes one assignment of a bundle on an eSIM (for example one month of a repeated bundle). Processing or Queued assignments become Revoked and the unit is refunded to inventory (to the batch it was drawn from; a unit bought with assign=true comes back as a new batch of one that lapses when the assignment would have). An Active assignment becomes Revoked without refund. Depleted, Expired or Revoked assignments cannot be revoked (400). An assignment that does not exist, is not of that bundle or not on that eSIM is a 404. Successor of the deprecated .../applications/{assignmentId} route, with the same behaviour.
   */
  revokeAssignment(input: {
    path: operations['revokeAssignment']['parameters']['path'];
    query?: NonNullable<operations['revokeAssignment']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['revokeAssignment']['responses'][200]['content']['application/json']>;

  /**
   * Revoke one assignment of a bundle (deprecated)
   *
   * `DELETE /v2.1/esims/{iccid}/bundles/{name}/applications/{assignmentId}`
   *
   * Revokes one assignment of a bundle on an eSIM (for example one month of a repeated bundle). Processing or Queued assignments become Revoked and the unit is refunded to inventory (to the batch it was drawn from; a unit bought with assign=true comes back as a new batch of one that lapses when the assignment would have). An Active assignment becomes Revoked without refund. Depleted, Expired or Revoked assignments cannot be revoked (400). An assignment that does not exist, is not of that bundle or not on that eSIM is a 404. Deprecated: every response carries Deprecation: true and a Link to the successor, DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}.
   */
  revokeApplication(input: {
    path: operations['revokeApplication']['parameters']['path'];
    query?: NonNullable<operations['revokeApplication']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['revokeApplication']['responses'][200]['content']['application/json']>;

  /**
   * Refresh the network registration of an eSIM
   *
   * `GET /v2.1/esims/{iccid}/refresh`
   *
   * Troubleshooting: the network cancels the eSIM’s location and the device registers again, which briefly disconnects it. The simulated network re-registers at once on the same network (lastSeen of GET /esims/{iccid}/location moves to now). The eSIM history gains an "eSIM Refreshed" entry. A GET, as on the live service.
   */
  refreshEsim(input: {
    path: operations['refreshEsim']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['refreshEsim']['responses'][200]['content']['application/json']>;

  /**
   * List the mobile networks of countries
   *
   * `GET /v2.1/networks`
   *
   * The networks an eSIM registers on in each country asked for: national operators with their own radio network (virtual operators only where a country has no other), from the operator data the simulated network uses. Give countries, isos or returnAll=true; an unknown country is a 400 naming it. Countries without a known network are listed with no networks.
   */
  listNetworks(input?: {
    query?: NonNullable<operations['listNetworks']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['listNetworks']['responses'][200]['content']['application/json']>;

  /**
   * List usage callback deliveries
   *
   * `GET /v2.1/callbacks`
   *
   * The organisation usage callbacks, newest first, with their delivery state. Paging metadata is in the X-Total-Count and Link headers; its next and prev links carry the key of the page beside them (before, after) and no page number, so following them reads every delivery once while new ones arrive. There is a next (prev) link when older (newer) deliveries exist; an empty page read by key links back to the deliveries beside its key. before and after together, or either with a page other than 1, are a 400. With a status filter, a page by number more than 10000 deliveries from both the first and the last page is a 400: follow the links.
   */
  listCallbacks(input?: {
    query?: NonNullable<operations['listCallbacks']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['listCallbacks']['responses'][200]['content']['application/json']>;

  /**
   * Get one usage callback with its attempts
   *
   * `GET /v2.1/callbacks/{id}`
   *
   * The event body as stored (V3 shape), its delivery state, and every attempt with its time, status, latency, error and the start of the response.
   */
  getCallback(input: {
    path: operations['getCallback']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getCallback']['responses'][200]['content']['application/json']>;

  /**
   * Resend a usage callback
   *
   * `POST /v2.1/callbacks/{id}/resend`
   *
   * Queues a failed, delivered or undeliverable callback for delivery again, to the current callback URL and version, with a fresh retry schedule; past attempts are kept. Answers 202 with the queued delivery. Accepts an Idempotency-Key header.
   */
  resendCallback(input: {
    path: operations['resendCallback']['parameters']['path'];
    headers?: NonNullable<operations['resendCallback']['parameters']['header']>;
    signal?: AbortSignal;
  }): Promise<operations['resendCallback']['responses'][202]['content']['application/json']>;

  /**
   * Install the eSIM profile on a device
   *
   * `POST /_sim/esims/{iccid}/install`
   *
   * The device downloads and installs the profile: profileStatus becomes Installed (or the status given), firstInstalledDateTime is set on the first install, and the eSIM history records it. Unavailable means the profile was deleted from the device.
   */
  simInstallProfile(input: {
    path: operations['simInstallProfile']['parameters']['path'];
    body: NonNullable<
      operations['simInstallProfile']['requestBody']
    >['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simInstallProfile']['responses'][200]['content']['application/json']>;

  /**
   * Attach the eSIM to a mobile network
   *
   * `POST /_sim/esims/{iccid}/attach`
   *
   * Registers the eSIM on a real operator: give a country (an operational network of that country is chosen, reproducibly under SIM_SEED) or an exact mcc and mnc. The profile must be Installed. Sets the location and reports FirstAttachment/CountryChange to the callbacks.
   */
  simAttach(input: {
    path: operations['simAttach']['parameters']['path'];
    body: NonNullable<operations['simAttach']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simAttach']['responses'][200]['content']['application/json']>;

  /**
   * Use data on the eSIM
   *
   * `POST /_sim/esims/{iccid}/usage`
   *
   * The network reports data used where the eSIM is attached. The Active bundle serves it if it covers that country; with none Active the first Queued bundle covering it is activated. Data beyond what the bundle has left is not served (the next bundle takes over on the next use).
   */
  simUseData(input: {
    path: operations['simUseData']['parameters']['path'];
    body: NonNullable<operations['simUseData']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simUseData']['responses'][200]['content']['application/json']>;

  /**
   * Give the eSIM a phone number (MSISDN)
   *
   * `POST /_sim/esims/{iccid}/msisdn`
   *
   * Numbers the profile so it can receive SMS; the network numbers an eSIM by itself when it first attaches, so this is for a number of another country, given before that. The number carries the calling code of the given country, else of the country the eSIM is attached in, else GB. An eSIM that already has one keeps it (and it is answered).
   */
  simSetMsisdn(input: {
    path: operations['simSetMsisdn']['parameters']['path'];
    body: NonNullable<operations['simSetMsisdn']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simSetMsisdn']['responses'][200]['content']['application/json']>;

  /**
   * Read the simulated clock
   *
   * `GET /_sim/clock`
   */
  simGetClock(input?: {
    signal?: AbortSignal;
  }): Promise<operations['simGetClock']['responses'][200]['content']['application/json']>;

  /**
   * Advance the simulated clock
   *
   * `POST /_sim/clock/advance`
   *
   * Moves the clock forward (it never goes back) and runs the lifecycle scheduler once before answering, so processing, expiry and validity lapses due by the new time are applied on return. The offset is stored and survives a restart.
   */
  simAdvanceClock(input: {
    body: NonNullable<operations['simAdvanceClock']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simAdvanceClock']['responses'][200]['content']['application/json']>;

  /**
   * Read the SMS outbox of the simulated network
   *
   * `GET /_sim/sms`
   *
   * Messages delivered through POST /v2.1/esims/{iccid}/sms, newest first.
   */
  simListSms(input?: {
    query?: NonNullable<operations['simListSms']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['simListSms']['responses'][200]['content']['application/json']>;

  /**
   * Read the bundle processing delay
   *
   * `GET /_sim/processing`
   */
  simGetProcessing(input?: {
    signal?: AbortSignal;
  }): Promise<operations['simGetProcessing']['responses'][200]['content']['application/json']>;

  /**
   * Set the bundle processing delay (slow processing)
   *
   * `POST /_sim/processing`
   *
   * New assignments stay Processing for this long (0 to 600 s), until the clock passes it; the eSIM can still be installed and attach meanwhile. 0 provisions at once. Applies to assignments created from now on; cleared by DELETE or POST /_sim/reset.
   */
  simSetProcessing(input: {
    body: NonNullable<operations['simSetProcessing']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simSetProcessing']['responses'][200]['content']['application/json']>;

  /**
   * Go back to the configured processing delay
   *
   * `DELETE /_sim/processing`
   */
  simResetProcessing(input?: {
    signal?: AbortSignal;
  }): Promise<operations['simResetProcessing']['responses'][200]['content']['application/json']>;

  /**
   * Add a fault to API routes
   *
   * `POST /_sim/faults`
   *
   * Matching requests answer `status` with {"message","code":"simulated_fault"} (429 and 503 with Retry-After: 1) and/or are delayed by latencyMs. `route` is a path of one API version such as /v2.1/orders or /v2.5/orders, or a pattern with * for any run of characters (/v2.1/esims/*); without a version prefix it is /v2.1’s (/orders is /v2.1/orders); a route template such as /v2.1/esims/:iccid matches too. `count` fires it for the next N matching calls, `probability` on each call with that chance (reproducible under SIM_SEED); with neither it fires on every matching call until removed. Faults are checked before authentication, in the order they were added; the first that fires applies.
   */
  simAddFault(input: {
    body: NonNullable<operations['simAddFault']['requestBody']>['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simAddFault']['responses'][200]['content']['application/json']>;

  /**
   * List active faults
   *
   * `GET /_sim/faults`
   */
  simListFaults(input?: {
    signal?: AbortSignal;
  }): Promise<operations['simListFaults']['responses'][200]['content']['application/json']>;

  /**
   * Remove faults
   *
   * `DELETE /_sim/faults`
   *
   * Removes the fault with the given id, or every fault when id is omitted.
   */
  simRemoveFaults(input?: {
    query?: NonNullable<operations['simRemoveFaults']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['simRemoveFaults']['responses'][200]['content']['application/json']>;

  /**
   * Reset the simulator
   *
   * `POST /_sim/reset`
   *
   * Removes every fault, goes back to the configured processing delay, empties the SMS outbox and restarts the network random sequence from SIM_SEED. Organisations, eSIMs, bundles and the clock are kept: the clock never goes back, because stored times would then lie in the future. With `toSeed=true`, goes back to the state SEED_FILE describes instead, in one transaction: everything but the catalogue is emptied, the clock returns to real time, the fixture is loaded again and, under SIM_SEED, the same ICCIDs, references and keys are drawn as on a first start (400 when SEED_FILE is not set).
   */
  simReset(input?: {
    query?: NonNullable<operations['simReset']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['simReset']['responses'][200]['content']['application/json']>;

  /**
   * Save the whole simulator state
   *
   * `GET /_sim/snapshot`
   *
   * Every organisation (with its API key in clear), user, balance and journal entry, order, eSIM, bundle, callback, mail, SMS, fault and setting, and the clock, as one JSON document. `esim sim export <file>` writes it to a file; PUT it back to restore that state.
   */
  simExportSnapshot(input?: {
    signal?: AbortSignal;
  }): Promise<
    operations['simExportSnapshot']['responses'][200]['content']['application/vnd.esim.snapshot+json']
  >;

  /**
   * Restore the simulator state from a snapshot
   *
   * `PUT /_sim/snapshot`
   *
   * Replaces everything with the snapshot's state, clock included, in one transaction (a refused snapshot changes nothing). The body is what GET /_sim/snapshot answered, sent as `application/vnd.esim.snapshot+json`; a snapshot of another schema version is refused with 400. `esim sim import <file>` sends a file.
   */
  simImportSnapshot(input: {
    body: NonNullable<
      operations['simImportSnapshot']['requestBody']
    >['content']['application/vnd.esim.snapshot+json'];
    signal?: AbortSignal;
  }): Promise<operations['simImportSnapshot']['responses'][200]['content']['application/json']>;

  /**
   * Read the request journal
   *
   * `GET /_sim/requests`
   *
   * Recent API calls made with an organisation key, newest first: method, path (without its query), status, time by the simulated clock and duration. The journal keeps about the newest 5,000 calls of the simulator.
   */
  simListRequests(input?: {
    query?: NonNullable<operations['simListRequests']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['simListRequests']['responses'][200]['content']['application/json']>;

  /**
   * A callback receiver that acknowledges every callback
   *
   * `POST /_sim/callback-receiver`
   *
   * Answers 200 to any usage callback (V2 or V3) and keeps nothing; the organisation's callback log (GET /v2.1/callbacks, the portal) shows each delivery. The demo organisation starts with its callback URL here, at the address of the first start, so its callbacks are delivered and can be resent before you have a receiver: set yours on the portal's API & callbacks page or with `esim org update <id> --callback-url …`. Needs no SIM_ADMIN_TOKEN.
   */
  simReceiveCallback(input: {
    body: NonNullable<
      operations['simReceiveCallback']['requestBody']
    >['content']['application/json'];
    signal?: AbortSignal;
  }): Promise<operations['simReceiveCallback']['responses'][200]['content']['application/json']>;

  /**
   * Get one bundle of an eSIM with its assignments
   *
   * `GET /v2.1/esims/{iccid}/bundles/{name}`
   *
   * A bundle never assigned to this eSIM is a 404.
   */
  getEsimBundle(input: {
    path: operations['getEsimBundle']['parameters']['path'];
    signal?: AbortSignal;
  }): Promise<operations['getEsimBundle']['responses'][200]['content']['application/json']>;

  /**
   * Revoke the oldest unused assignment of a bundle
   *
   * `DELETE /v2.1/esims/{iccid}/bundles/{name}`
   *
   * Revokes the oldest assignment of the named bundle on the eSIM that has not started (Processing or Queued), as the live service does, and refunds its unit to inventory. type=validate reports what would happen and changes nothing. When every assignment of the bundle has started or ended, this is a 400 (code no_unused_assignment): revoke a started one by id with DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}. A bundle never assigned to the eSIM, or an eSIM that is unknown or another organisation’s, is a 404.
   */
  revokeBundleByName(input: {
    path: operations['revokeBundleByName']['parameters']['path'];
    query?: NonNullable<operations['revokeBundleByName']['parameters']['query']>;
    signal?: AbortSignal;
  }): Promise<operations['revokeBundleByName']['responses'][200]['content']['application/json']>;
}

/**
 * A client of the v2.1 interface. A method resolves to the parsed answer (JSON parsed,
 * CSV as text, a ZIP as bytes) and rejects with an EsimApiError on any other status than 2xx.
 */
export function createClient(options: ClientOptions): EsimClient {
  const call = createCaller(options);
  return {
    checkLiveness: (input) => call({ method: 'GET', path: '/healthz' }, input),
    checkReadiness: (input) => call({ method: 'GET', path: '/readyz' }, input),
    getOrganisation: (input) => call({ method: 'GET', path: '/v2.1/organisation' }, input),
    topUpBalance: (input) => call({ method: 'POST', path: '/v2.1/organisation/balance' }, input),
    listOrganisationGroups: (input) =>
      call({ method: 'GET', path: '/v2.1/organisation/groups' }, input),
    listCatalogue: (input) => call({ method: 'GET', path: '/v2.1/catalogue' }, input),
    getCatalogueBundle: (input) =>
      call({ method: 'GET', path: '/v2.1/catalogue/bundle/{name}' }, input),
    placeOrder: (input) =>
      call({ method: 'POST', path: '/v2.1/orders', bodyType: 'application/json' }, input),
    listOrders: (input) => call({ method: 'GET', path: '/v2.1/orders' }, input),
    getOrder: (input) => call({ method: 'GET', path: '/v2.1/orders/{orderReference}' }, input),
    getInventory: (input) => call({ method: 'GET', path: '/v2.1/inventory' }, input),
    refundInventory: (input) =>
      call({ method: 'POST', path: '/v2.1/inventory/refund', bodyType: 'application/json' }, input),
    listEsims: (input) => call({ method: 'GET', path: '/v2.1/esims' }, input),
    updateEsims: (input) =>
      call({ method: 'PUT', path: '/v2.1/esims', bodyType: 'application/json' }, input),
    getInstallData: (input) => call({ method: 'GET', path: '/v2.1/esims/assignments' }, input),
    getInstallQrCodes: (input) =>
      call({ method: 'GET', path: '/v2.1/esims/qr/{reference}' }, input),
    getInstallCsv: (input) => call({ method: 'GET', path: '/v2.1/esims/csv/{reference}' }, input),
    applyBundle: (input) =>
      call({ method: 'POST', path: '/v2.1/esims/apply', bodyType: 'application/json' }, input),
    getEsim: (input) => call({ method: 'GET', path: '/v2.1/esims/{iccid}' }, input),
    getEsimHistory: (input) => call({ method: 'GET', path: '/v2.1/esims/{iccid}/history' }, input),
    getEsimLocation: (input) =>
      call({ method: 'GET', path: '/v2.1/esims/{iccid}/location' }, input),
    sendSms: (input) =>
      call(
        { method: 'POST', path: '/v2.1/esims/{iccid}/sms', bodyType: 'application/json' },
        input,
      ),
    listEsimBundles: (input) => call({ method: 'GET', path: '/v2.1/esims/{iccid}/bundles' }, input),
    revokeAssignment: (input) =>
      call(
        { method: 'DELETE', path: '/v2.1/esims/{iccid}/bundles/{name}/assignments/{assignmentId}' },
        input,
      ),
    revokeApplication: (input) =>
      call(
        {
          method: 'DELETE',
          path: '/v2.1/esims/{iccid}/bundles/{name}/applications/{assignmentId}',
        },
        input,
      ),
    refreshEsim: (input) => call({ method: 'GET', path: '/v2.1/esims/{iccid}/refresh' }, input),
    listNetworks: (input) => call({ method: 'GET', path: '/v2.1/networks' }, input),
    listCallbacks: (input) => call({ method: 'GET', path: '/v2.1/callbacks' }, input),
    getCallback: (input) => call({ method: 'GET', path: '/v2.1/callbacks/{id}' }, input),
    resendCallback: (input) => call({ method: 'POST', path: '/v2.1/callbacks/{id}/resend' }, input),
    simInstallProfile: (input) =>
      call(
        { method: 'POST', path: '/_sim/esims/{iccid}/install', bodyType: 'application/json' },
        input,
      ),
    simAttach: (input) =>
      call(
        { method: 'POST', path: '/_sim/esims/{iccid}/attach', bodyType: 'application/json' },
        input,
      ),
    simUseData: (input) =>
      call(
        { method: 'POST', path: '/_sim/esims/{iccid}/usage', bodyType: 'application/json' },
        input,
      ),
    simSetMsisdn: (input) =>
      call(
        { method: 'POST', path: '/_sim/esims/{iccid}/msisdn', bodyType: 'application/json' },
        input,
      ),
    simGetClock: (input) => call({ method: 'GET', path: '/_sim/clock' }, input),
    simAdvanceClock: (input) =>
      call({ method: 'POST', path: '/_sim/clock/advance', bodyType: 'application/json' }, input),
    simListSms: (input) => call({ method: 'GET', path: '/_sim/sms' }, input),
    simGetProcessing: (input) => call({ method: 'GET', path: '/_sim/processing' }, input),
    simSetProcessing: (input) =>
      call({ method: 'POST', path: '/_sim/processing', bodyType: 'application/json' }, input),
    simResetProcessing: (input) => call({ method: 'DELETE', path: '/_sim/processing' }, input),
    simAddFault: (input) =>
      call({ method: 'POST', path: '/_sim/faults', bodyType: 'application/json' }, input),
    simListFaults: (input) => call({ method: 'GET', path: '/_sim/faults' }, input),
    simRemoveFaults: (input) => call({ method: 'DELETE', path: '/_sim/faults' }, input),
    simReset: (input) => call({ method: 'POST', path: '/_sim/reset' }, input),
    simExportSnapshot: (input) => call({ method: 'GET', path: '/_sim/snapshot' }, input),
    simImportSnapshot: (input) =>
      call(
        { method: 'PUT', path: '/_sim/snapshot', bodyType: 'application/vnd.esim.snapshot+json' },
        input,
      ),
    simListRequests: (input) => call({ method: 'GET', path: '/_sim/requests' }, input),
    simReceiveCallback: (input) =>
      call(
        { method: 'POST', path: '/_sim/callback-receiver', bodyType: 'application/json' },
        input,
      ),
    getEsimBundle: (input) =>
      call({ method: 'GET', path: '/v2.1/esims/{iccid}/bundles/{name}' }, input),
    revokeBundleByName: (input) =>
      call({ method: 'DELETE', path: '/v2.1/esims/{iccid}/bundles/{name}' }, input),
  };
}
