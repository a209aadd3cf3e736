// Generated from /v2.1/openapi.json by scripts/api-files (npm run api:generate). Do not edit.

export interface paths {
  '/_sim/callback-receiver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A callback receiver that acknowledges every callback
     * @description Answers 200 to any usage callback (V2 or V3) and keeps nothing; the organisation's callback log (GET /v2.1/callbacks, the portal) shows each delivery. The demo organisation starts with its callback URL here, at the address of the first start, so its callbacks are delivered and can be resent before you have a receiver: set yours on the portal's API & callbacks page or with `esim org update <id> --callback-url …`. Needs no SIM_ADMIN_TOKEN.
     */
    post: operations['simReceiveCallback'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/clock': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read the simulated clock */
    get: operations['simGetClock'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/clock/advance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Advance the simulated clock
     * @description Moves the clock forward (it never goes back) and runs the lifecycle scheduler once before answering, so processing, expiry and validity lapses due by the new time are applied on return. The offset is stored and survives a restart.
     */
    post: operations['simAdvanceClock'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/esims/{iccid}/attach': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Attach the eSIM to a mobile network
     * @description Registers the eSIM on a real operator: give a country (an operational network of that country is chosen, reproducibly under SIM_SEED) or an exact mcc and mnc. The profile must be Installed. Sets the location and reports FirstAttachment/CountryChange to the callbacks.
     */
    post: operations['simAttach'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/esims/{iccid}/install': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Install the eSIM profile on a device
     * @description The device downloads and installs the profile: profileStatus becomes Installed (or the status given), firstInstalledDateTime is set on the first install, and the eSIM history records it. Unavailable means the profile was deleted from the device.
     */
    post: operations['simInstallProfile'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/esims/{iccid}/msisdn': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Give the eSIM a phone number (MSISDN)
     * @description Numbers the profile so it can receive SMS; the network numbers an eSIM by itself when it first attaches, so this is for a number of another country, given before that. The number carries the calling code of the given country, else of the country the eSIM is attached in, else GB. An eSIM that already has one keeps it (and it is answered).
     */
    post: operations['simSetMsisdn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/esims/{iccid}/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Use data on the eSIM
     * @description The network reports data used where the eSIM is attached. The Active bundle serves it if it covers that country; with none Active the first Queued bundle covering it is activated. Data beyond what the bundle has left is not served (the next bundle takes over on the next use).
     */
    post: operations['simUseData'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/faults': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List active faults */
    get: operations['simListFaults'];
    put?: never;
    /**
     * Add a fault to API routes
     * @description Matching requests answer `status` with {"message","code":"simulated_fault"} (429 and 503 with Retry-After: 1) and/or are delayed by latencyMs. `route` is a path of one API version such as /v2.1/orders or /v2.5/orders, or a pattern with * for any run of characters (/v2.1/esims/*); without a version prefix it is /v2.1’s (/orders is /v2.1/orders); a route template such as /v2.1/esims/:iccid matches too. `count` fires it for the next N matching calls, `probability` on each call with that chance (reproducible under SIM_SEED); with neither it fires on every matching call until removed. Faults are checked before authentication, in the order they were added; the first that fires applies.
     */
    post: operations['simAddFault'];
    /**
     * Remove faults
     * @description Removes the fault with the given id, or every fault when id is omitted.
     */
    delete: operations['simRemoveFaults'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/processing': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read the bundle processing delay */
    get: operations['simGetProcessing'];
    put?: never;
    /**
     * Set the bundle processing delay (slow processing)
     * @description New assignments stay Processing for this long (0 to 600 s), until the clock passes it; the eSIM can still be installed and attach meanwhile. 0 provisions at once. Applies to assignments created from now on; cleared by DELETE or POST /_sim/reset.
     */
    post: operations['simSetProcessing'];
    /** Go back to the configured processing delay */
    delete: operations['simResetProcessing'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the request journal
     * @description Recent API calls made with an organisation key, newest first: method, path (without its query), status, time by the simulated clock and duration. The journal keeps about the newest 5,000 calls of the simulator.
     */
    get: operations['simListRequests'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reset the simulator
     * @description Removes every fault, goes back to the configured processing delay, empties the SMS outbox and restarts the network random sequence from SIM_SEED. Organisations, eSIMs, bundles and the clock are kept: the clock never goes back, because stored times would then lie in the future. With `toSeed=true`, goes back to the state SEED_FILE describes instead, in one transaction: everything but the catalogue is emptied, the clock returns to real time, the fixture is loaded again and, under SIM_SEED, the same ICCIDs, references and keys are drawn as on a first start (400 when SEED_FILE is not set).
     */
    post: operations['simReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/sms': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the SMS outbox of the simulated network
     * @description Messages delivered through POST /v2.1/esims/{iccid}/sms, newest first.
     */
    get: operations['simListSms'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/_sim/snapshot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Save the whole simulator state
     * @description Every organisation (with its API key in clear), user, balance and journal entry, order, eSIM, bundle, callback, mail, SMS, fault and setting, and the clock, as one JSON document. `esim sim export <file>` writes it to a file; PUT it back to restore that state.
     */
    get: operations['simExportSnapshot'];
    /**
     * Restore the simulator state from a snapshot
     * @description Replaces everything with the snapshot's state, clock included, in one transaction (a refused snapshot changes nothing). The body is what GET /_sim/snapshot answered, sent as `application/vnd.esim.snapshot+json`; a snapshot of another schema version is refused with 400. `esim sim import <file>` sends a file.
     */
    put: operations['simImportSnapshot'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process is up */
    get: operations['checkLiveness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Readiness: the database is reachable
     * @description 200 when the database answers; status "degraded" (still 200) when Redis does not and the instance serves on its own rate-limit counters. 503 when the database does not answer.
     */
    get: operations['checkReadiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/callbacks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List usage callback deliveries
     * @description The organisation usage callbacks, newest first, with their delivery state. Paging metadata is in the X-Total-Count and Link headers; its next and prev links carry the key of the page beside them (before, after) and no page number, so following them reads every delivery once while new ones arrive. There is a next (prev) link when older (newer) deliveries exist; an empty page read by key links back to the deliveries beside its key. before and after together, or either with a page other than 1, are a 400. With a status filter, a page by number more than 10000 deliveries from both the first and the last page is a 400: follow the links.
     */
    get: operations['listCallbacks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/callbacks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get one usage callback with its attempts
     * @description The event body as stored (V3 shape), its delivery state, and every attempt with its time, status, latency, error and the start of the response.
     */
    get: operations['getCallback'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/callbacks/{id}/resend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resend a usage callback
     * @description Queues a failed, delivered or undeliverable callback for delivery again, to the current callback URL and version, with a fresh retry schedule; past attempts are kept. Answers 202 with the queued delivery. Accepts an Idempotency-Key header.
     */
    post: operations['resendCallback'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/catalogue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the bundles the organisation may order
     * @description Only bundles of the organisation groups are listed. Filters combine with AND. The body is a bare array; paging metadata is in the X-Total-Count and Link headers.
     */
    get: operations['listCatalogue'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/catalogue/bundle/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get one bundle of the catalogue by name
     * @description A bundle outside the organisation groups is answered like an unknown one (404).
     */
    get: operations['getCatalogueBundle'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the eSIMs of the organisation
     * @description A page of the organisation eSIMs in the order they were issued. Paging metadata is in the body (pageCount, rows, pageSize) and, as for the catalogue, in the X-Total-Count and Link headers.
     */
    get: operations['listEsims'];
    /**
     * Set the customer reference of an eSIM
     * @description Stores the organisation’s own reference for one of its eSIMs (for example its customer or device id). GET /esims and GET /esims/{iccid} then carry it as customerRef, and the eSIM history gains an "eSIM Updated" entry. An empty customerRef clears it. An ICCID that is unknown or another organisation’s is a 404. The fields go in a JSON body, or, as the live documentation also shows, in the query string of a request without a body (the body wins when both are sent).
     */
    put: operations['updateEsims'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an eSIM
     * @description Profile details of one eSIM of the organisation. With additionalFields=appleInstallUrl the response also carries appleInstallUrl, a link that installs the profile on an iPhone (iOS 17.4+).
     */
    get: operations['getEsim'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/bundles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the bundles of an eSIM with their assignments
     * @description Every bundle ever assigned to the eSIM, in the order first assigned, each with its assignments (id, reference, state, data in bytes, start and end time). Includes finished (Depleted, Expired, Revoked) assignments.
     */
    get: operations['listEsimBundles'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/bundles/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get one bundle of an eSIM with its assignments
     * @description A bundle never assigned to this eSIM is a 404.
     */
    get: operations['getEsimBundle'];
    put?: never;
    post?: never;
    /**
     * Revoke the oldest unused assignment of a bundle
     * @description Revokes the oldest assignment of the named bundle on the eSIM that has not started (Processing or Queued), as the live service does, and refunds its unit to inventory. type=validate reports what would happen and changes nothing. When every assignment of the bundle has started or ended, this is a 400 (code no_unused_assignment): revoke a started one by id with DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}. A bundle never assigned to the eSIM, or an eSIM that is unknown or another organisation’s, is a 404.
     */
    delete: operations['revokeBundleByName'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/bundles/{name}/applications/{assignmentId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke one assignment of a bundle (deprecated)
     * @deprecated
     * @description Revokes one assignment of a bundle on an eSIM (for example one month of a repeated bundle). Processing or Queued assignments become Revoked and the unit is refunded to inventory (to the batch it was drawn from; a unit bought with assign=true comes back as a new batch of one that lapses when the assignment would have). An Active assignment becomes Revoked without refund. Depleted, Expired or Revoked assignments cannot be revoked (400). An assignment that does not exist, is not of that bundle or not on that eSIM is a 404. Deprecated: every response carries Deprecation: true and a Link to the successor, DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}.
     */
    delete: operations['revokeApplication'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/bundles/{name}/assignments/{assignmentId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke one assignment of a bundle
     * @description Revokes one assignment of a bundle on an eSIM (for example one month of a repeated bundle). Processing or Queued assignments become Revoked and the unit is refunded to inventory (to the batch it was drawn from; a unit bought with assign=true comes back as a new batch of one that lapses when the assignment would have). An Active assignment becomes Revoked without refund. Depleted, Expired or Revoked assignments cannot be revoked (400). An assignment that does not exist, is not of that bundle or not on that eSIM is a 404. Successor of the deprecated .../applications/{assignmentId} route, with the same behaviour.
     */
    delete: operations['revokeAssignment'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the history of an eSIM
     * @description Bundle and profile events of the eSIM, newest first (at most 1000).
     */
    get: operations['getEsimHistory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/location': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the last known location of an eSIM
     * @description The network the eSIM last registered on. An eSIM never seen on a network is a 404 saying so.
     */
    get: operations['getEsimLocation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/refresh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Refresh the network registration of an eSIM
     * @description Troubleshooting: the network cancels the eSIM’s location and the device registers again, which briefly disconnects it. The simulated network re-registers at once on the same network (lastSeen of GET /esims/{iccid}/location moves to now). The eSIM history gains an "eSIM Refreshed" entry. A GET, as on the live service.
     */
    get: operations['refreshEsim'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/{iccid}/sms': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send an SMS to an eSIM
     * @description Delivers a text message to the eSIM phone number. The eSIM must have an MSISDN (400 otherwise). In simulator mode delivered messages appear in GET /_sim/sms.
     */
    post: operations['sendSms'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/apply': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Apply a bundle from inventory to an eSIM
     * @description Takes units of a bundle from the organisation inventory (oldest unexpired batch first) and assigns them to an eSIM the organisation owns, or to a newly issued eSIM when iccid is omitted. Each assignment starts in Processing and is Queued once provisioned. All or nothing: without enough units in inventory nothing changes (400, code insufficient_inventory). A bundle that does not exist and one outside the organisation groups that it never bought get the same 400 (code unknown_bundle). The applyReference works with GET /esims/assignments for install data. Accepts Idempotency-Key.
     */
    post: operations['applyBundle'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/assignments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Install data for an order or apply reference (CSV or ZIP of QR codes)
     * @description The eSIMs assigned by one order (assign=true) or one apply, as a CSV with the columns ICCID, Matching ID, RSP URL, Bundle (one row per eSIM and bundle), or as a ZIP holding <iccid>.png, a QR code per eSIM carrying its activation code LPA:1$<smdpAddress>$<matchingId>. As JSON, the eSIMs themselves (iccid, matchingId, smdpAddress, profileStatus, pin, puk, firstInstalledDateTime): one object when the reference has one eSIM, as the live service answers, and an array of them when it has several. Choose with Accept: text/csv (the default, also for *\/* or no Accept), application/json or application/zip, q-values honoured; or with format (which wins). A reference that is unknown or another organisation’s is a 404.
     */
    get: operations['getInstallData'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/csv/{reference}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Install data of the eSIMs of an order or apply reference (CSV)
     * @description A CSV with the header ICCID, Matching ID, RSP URL, Bundle and one row per eSIM and bundle the reference assigned (RFC 4180 quoting, CRLF line ends). The same file as GET /esims/assignments?reference=...&format=csv.
     */
    get: operations['getInstallCsv'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/esims/qr/{reference}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * QR codes of the eSIMs of an order or apply reference (ZIP of PNG)
     * @description A ZIP holding <iccid>.png for each eSIM the reference assigned: a QR code carrying the activation code LPA:1$<smdpAddress>$<matchingId>, which a phone camera turns into the profile download. The same files as GET /esims/assignments?reference=...&format=zip.
     */
    get: operations['getInstallQrCodes'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/inventory': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the bundles the organisation bought and has not applied yet
     * @description Grouped by bundle (by name), with one `available` entry per purchase batch. Batches that are used up or expired are left out. The answer is streamed as it is read (chunked transfer encoding, no Content-Length), so its size has no limit: about 75 bytes per batch.
     */
    get: operations['getInventory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/inventory/refund': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Refund unapplied inventory bundles to the balance
     * @description Takes quantity unapplied units out of one inventory batch (usageId is the id of an available[] entry of GET /inventory) and credits their purchase price back: to the balance up to what the order paid from the balance, the rest to test credit. Allowed within 60 days of the purchase (INVENTORY_REFUND_DAYS; 0 turns refunds off) and while the units have not lapsed. A unit refunded to inventory by a revoke keeps the purchase date and price of the order it was bought in. One journal entry (kind refund) per call.
     */
    post: operations['refundInventory'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/networks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the mobile networks of countries
     * @description The networks an eSIM registers on in each country asked for: national operators with their own radio network (virtual operators only where a country has no other), from the operator data the simulated network uses. Give countries, isos or returnAll=true; an unknown country is a 400 naming it. Countries without a known network are listed with no networks.
     */
    get: operations['listNetworks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/orders': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the organisation orders, newest first
     * @description The body is a bare array of Order, as for the catalogue; paging metadata is in the X-Total-Count and Link headers.
     */
    get: operations['listOrders'];
    put?: never;
    /**
     * Place or validate an order
     * @description The price is debited from test credit first (while unexpired), then from the balance. Insufficient funds, an unknown bundle or one outside the organisation groups, an ICCID the organisation does not own, or a quantity above the limits: 400, and nothing changes.
     */
    post: operations['placeOrder'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/orders/{orderReference}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an order with its total cost and contents */
    get: operations['getOrder'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/organisation': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get the caller organisation, including its users */
    get: operations['getOrganisation'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/organisation/balance': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Top up the prepaid balance by charging the saved card
     * @description Charges the card saved in the portal (the first payment is made there) and credits the balance. Declined: 400 with the reason. Processor unreachable or not answering in time: 503 with Retry-After and the balance unchanged; a charge whose answer was lost is confirmed with the processor afterwards and credited at most once.
     */
    post: operations['topUpBalance'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v2.1/organisation/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the bundle groups of the organisation
     * @description The bundle groups the organisation may order from, in the order the organisation lists them (GET /organisation groups). The shape is the live service’s later one, {"groups":[{"name","desc"}]}; bundleCount is an addition.
     */
    get: operations['listOrganisationGroups'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** Country */
    Country: {
      /** @description ISO 3166-1 alpha-2 code. */
      iso: string;
      /** @description Country name in English. */
      name: string;
      /** @description Region: Africa, Americas, Asia, Europe, Oceania or Antarctic. */
      region: string;
    };
    /** Error */
    Error: {
      /** @description A stable machine-readable reason from the error catalogue (docs/errors.md); every error this service builds carries one. */
      code?: string;
      /** @description What went wrong, naming the offending field where there is one. */
      message: string;
    };
    /**
     * UsageCallbackV2
     * @description Reduced shape, sent when the organisation's callback version is V2 (the default). Unsigned.
     */
    UsageCallbackV2: {
      /**
       * @description Utilisation (the bundle passed 1, 50, 80 or 100 % used), FirstUse (first data use), FirstAttachment (first network attachment) or CountryChange.
       * @example Utilisation
       */
      alertType: 'Utilisation' | 'FirstUse' | 'FirstAttachment' | 'CountryChange';
      /** @description The bundle in use. Absent only when the eSIM attaches to a network while it has no bundle in use or queued. */
      bundle?: {
        /** @description End of the bundle (start + duration), RFC 3339 UTC; empty before first use. */
        endTime: string;
        /** @description Id of the bundle assignment; used to revoke a single assignment (DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}). */
        id: string;
        /** @description Starting data in bytes; -1 for an unlimited bundle. */
        initialQuantity: number;
        /** @description Bundle name, as in the catalogue (case sensitive). */
        name: string;
        /** @description Remaining data in bytes; -1 for an unlimited bundle. */
        remainingQuantity: number;
        /** @description Start of the bundle, RFC 3339 UTC; empty before first use. */
        startTime: string;
      };
      /** @description ICCID of the eSIM: 19 digits. */
      iccid: string;
    };
    /**
     * UsageCallbackV3
     * @description Full shape, sent when the organisation's callback version is V3. Signed: X-Signature-SHA256 = base64(HMAC-SHA256(key = the API key, message = the exact body bytes)).
     */
    UsageCallbackV3: {
      /**
       * @description Utilisation (the bundle passed 1, 50, 80 or 100 % used), FirstUse (first data use), FirstAttachment (first network attachment) or CountryChange.
       * @example Utilisation
       */
      alertType: 'Utilisation' | 'FirstUse' | 'FirstAttachment' | 'CountryChange';
      /** @description The bundle in use. Absent only when the eSIM attaches to a network while it has no bundle in use or queued. */
      bundle?: {
        /** @description Bundle description. */
        description: string;
        /** @description End of the bundle (start + duration), RFC 3339 UTC; empty before first use. */
        endTime: string;
        /** @description Id of the bundle assignment; used to revoke a single assignment (DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}). */
        id: string;
        /** @description Starting data in bytes; -1 for an unlimited bundle. */
        initialQuantity: number;
        /** @description Bundle name, as in the catalogue (case sensitive). */
        name: string;
        /** @description Reference of the assignment (the order or apply reference); usable with GET /esims/{iccid}/bundles. */
        reference: string;
        /** @description Remaining data in bytes; -1 for an unlimited bundle. */
        remainingQuantity: number;
        /** @description Start of the bundle, RFC 3339 UTC; empty before first use. */
        startTime: string;
        /** @description Whether the bundle is unlimited. */
        unlimited: boolean;
      };
      /** @description FirstAttachment and CountryChange: ISO 3166-1 alpha-2 country attached in. */
      country?: string;
      /** @description ICCID of the eSIM: 19 digits. */
      iccid: string;
      /** @description CountryChange only: ISO 3166-1 alpha-2 country before. */
      previousCountry?: string;
      /**
       * @description Utilisation only: the percentage used that was passed (1, 50, 80 or 100). One usage report can pass several thresholds; each gets its own event.
       * @enum {integer}
       */
      threshold?: 1 | 50 | 80 | 100;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  simReceiveCallback: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description A usage callback. */
    requestBody: {
      content: {
        /**
         * @example {
         *       "iccid": "8966975007124231762",
         *       "alertType": "Utilisation",
         *       "bundle": {
         *         "id": "00000000-0001-723e-8a50-16840c58e1d2",
         *         "reference": "7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71",
         *         "name": "esim_1GB_7D_FR_V2",
         *         "description": "eSIM, 1GB, 7 Days, France, V2",
         *         "initialQuantity": 1000000000,
         *         "remainingQuantity": 500000000,
         *         "startTime": "2026-12-06T09:30:00.000Z",
         *         "endTime": "2026-12-13T09:30:00.000Z",
         *         "unlimited": false
         *       },
         *       "threshold": 50
         *     }
         */
        'application/json': {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description Acknowledged. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "acknowledged": true
           *     }
           */
          'application/json': {
            acknowledged: boolean;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simGetClock: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The simulated time and its offset from real time. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "now": "2026-11-23T17:55:18.841Z",
           *       "offsetSeconds": 0
           *     }
           */
          'application/json': {
            /** @description The simulated time, RFC 3339 UTC. */
            now: string;
            /** @description How far the simulated time is ahead of real time. */
            offsetSeconds: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simAdvanceClock: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "seconds": 86400
         *     }
         */
        'application/json': {
          /** @description Seconds to advance, e.g. 2592000 for 30 days. */
          seconds: number;
        };
      };
    };
    responses: {
      /** @description The new simulated time, and what the scheduler did at it. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "now": "2026-11-23T17:56:18.843Z",
           *       "offsetSeconds": 60,
           *       "provisioned": 0,
           *       "expired": 0
           *     }
           */
          'application/json': {
            /** @description Assignments that became Expired. */
            expired: number;
            /** @description The simulated time, RFC 3339 UTC. */
            now: string;
            /** @description How far the simulated time is ahead of real time. */
            offsetSeconds: number;
            /** @description Assignments that became Queued. */
            provisioned: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simAttach: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of any eSIM (the control plane is not scoped to an organisation).
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "country": "FR"
         *     }
         */
        'application/json': {
          /** @description ISO 3166-1 alpha-2, e.g. FR. */
          country?: string;
          /** @description e.g. 208. */
          mcc?: string;
          /** @description e.g. 01. */
          mnc?: string;
        };
      };
    };
    responses: {
      /** @description The network the eSIM attached to. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "mobileNetworkCode": "20819",
           *       "mcc": "208",
           *       "mnc": "19",
           *       "networkName": "Haute-Garonne numérique",
           *       "country": "FR",
           *       "lastSeen": "2026-11-23T17:55:18.798Z"
           *     }
           */
          'application/json': {
            country: string;
            iccid: string;
            lastSeen: string;
            mcc: string;
            mnc: string;
            mobileNetworkCode: string;
            networkName: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simInstallProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of any eSIM (the control plane is not scoped to an organisation).
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "status": "Installed"
         *     }
         */
        'application/json': {
          /**
           * @default Installed
           * @enum {string}
           */
          status?: 'Downloaded' | 'Installed' | 'Unavailable';
        };
      };
    };
    responses: {
      /** @description The profile status after the install. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "profileStatus": "Installed",
           *       "firstInstalledDateTime": "2026-11-23T17:55:18.793Z"
           *     }
           */
          'application/json': {
            firstInstalledDateTime: string;
            iccid: string;
            profileStatus: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simSetMsisdn: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of any eSIM (the control plane is not scoped to an organisation).
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "country": "GB"
         *     }
         */
        'application/json': {
          /** @description ISO 3166-1 alpha-2. */
          country?: string;
        };
      };
    };
    responses: {
      /** @description The phone number of the eSIM. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "msisdn": "33503461503"
           *     }
           */
          'application/json': {
            iccid: string;
            /** @description E.164 digits without +. */
            msisdn: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simUseData: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of any eSIM (the control plane is not scoped to an organisation).
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "bytes": 100000000
         *     }
         */
        'application/json': {
          /** @description Bytes used. */
          bytes: number;
        };
      };
    };
    responses: {
      /** @description How the usage was served. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "requestedBytes": 600000,
           *       "consumedBytes": 600000,
           *       "unservedBytes": 0,
           *       "reason": "",
           *       "transitions": [
           *         "Queued -> Active"
           *       ],
           *       "assignment": {
           *         "id": "93f19d68-69a0-425c-8e71-43d82db5c67c",
           *         "name": "esim_2GB_10D_FR_V2",
           *         "state": "Active",
           *         "remainingBytes": 1999400000,
           *         "usedBytes": 600000
           *       }
           *     }
           */
          'application/json': {
            assignment?: {
              id: string;
              name: string;
              remainingBytes: number;
              state: string;
              usedBytes: number;
            };
            /** @description Bytes taken off a bundle. */
            consumedBytes: number;
            iccid: string;
            /** @description Why some bytes were not served; empty when all were. */
            reason: string;
            requestedBytes: number;
            /** @description State changes caused, e.g. "Queued -> Active". */
            transitions: string[];
            /** @description Bytes not served. */
            unservedBytes: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simListFaults: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The active faults, in the order they apply. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "faults": [
           *         {
           *           "id": "0b44ca07-c5a0-4e96-abd4-c97aef868a05",
           *           "route": "/v2.1/no-such-route",
           *           "method": "*",
           *           "status": 503,
           *           "remaining": 1,
           *           "probability": null,
           *           "latencyMs": 0,
           *           "createdAt": "2026-11-23T17:56:18.851Z"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            faults: {
              createdAt: string;
              id: string;
              /** @description Delay added before answering, ms. */
              latencyMs: number;
              /** @description HTTP method, or * for any. */
              method: string;
              /** @description Chance of firing per matching call; null: always. */
              probability: number | null;
              /** @description Calls it still fires for; null: until removed. */
              remaining: number | null;
              /** @description Path pattern it matches. */
              route: string;
              /** @description Status answered; null: latency only. */
              status: number | null;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simAddFault: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "route": "/v2.1/orders",
         *       "method": "POST",
         *       "status": 503,
         *       "count": 1
         *     }
         */
        'application/json': {
          count?: number;
          /** @default 0 */
          latencyMs?: number;
          /**
           * @description e.g. POST; * for any.
           * @default *
           */
          method?: string;
          probability?: number;
          route: string;
          status?: number;
        };
      };
    };
    responses: {
      /** @description The fault, now active. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "0b44ca07-c5a0-4e96-abd4-c97aef868a05",
           *       "route": "/v2.1/no-such-route",
           *       "method": "*",
           *       "status": 503,
           *       "remaining": 1,
           *       "probability": null,
           *       "latencyMs": 0,
           *       "createdAt": "2026-11-23T17:56:18.851Z"
           *     }
           */
          'application/json': {
            createdAt: string;
            id: string;
            /** @description Delay added before answering, ms. */
            latencyMs: number;
            /** @description HTTP method, or * for any. */
            method: string;
            /** @description Chance of firing per matching call; null: always. */
            probability: number | null;
            /** @description Calls it still fires for; null: until removed. */
            remaining: number | null;
            /** @description Path pattern it matches. */
            route: string;
            /** @description Status answered; null: latency only. */
            status: number | null;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simRemoveFaults: {
    parameters: {
      query?: {
        id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The faults that were removed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "removed": 1
           *     }
           */
          'application/json': {
            removed: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simGetProcessing: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The processing delay in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "delaySeconds": 0,
           *       "source": "config"
           *     }
           */
          'application/json': {
            /** @description Seconds a new assignment stays Processing. */
            delaySeconds: number;
            /** @description simulator (set here) or config (PROCESSING_DELAY_SECONDS). */
            source: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simSetProcessing: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "delaySeconds": 0
         *     }
         */
        'application/json': {
          delaySeconds: number;
        };
      };
    };
    responses: {
      /** @description The processing delay now in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "delaySeconds": 0,
           *       "source": "simulator"
           *     }
           */
          'application/json': {
            /** @description Seconds a new assignment stays Processing. */
            delaySeconds: number;
            /** @description simulator (set here) or config (PROCESSING_DELAY_SECONDS). */
            source: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simResetProcessing: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The configured processing delay, in force again. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "delaySeconds": 0,
           *       "source": "config"
           *     }
           */
          'application/json': {
            /** @description Seconds a new assignment stays Processing. */
            delaySeconds: number;
            /** @description simulator (set here) or config (PROCESSING_DELAY_SECONDS). */
            source: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simListRequests: {
    parameters: {
      query?: {
        /** @description At most this many. */
        limit?: number;
        /** @description Only this organisation’s calls. */
        organisation?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Recent API calls, newest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "requests": [
           *         {
           *           "organisationId": "6b1f0c9e-2f4e-4a8e-9d8b-1f2a3c4d5e6f",
           *           "at": "2026-11-23T17:56:18.900Z",
           *           "method": "POST",
           *           "path": "/v2.1/orders",
           *           "status": 200,
           *           "durationMs": 12
           *         }
           *       ]
           *     }
           */
          'application/json': {
            requests: {
              /** @description RFC 3339 UTC, simulated time. */
              at: string;
              durationMs: number;
              method: string;
              organisationId: string;
              path: string;
              status: number;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simReset: {
    parameters: {
      query?: {
        /** @description Go back to the SEED_FILE state. */
        toSeed?: boolean;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What was reset. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "reset": [
           *         "faults",
           *         "processing"
           *       ]
           *     }
           */
          'application/json': {
            /** @description toSeed only: the organisations the fixture created. */
            organisations?: {
              apiKey: string;
              iccids: string[];
              id: string;
              name: string;
            }[];
            reset: string[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simListSms: {
    parameters: {
      query?: {
        /** @description Only messages to this eSIM. */
        iccid?: string;
        /** @description At most this many. */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description SMS messages sent to eSIMs, newest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "messages": [
           *         {
           *           "id": "da2849d7-3eb4-438a-a07d-090402c802d7",
           *           "iccid": "8904862156008465066",
           *           "msisdn": "33503461503",
           *           "from": "eSIM",
           *           "message": "Welcome aboard",
           *           "createdAt": "2026-11-23T17:55:18.827Z"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            messages: {
              /** @description RFC 3339 UTC. */
              createdAt: string;
              from: string;
              iccid: string;
              id: string;
              message: string;
              msisdn: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  simExportSnapshot: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The snapshot. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "format": "esim-simulator-snapshot",
           *       "version": 1,
           *       "exportedAt": "2026-12-03T10:00:00.000Z",
           *       "clock": {
           *         "now": "2026-12-03T10:00:00.000Z",
           *         "offsetSeconds": 691200
           *       },
           *       "migrations": [
           *         "001-foundation",
           *         "002-catalogue"
           *       ],
           *       "apiKeys": {
           *         "0b0c6f0e-5f3c-4d51-9d7e-1f7b2a6c9e01": "esim_EXAMPLE-KEY-NOT-A-REAL-ONE"
           *       },
           *       "tables": {
           *         "sim_state": [
           *           {
           *             "key": "clock_offset_ms",
           *             "value": "691200000"
           *           }
           *         ],
           *         "esims": [
           *           {
           *             "iccid": "8944000000000000019",
           *             "customer_ref": "fleet-7",
           *             "profile_status": "Installed"
           *           }
           *         ]
           *       }
           *     }
           */
          'application/vnd.esim.snapshot+json': {
            /** @description Each organisation API key in clear, by organisation id. */
            apiKeys: {
              [key: string]: string;
            };
            clock: {
              /** @description Simulated time, RFC 3339. */
              now: string;
              /** @description How far the simulated clock is ahead of real time. */
              offsetSeconds: number;
            };
            exportedAt: string;
            /** @enum {string} */
            format: 'esim-simulator-snapshot';
            migrations: string[];
            /** @description Every row of every table, by table name. */
            tables: {
              [key: string]: {
                [key: string]: unknown;
              }[];
            };
            version: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
      /** @description An organisation's API key cannot be read with this simulator's MASTER_KEY: rotate it. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/vnd.esim.snapshot+json': components['schemas']['Error'];
        };
      };
    };
  };
  simImportSnapshot: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/vnd.esim.snapshot+json': {
          /** @description Each organisation API key in clear, by organisation id. */
          apiKeys: {
            [key: string]: string;
          };
          clock: {
            /** @description Simulated time, RFC 3339. */
            now: string;
            /** @description How far the simulated clock is ahead of real time. */
            offsetSeconds: number;
          };
          exportedAt: string;
          /** @enum {string} */
          format: 'esim-simulator-snapshot';
          migrations: string[];
          /** @description Every row of every table, by table name. */
          tables: {
            [key: string]: {
              [key: string]: unknown;
            }[];
          };
          version: number;
        };
      };
    };
    responses: {
      /** @description The state was restored. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "organisations": 1,
           *       "esims": 1,
           *       "clock": {
           *         "now": "2026-12-03T10:00:00.000Z",
           *         "offsetSeconds": 691200
           *       }
           *     }
           */
          'application/json': {
            clock: {
              /** @description Simulated time, RFC 3339. */
              now: string;
              /** @description How far the simulated clock is ahead of real time. */
              offsetSeconds: number;
            };
            esims: number;
            organisations: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and no bearer token was sent. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description SIM_ADMIN_TOKEN is set and the bearer token is wrong. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such eSIM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  checkLiveness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The process is up. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok"
           *     }
           */
          'application/json': {
            status: string;
          };
        };
      };
    };
  };
  checkReadiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The database answers; the instance takes traffic. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ready"
           *     }
           */
          'application/json': {
            /** @description Present when Redis is configured. */
            dependencies?: {
              /** @description degraded: Redis failed or missed its deadline and rate limits use this instance’s own counters. */
              redis: 'ok' | 'degraded';
            };
            /** @description ready: every dependency answers; degraded: the database answers but an optional dependency (Redis) does not, and the instance serves without it. */
            status: 'ready' | 'degraded';
          };
        };
      };
      /** @description The database does not answer: take the instance out of rotation (Retry-After). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCallbacks: {
    parameters: {
      query?: {
        /** @description The deliveries newer than this key (set by the prev link): a delivery number within the organisation, or 0 for the oldest deliveries. */
        after?: string;
        /** @description The deliveries older than this key (set by the next link): a delivery number within the organisation. */
        before?: string;
        /** @description Page to return, a whole number from 1. A page past the end is empty. */
        page?: string;
        /** @description Deliveries per page, 1 to 500 (default 50). */
        perPage?: number;
        /** @description pending (waiting for its next attempt), delivering (an attempt is under way), delivered (a 2xx was received), failed (the retry schedule ran out), undeliverable (no callback URL was configured). */
        status?: 'pending' | 'delivering' | 'delivered' | 'failed' | 'undeliverable';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of callback deliveries, newest first. */
      200: {
        headers: {
          /** @description RFC 8288 links to the next, prev, first and last pages, keeping the other query parameters. */
          Link?: string;
          /** @description Deliveries matching the filter, over all pages. */
          'X-Total-Count'?: number;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "callbacks": [
           *         {
           *           "id": "d159d9d3-3897-49c2-9857-99b6499672b1",
           *           "iccid": "8904862156008465066",
           *           "alertType": "FirstUse",
           *           "status": "delivered",
           *           "attemptCount": 1,
           *           "lastStatusCode": 200,
           *           "createdAt": "2026-11-23T17:55:18.809Z",
           *           "updatedAt": "2026-11-23T17:56:18.907Z",
           *           "nextAttemptAt": "",
           *           "deliveredAt": "2026-11-23T17:56:18.907Z"
           *         },
           *         {
           *           "id": "7e568d69-4811-461e-b356-91309e1cc3c6",
           *           "iccid": "8904862156008465066",
           *           "alertType": "FirstAttachment",
           *           "status": "delivered",
           *           "attemptCount": 1,
           *           "lastStatusCode": 200,
           *           "createdAt": "2026-11-23T17:55:18.798Z",
           *           "updatedAt": "2026-11-23T17:56:18.902Z",
           *           "nextAttemptAt": "",
           *           "deliveredAt": "2026-11-23T17:56:18.902Z"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            callbacks: {
              /** @description Utilisation, FirstUse, FirstAttachment or CountryChange. */
              alertType: string;
              /** @description Attempts made so far, over every resend. */
              attemptCount: number;
              /** @description When the event happened (RFC 3339 UTC); sent as X-Event-Timestamp. */
              createdAt: string;
              /** @description When a 2xx was received (RFC 3339 UTC); empty when not delivered. */
              deliveredAt: string;
              /** @description ICCID of the eSIM the event is about. */
              iccid: string;
              /** @description Event id; also sent as the X-Event-Id header of every attempt. */
              id: string;
              /** @description HTTP status of the last attempt; 0 when none was received. */
              lastStatusCode: number;
              /** @description When the next attempt is due (RFC 3339 UTC); empty unless pending. */
              nextAttemptAt: string;
              /**
               * @description pending (waiting for its next attempt), delivering (an attempt is under way), delivered (a 2xx was received), failed (the retry schedule ran out), undeliverable (no callback URL was configured).
               * @enum {string}
               */
              status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'undeliverable';
              /** @description Last change of the delivery state (RFC 3339 UTC). */
              updatedAt: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCallback: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description Event id.
         * @example 005412e2-9223-4d60-8298-fe90a31e5d1d
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The delivery, its payload and every attempt. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "d159d9d3-3897-49c2-9857-99b6499672b1",
           *       "iccid": "8904862156008465066",
           *       "alertType": "FirstUse",
           *       "status": "delivered",
           *       "attemptCount": 1,
           *       "lastStatusCode": 200,
           *       "createdAt": "2026-11-23T17:55:18.809Z",
           *       "updatedAt": "2026-11-23T17:56:18.907Z",
           *       "nextAttemptAt": "",
           *       "deliveredAt": "2026-11-23T17:56:18.907Z",
           *       "payload": {
           *         "iccid": "8904862156008465066",
           *         "alertType": "FirstUse",
           *         "bundle": {
           *           "id": "93f19d68-69a0-425c-8e71-43d82db5c67c",
           *           "reference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *           "name": "esim_2GB_10D_FR_V2",
           *           "description": "eSIM, 2GB, 10 Days, France, V2",
           *           "initialQuantity": 2000000000,
           *           "remainingQuantity": 1999400000,
           *           "startTime": "2026-11-23T17:55:18.809Z",
           *           "endTime": "2026-12-03T17:55:18.809Z",
           *           "unlimited": false
           *         }
           *       },
           *       "attempts": [
           *         {
           *           "attemptNo": 1,
           *           "attemptedAt": "2026-11-23T17:56:18.906Z",
           *           "url": "https://acme.example/esim-callbacks",
           *           "statusCode": 200,
           *           "latencyMs": 1,
           *           "error": "",
           *           "responseSnippet": "ok"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            /** @description Utilisation, FirstUse, FirstAttachment or CountryChange. */
            alertType: string;
            /** @description Attempts made so far, over every resend. */
            attemptCount: number;
            /** @description Every attempt, oldest first. */
            attempts: {
              /** @description When the request started (RFC 3339 UTC). */
              attemptedAt: string;
              /** @description Number of the attempt, from 1; sent as X-Delivery-Attempt. */
              attemptNo: number;
              /** @description Why the attempt failed (timeout, refused address, redirect not followed ...); empty when it did not. */
              error: string;
              /** @description Time to the complete response or the failure, in milliseconds. */
              latencyMs: number;
              /** @description The first 512 bytes of the response body. */
              responseSnippet: string;
              /** @description HTTP status received; 0 when there was no response. */
              statusCode: number;
              /** @description The callback URL used. */
              url: string;
            }[];
            /** @description When the event happened (RFC 3339 UTC); sent as X-Event-Timestamp. */
            createdAt: string;
            /** @description When a 2xx was received (RFC 3339 UTC); empty when not delivered. */
            deliveredAt: string;
            /** @description ICCID of the eSIM the event is about. */
            iccid: string;
            /** @description Event id; also sent as the X-Event-Id header of every attempt. */
            id: string;
            /** @description HTTP status of the last attempt; 0 when none was received. */
            lastStatusCode: number;
            /** @description When the next attempt is due (RFC 3339 UTC); empty unless pending. */
            nextAttemptAt: string;
            /** @description The full (V3) event body; V2 receivers get its reduced shape. */
            payload: unknown;
            /**
             * @description pending (waiting for its next attempt), delivering (an attempt is under way), delivered (a 2xx was received), failed (the retry schedule ran out), undeliverable (no callback URL was configured).
             * @enum {string}
             */
            status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'undeliverable';
            /** @description Last change of the delivery state (RFC 3339 UTC). */
            updatedAt: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  resendCallback: {
    parameters: {
      query?: never;
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path: {
        /**
         * @description Event id.
         * @example 005412e2-9223-4d60-8298-fe90a31e5d1d
         */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The delivery is queued again with a fresh retry schedule. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "d159d9d3-3897-49c2-9857-99b6499672b1",
           *       "iccid": "8904862156008465066",
           *       "alertType": "FirstUse",
           *       "status": "pending",
           *       "attemptCount": 1,
           *       "lastStatusCode": 200,
           *       "createdAt": "2026-11-23T17:55:18.809Z",
           *       "updatedAt": "2026-11-23T17:56:18.923Z",
           *       "nextAttemptAt": "2026-11-23T17:56:18.923Z",
           *       "deliveredAt": "2026-11-23T17:56:18.907Z"
           *     }
           */
          'application/json': {
            /** @description Utilisation, FirstUse, FirstAttachment or CountryChange. */
            alertType: string;
            /** @description Attempts made so far, over every resend. */
            attemptCount: number;
            /** @description When the event happened (RFC 3339 UTC); sent as X-Event-Timestamp. */
            createdAt: string;
            /** @description When a 2xx was received (RFC 3339 UTC); empty when not delivered. */
            deliveredAt: string;
            /** @description ICCID of the eSIM the event is about. */
            iccid: string;
            /** @description Event id; also sent as the X-Event-Id header of every attempt. */
            id: string;
            /** @description HTTP status of the last attempt; 0 when none was received. */
            lastStatusCode: number;
            /** @description When the next attempt is due (RFC 3339 UTC); empty unless pending. */
            nextAttemptAt: string;
            /**
             * @description pending (waiting for its next attempt), delivering (an attempt is under way), delivered (a 2xx was received), failed (the retry schedule ran out), undeliverable (no callback URL was configured).
             * @enum {string}
             */
            status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'undeliverable';
            /** @description Last change of the delivery state (RFC 3339 UTC). */
            updatedAt: string;
          };
        };
      };
      /** @description No callback URL is configured for the organisation. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The callback is already queued or being delivered. Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCatalogue: {
    parameters: {
      query?: {
        /** @description Comma-separated ISO 3166-1 alpha-2 codes (e.g. FR,DE): bundles with at least one of them as a base country. An unknown code is a 400. */
        countries?: string;
        /** @description Case-insensitive search on description. `*` matches any run of characters and then the pattern must match the whole description ("eSIM, 1GB*France*"); without `*` the text matches anywhere ("france"). */
        description?: string;
        /** @description Ordering direction. Ties are always broken by name, ascending. */
        direction?: 'asc' | 'desc';
        /** @description Search on the bundle name (the field filterBy names), as description searches its text: case-insensitive, `*` matches any run and then the whole name ("*_7D_FR_V2"), else the text matches anywhere ("_FR_"). */
        filter?: string;
        /** @description The field filter searches: bundleName, the only one. */
        filterBy?: 'bundleName';
        /** @description Only bundles of this group (exact, case-sensitive), e.g. Standard eSIM Bundles. */
        group?: string;
        /** @description Field to order by (bundleName, the live v2.1 spelling, is name). Unlimited bundles order by their dataAmount of -1. */
        orderBy?: 'name' | 'duration' | 'dataAmount' | 'price' | 'bundleName';
        /** @description Page to return, a whole number from 1. A page past the end returns []. */
        page?: string;
        /** @description Bundles per page, 1 to 5000 (default 50). */
        perPage?: number;
        /** @description Bundles with a base country in this region, case-insensitive: Africa, Americas, Asia, Europe, Oceania, Antarctic. */
        region?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of bundles. */
      200: {
        headers: {
          /** @description RFC 8288 links to the next, prev, first and last pages, keeping the other query parameters. */
          Link?: string;
          /** @description Number of bundles matching the filters, over all pages. */
          'X-Total-Count'?: number;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "name": "esim_2GB_10D_FR_V2",
           *         "description": "eSIM, 2GB, 10 Days, France, V2",
           *         "groups": [
           *           "Promo"
           *         ],
           *         "countries": [
           *           {
           *             "name": "France",
           *             "region": "Europe",
           *             "iso": "FR"
           *           }
           *         ],
           *         "dataAmount": 2000,
           *         "duration": 10,
           *         "speed": [
           *           "4G",
           *           "5G"
           *         ],
           *         "autostart": true,
           *         "unlimited": false,
           *         "roamingEnabled": [],
           *         "price": 107,
           *         "billingType": "FixedCost"
           *       },
           *       {
           *         "name": "esim_1GB_7D_FR_V2",
           *         "description": "eSIM, 1GB, 7 Days, France, V2",
           *         "groups": [
           *           "Standard eSIM Bundles"
           *         ],
           *         "countries": [
           *           {
           *             "name": "France",
           *             "region": "Europe",
           *             "iso": "FR"
           *           }
           *         ],
           *         "dataAmount": 1000,
           *         "duration": 7,
           *         "speed": [
           *           "4G",
           *           "5G"
           *         ],
           *         "autostart": true,
           *         "unlimited": false,
           *         "roamingEnabled": [],
           *         "price": 134,
           *         "billingType": "FixedCost"
           *       }
           *     ]
           */
          'application/json': {
            /** @description Whether the bundle starts by itself on first use in a covered country. */
            autostart: boolean;
            /** @description How the bundle is charged, as the live service names it: FixedCost (the price is paid once, when ordered) for every bundle here. */
            billingType: string;
            /** @description Base countries. */
            countries: components['schemas']['Country'][];
            /** @description Data included, in decimal megabytes (1 GB = 1000 MB); -1 when unlimited. */
            dataAmount: number;
            /** @description Human-readable summary, e.g. "eSIM, 1GB, 7 Days, France, V2". */
            description: string;
            /** @description Validity after activation, in days. */
            duration: number;
            /** @description Bundle groups the bundle belongs to. */
            groups: string[];
            /** @description Bundle name, case-sensitive; used to place orders. Convention esim_<size>GB_<days>D_<ISO2 or region>_V2. */
            name: string;
            /** @description Price per bundle in minor units of the organisation currency (cents for USD). */
            price: number;
            /** @description Further countries where the bundle can be used besides its base countries. */
            roamingEnabled: components['schemas']['Country'][];
            /** @description Network generations available: 2G, 3G, 4G, 5G. */
            speed: ('2G' | '3G' | '4G' | '5G')[];
            /** @description Whether data is unlimited (then dataAmount is -1). */
            unlimited: boolean;
          }[];
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCatalogueBundle: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description Bundle name as in the catalogue, case-sensitive, e.g. esim_1GB_7D_GB_V2.
         * @example esim_1GB_7D_FR_V2
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The bundle. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "name": "esim_2GB_10D_FR_V2",
           *       "description": "eSIM, 2GB, 10 Days, France, V2",
           *       "groups": [
           *         "Promo"
           *       ],
           *       "countries": [
           *         {
           *           "name": "France",
           *           "region": "Europe",
           *           "iso": "FR"
           *         }
           *       ],
           *       "dataAmount": 2000,
           *       "duration": 10,
           *       "speed": [
           *         "4G",
           *         "5G"
           *       ],
           *       "autostart": true,
           *       "unlimited": false,
           *       "roamingEnabled": [],
           *       "price": 107,
           *       "billingType": "FixedCost"
           *     }
           */
          'application/json': {
            /** @description Whether the bundle starts by itself on first use in a covered country. */
            autostart: boolean;
            /** @description How the bundle is charged, as the live service names it: FixedCost (the price is paid once, when ordered) for every bundle here. */
            billingType: string;
            /** @description Base countries. */
            countries: components['schemas']['Country'][];
            /** @description Data included, in decimal megabytes (1 GB = 1000 MB); -1 when unlimited. */
            dataAmount: number;
            /** @description Human-readable summary, e.g. "eSIM, 1GB, 7 Days, France, V2". */
            description: string;
            /** @description Validity after activation, in days. */
            duration: number;
            /** @description Bundle groups the bundle belongs to. */
            groups: string[];
            /** @description Bundle name, case-sensitive; used to place orders. Convention esim_<size>GB_<days>D_<ISO2 or region>_V2. */
            name: string;
            /** @description Price per bundle in minor units of the organisation currency (cents for USD). */
            price: number;
            /** @description Further countries where the bundle can be used besides its base countries. */
            roamingEnabled: components['schemas']['Country'][];
            /** @description Network generations available: 2G, 3G, 4G, 5G. */
            speed: ('2G' | '3G' | '4G' | '5G')[];
            /** @description Whether data is unlimited (then dataAmount is -1). */
            unlimited: boolean;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listEsims: {
    parameters: {
      query?: {
        /** @description asc: oldest first (default); desc: newest first. */
        direction?: 'asc' | 'desc';
        /** @description Page to return, a whole number from 1. A page past the end is empty. */
        page?: string;
        /** @description eSIMs per page, 1 to 500 (default 50). */
        perPage?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of the organisation eSIMs. */
      200: {
        headers: {
          /** @description RFC 8288 links to the next, prev, first and last pages, keeping the other query parameters. */
          Link?: string;
          /** @description Number of eSIMs over all pages. */
          'X-Total-Count'?: number;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "esims": [
           *         {
           *           "iccid": "8904862156008465066",
           *           "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *           "smdpAddress": "smdp.esim-bundle.example",
           *           "profileStatus": "Released",
           *           "pin": "8442",
           *           "puk": "68139680",
           *           "firstInstalledDateTime": "",
           *           "customerRef": "customer-4711",
           *           "lastAction": "eSIM Updated",
           *           "actionDate": "2026-11-23T17:55:18.692Z",
           *           "physical": false,
           *           "assignedDate": "2026-11-23T17:55:18.595Z",
           *           "msisdn": "",
           *           "createDate": "2026-11-23T17:55:18.594Z"
           *         }
           *       ],
           *       "pageCount": 1,
           *       "rows": 1,
           *       "pageSize": 50
           *     }
           */
          'application/json': {
            esims: {
              /** @description When lastAction happened, RFC 3339 UTC; empty when none. */
              actionDate: string;
              /** @description When a bundle was first assigned to the eSIM, RFC 3339 UTC; empty when never. */
              assignedDate: string;
              /** @description When the eSIM was issued, RFC 3339 UTC. */
              createDate: string;
              /** @description The organisation’s own reference for the eSIM, set with PUT /esims; empty when unset. */
              customerRef: string;
              /** @description When the profile was first installed, RFC 3339 UTC; empty when never. */
              firstInstalledDateTime: string;
              /** @description ICCID, 19 digits. */
              iccid: string;
              /** @description Newest entry of the eSIM history, e.g. Bundle Applied, eSIM Updated, eSIM Refreshed; empty when none. */
              lastAction: string;
              /** @description Matching ID of the profile, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
              matchingId: string;
              /** @description Phone number (E.164 digits); empty when none. */
              msisdn: string;
              /** @description Whether this is a physical SIM: always false here. */
              physical: boolean;
              /** @description PIN, 4 digits. */
              pin: string;
              /** @description Released (not yet installed), Downloaded, Installed or Unavailable (deleted from the device). */
              profileStatus: string;
              /** @description PUK, 8 digits. */
              puk: string;
              /** @description SM-DP+ address the profile downloads from. */
              smdpAddress: string;
            }[];
            /** @description Number of pages at this perPage. */
            pageCount: number;
            /** @description perPage used. */
            pageSize: number;
            /** @description Number of eSIMs in total. */
            rows: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateEsims: {
    parameters: {
      query?: {
        /** @description The reference, for a request without a body. */
        customerRef?: string;
        /** @description The eSIM, for a request without a body. */
        iccid?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "iccid": "8966975007124231762",
         *       "customerRef": "fleet-7"
         *     }
         */
        'application/json': {
          /** @description The reference, up to 255 characters; empty clears it. */
          customerRef: string;
          /** @description The eSIM. ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404. */
          iccid: string;
        };
      };
    };
    responses: {
      /** @description The reference is stored. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "success",
           *       "iccid": "8904862156008465066",
           *       "customerRef": "customer-4711"
           *     }
           */
          'application/json': {
            /** @description The reference now stored. */
            customerRef: string;
            iccid: string;
            /** @description "success", as the live service answers. */
            status: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is larger than BODY_LIMIT_BYTES. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is not application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getEsim: {
    parameters: {
      query?: {
        /** @description Comma-separated extra fields to include: appleInstallUrl. Other names are ignored. */
        additionalFields?: string;
      };
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The eSIM profile. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *       "smdpAddress": "smdp.esim-bundle.example",
           *       "profileStatus": "Released",
           *       "pin": "8442",
           *       "puk": "68139680",
           *       "firstInstalledDateTime": "",
           *       "customerRef": "customer-4711",
           *       "lastAction": "eSIM Updated",
           *       "actionDate": "2026-11-23T17:55:18.692Z",
           *       "physical": false,
           *       "assignedDate": "2026-11-23T17:55:18.595Z",
           *       "appleInstallUrl": "https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24smdp.esim-bundle.example%24CX2M5-HKC2I-Z4ZY2-0EXZV"
           *     }
           */
          'application/json': {
            /** @description When lastAction happened, RFC 3339 UTC; empty when none. */
            actionDate: string;
            /** @description https://esimsetup.apple.com/esim_qrcode_provisioning?carddata= followed by the URL-encoded activation code LPA:1$<smdpAddress>$<matchingId>. */
            appleInstallUrl?: string;
            /** @description When a bundle was first assigned to the eSIM, RFC 3339 UTC; empty when never. */
            assignedDate: string;
            /** @description The organisation’s own reference for the eSIM, set with PUT /esims; empty when unset. */
            customerRef: string;
            /** @description When the profile was first installed, RFC 3339 UTC; empty when never. */
            firstInstalledDateTime: string;
            /** @description ICCID, 19 digits. */
            iccid: string;
            /** @description Newest entry of the eSIM history, e.g. Bundle Applied, eSIM Updated, eSIM Refreshed; empty when none. */
            lastAction: string;
            /** @description Matching ID of the profile, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
            matchingId: string;
            /** @description Whether this is a physical SIM: always false here. */
            physical: boolean;
            /** @description PIN, 4 digits. */
            pin: string;
            /** @description Released (not yet installed), Downloaded, Installed or Unavailable (deleted from the device). */
            profileStatus: string;
            /** @description PUK, 8 digits. */
            puk: string;
            /** @description SM-DP+ address the profile downloads from. */
            smdpAddress: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listEsimBundles: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every bundle ever assigned to the eSIM, with its assignments. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "bundles": [
           *         {
           *           "name": "esim_2GB_10D_FR_V2",
           *           "description": "eSIM, 2GB, 10 Days, France, V2",
           *           "assignments": [
           *             {
           *               "id": "93f19d68-69a0-425c-8e71-43d82db5c67c",
           *               "reference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *               "assignmentReference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *               "callTypeGroup": "data",
           *               "bundleState": "Queued",
           *               "initialQuantity": 2000000000,
           *               "remainingQuantity": 2000000000,
           *               "usedQuantity": 0,
           *               "unlimited": false,
           *               "assignmentDateTime": "2026-11-23T17:55:18.595Z",
           *               "startTime": "",
           *               "endTime": "",
           *               "validUntil": "2027-11-23T17:55:18.595Z"
           *             },
           *             {
           *               "id": "55ce68c6-5619-4bc3-8de0-c511f357066b",
           *               "reference": "ea683dd7-ba42-4c6f-8dbf-1e08d2aacca6",
           *               "assignmentReference": "ea683dd7-ba42-4c6f-8dbf-1e08d2aacca6",
           *               "callTypeGroup": "data",
           *               "bundleState": "Queued",
           *               "initialQuantity": 2000000000,
           *               "remainingQuantity": 2000000000,
           *               "usedQuantity": 0,
           *               "unlimited": false,
           *               "assignmentDateTime": "2026-11-23T17:55:18.679Z",
           *               "startTime": "",
           *               "endTime": "",
           *               "validUntil": "2027-11-23T17:55:18.679Z"
           *             }
           *           ]
           *         }
           *       ]
           *     }
           */
          'application/json': {
            bundles: {
              /** @description In the order they were assigned. */
              assignments: {
                /** @description When it was assigned, RFC 3339 UTC. */
                assignmentDateTime: string;
                /** @description Live field name of the same reference (the order or apply reference); usable with the install-data routes. */
                assignmentReference: string;
                /** @description Processing, Queued, Active, Depleted, Expired or Revoked. */
                bundleState: string;
                /** @description What the assignment carries, as the live service names it: data. */
                callTypeGroup: string;
                /** @description When it expires (start + duration), RFC 3339 UTC; empty until it starts. */
                endTime: string;
                /** @description Id of the assignment (used to revoke it). */
                id: string;
                /** @description Data at the start, bytes; -1 when unlimited. */
                initialQuantity: number;
                /** @description The order or apply reference that created it. */
                reference: string;
                /** @description Data left, bytes; -1 when unlimited. */
                remainingQuantity: number;
                /** @description When it became Active (first use), RFC 3339 UTC; empty until then. */
                startTime: string;
                unlimited: boolean;
                /** @description Data used so far, bytes. */
                usedQuantity: number;
                /** @description An assignment that has not started by then expires unused, RFC 3339 UTC. */
                validUntil: string;
              }[];
              description: string;
              /** @description Bundle name (case-sensitive), as in the catalogue. */
              name: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getEsimBundle: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
        /**
         * @description Bundle name as in the catalogue (case-sensitive).
         * @example esim_1GB_7D_FR_V2
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The bundle on this eSIM, with its assignments. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "name": "esim_2GB_10D_FR_V2",
           *       "description": "eSIM, 2GB, 10 Days, France, V2",
           *       "assignments": [
           *         {
           *           "id": "93f19d68-69a0-425c-8e71-43d82db5c67c",
           *           "reference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *           "assignmentReference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *           "callTypeGroup": "data",
           *           "bundleState": "Queued",
           *           "initialQuantity": 2000000000,
           *           "remainingQuantity": 2000000000,
           *           "usedQuantity": 0,
           *           "unlimited": false,
           *           "assignmentDateTime": "2026-11-23T17:55:18.595Z",
           *           "startTime": "",
           *           "endTime": "",
           *           "validUntil": "2027-11-23T17:55:18.595Z"
           *         },
           *         {
           *           "id": "55ce68c6-5619-4bc3-8de0-c511f357066b",
           *           "reference": "ea683dd7-ba42-4c6f-8dbf-1e08d2aacca6",
           *           "assignmentReference": "ea683dd7-ba42-4c6f-8dbf-1e08d2aacca6",
           *           "callTypeGroup": "data",
           *           "bundleState": "Queued",
           *           "initialQuantity": 2000000000,
           *           "remainingQuantity": 2000000000,
           *           "usedQuantity": 0,
           *           "unlimited": false,
           *           "assignmentDateTime": "2026-11-23T17:55:18.679Z",
           *           "startTime": "",
           *           "endTime": "",
           *           "validUntil": "2027-11-23T17:55:18.679Z"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            /** @description In the order they were assigned. */
            assignments: {
              /** @description When it was assigned, RFC 3339 UTC. */
              assignmentDateTime: string;
              /** @description Live field name of the same reference (the order or apply reference); usable with the install-data routes. */
              assignmentReference: string;
              /** @description Processing, Queued, Active, Depleted, Expired or Revoked. */
              bundleState: string;
              /** @description What the assignment carries, as the live service names it: data. */
              callTypeGroup: string;
              /** @description When it expires (start + duration), RFC 3339 UTC; empty until it starts. */
              endTime: string;
              /** @description Id of the assignment (used to revoke it). */
              id: string;
              /** @description Data at the start, bytes; -1 when unlimited. */
              initialQuantity: number;
              /** @description The order or apply reference that created it. */
              reference: string;
              /** @description Data left, bytes; -1 when unlimited. */
              remainingQuantity: number;
              /** @description When it became Active (first use), RFC 3339 UTC; empty until then. */
              startTime: string;
              unlimited: boolean;
              /** @description Data used so far, bytes. */
              usedQuantity: number;
              /** @description An assignment that has not started by then expires unused, RFC 3339 UTC. */
              validUntil: string;
            }[];
            description: string;
            /** @description Bundle name (case-sensitive), as in the catalogue. */
            name: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeBundleByName: {
    parameters: {
      query?: {
        /** @description validate: report what the revoke would do and change nothing. transaction (default): revoke. */
        type?: 'validate' | 'transaction';
      };
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
        /**
         * @description Bundle name as in the catalogue (case-sensitive).
         * @example esim_1GB_7D_FR_V2
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What the revoke did (transaction) or would do (validate). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "revoked",
           *       "assignmentId": "55ce68c6-5619-4bc3-8de0-c511f357066b",
           *       "bundle": "esim_2GB_10D_FR_V2",
           *       "previousState": "Queued",
           *       "bundleState": "Revoked",
           *       "refundToInventory": true
           *     }
           */
          'application/json': {
            assignmentId: string;
            /** @description Bundle name. */
            bundle: string;
            /** @description State after the call: unchanged for validate, Revoked for transaction. */
            bundleState: string;
            /** @description State before the revoke. */
            previousState: string;
            /** @description True when the assignment was unused (Processing or Queued): the unit goes back to inventory. An Active assignment is revoked without refund. */
            refundToInventory: boolean;
            /** @description validated (type=validate: nothing changed) or revoked (type=transaction). */
            status: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeApplication: {
    parameters: {
      query?: {
        /** @description validate: report what the revoke would do and change nothing. transaction (default): revoke. */
        type?: 'validate' | 'transaction';
      };
      header?: never;
      path: {
        /**
         * @description Id of the assignment, as in GET /esims/{iccid}/bundles and usage callbacks.
         * @example 00000000-0003-76c1-a036-e27c14aa0f17
         */
        assignmentId: string;
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
        /**
         * @description Bundle name as in the catalogue (case-sensitive).
         * @example esim_1GB_7D_FR_V2
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The assignment was revoked (transaction) or what a revoke would do (validate). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "validated",
           *       "assignmentId": "55ce68c6-5619-4bc3-8de0-c511f357066b",
           *       "bundle": "esim_2GB_10D_FR_V2",
           *       "previousState": "Queued",
           *       "bundleState": "Queued",
           *       "refundToInventory": true
           *     }
           */
          'application/json': {
            assignmentId: string;
            /** @description Bundle name. */
            bundle: string;
            /** @description State after the call: unchanged for validate, Revoked for transaction. */
            bundleState: string;
            /** @description State before the revoke. */
            previousState: string;
            /** @description True when the assignment was unused (Processing or Queued): the unit goes back to inventory. An Active assignment is revoked without refund. */
            refundToInventory: boolean;
            /** @description validated (type=validate: nothing changed) or revoked (type=transaction). */
            status: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeAssignment: {
    parameters: {
      query?: {
        /** @description validate: report what the revoke would do and change nothing. transaction (default): revoke. */
        type?: 'validate' | 'transaction';
      };
      header?: never;
      path: {
        /**
         * @description Id of the assignment, as in GET /esims/{iccid}/bundles and usage callbacks.
         * @example 00000000-0002-773c-be45-c3fcd7fcd027
         */
        assignmentId: string;
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
        /**
         * @description Bundle name as in the catalogue (case-sensitive).
         * @example esim_1GB_7D_FR_V2
         */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The assignment was revoked (transaction) or what a revoke would do (validate). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "revoked",
           *       "assignmentId": "93f19d68-69a0-425c-8e71-43d82db5c67c",
           *       "bundle": "esim_2GB_10D_FR_V2",
           *       "previousState": "Active",
           *       "bundleState": "Revoked",
           *       "refundToInventory": false
           *     }
           */
          'application/json': {
            assignmentId: string;
            /** @description Bundle name. */
            bundle: string;
            /** @description State after the call: unchanged for validate, Revoked for transaction. */
            bundleState: string;
            /** @description State before the revoke. */
            previousState: string;
            /** @description True when the assignment was unused (Processing or Queued): the unit goes back to inventory. An Active assignment is revoked without refund. */
            refundToInventory: boolean;
            /** @description validated (type=validate: nothing changed) or revoked (type=transaction). */
            status: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getEsimHistory: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description History entries, newest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "name": "eSIM Updated",
           *         "bundle": "esim_2GB_10D_FR_V2",
           *         "date": "2026-11-23T17:55:18.692Z",
           *         "bundleState": "Queued",
           *         "alertType": ""
           *       },
           *       {
           *         "name": "Bundle Queued",
           *         "bundle": "esim_2GB_10D_FR_V2",
           *         "date": "2026-11-23T17:55:18.682Z",
           *         "bundleState": "Queued",
           *         "alertType": ""
           *       }
           *     ]
           */
          'application/json': {
            /** @description For alerts, the callback alert type (e.g. Utilisation); empty otherwise. */
            alertType: string;
            /** @description Bundle name the event concerns; empty when none. */
            bundle: string;
            /** @description State of that bundle assignment after the event: Processing, Queued, Active, Depleted, Expired or Revoked; empty for an eSIM event with no bundle. */
            bundleState: string;
            /** @description When it happened, RFC 3339 UTC. */
            date: string;
            /** @description The event: Bundle Applied, Bundle Queued, Bundle Activated, Bundle Depleted, Bundle Expired, Bundle Revoked, eSIM Downloaded, eSIM Installed, eSIM Deleted, Utilisation Alert, eSIM Updated (PUT /esims), eSIM Refreshed (GET /esims/{iccid}/refresh). */
            name: string;
          }[];
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getEsimLocation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Where the eSIM was last seen. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "mobileNetworkCode": "20819",
           *       "networkName": "Haute-Garonne numérique",
           *       "networkBrandName": "Haute-Garonne numérique",
           *       "country": "FR",
           *       "lastSeen": "2026-11-23T17:55:18.809Z"
           *     }
           */
          'application/json': {
            /** @description ISO 3166-1 alpha-2 code of the network country. */
            country: string;
            /** @description When the network last saw the eSIM (attach, or data use; refreshed at most once a minute), RFC 3339 UTC. */
            lastSeen: string;
            /** @description MCC followed by MNC, e.g. 23415. */
            mobileNetworkCode: string;
            /** @description Brand of the network, as the live service names the field (later versions); the same brand as networkName. */
            networkBrandName: string;
            /** @description Operator brand, e.g. Vodafone UK. */
            networkName: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  refreshEsim: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The refresh was sent to the network. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "Successfully refreshed SIM"
           *     }
           */
          'application/json': {
            /** @description "Successfully refreshed SIM". */
            status: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  sendSms: {
    parameters: {
      query?: never;
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path: {
        /**
         * @description ICCID of the eSIM: 19 digits starting 89 with a valid Luhn check digit. A malformed ICCID is a 400; an ICCID that is unknown or belongs to another organisation is a 404.
         * @example 8966975007124231762
         */
        iccid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "message": "Welcome to France: your data bundle is ready."
         *     }
         */
        'application/json': {
          /**
           * @description Sender shown on the device. Default eSIM, the only value accepted unless SMS_ALLOWED_SENDERS says otherwise.
           * @default eSIM
           */
          from?: string;
          /** @description The text, 1 to 160 characters (Unicode characters, not bytes), UTF-8. */
          message: string;
        };
      };
    };
    responses: {
      /** @description The SMS was accepted for delivery. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "message": "Message sent"
           *     }
           */
          'application/json': {
            /** @description Outcome, "Message sent". */
            message: string;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is larger than BODY_LIMIT_BYTES. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is not application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  applyBundle: {
    parameters: {
      query?: never;
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "iccid": "8966975007124231762",
         *       "name": "esim_1GB_7D_FR_V2"
         *     }
         */
        'application/json': {
          /** @description eSIM to apply to (the organisation must own it; otherwise 404). Omitted: a new eSIM is issued. */
          iccid?: string;
          /** @description Bundle name (case-sensitive). */
          name: string;
          /**
           * @description Units to apply to that eSIM, 1 to 100; they queue one after another.
           * @default 1
           */
          repeat?: number;
        };
      };
    };
    responses: {
      /** @description The bundle units were applied; one entry per unit. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "esims": [
           *         {
           *           "iccid": "8904862156008465066",
           *           "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *           "smdpAddress": "smdp.esim-bundle.example",
           *           "status": "Successfully Assigned",
           *           "bundle": "esim_2GB_10D_FR_V2",
           *           "assignmentId": "55ce68c6-5619-4bc3-8de0-c511f357066b",
           *           "bundleState": "Queued"
           *         },
           *         {
           *           "iccid": "8904862156008465066",
           *           "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *           "smdpAddress": "smdp.esim-bundle.example",
           *           "status": "Successfully Assigned",
           *           "bundle": "esim_2GB_10D_FR_V2",
           *           "assignmentId": "b096a77f-d95d-40a0-8b53-737d688fbd9c",
           *           "bundleState": "Queued"
           *         }
           *       ],
           *       "applyReference": "ea683dd7-ba42-4c6f-8dbf-1e08d2aacca6"
           *     }
           */
          'application/json': {
            /** @description Reference of this apply (a UUID). */
            applyReference: string;
            /** @description One entry per unit applied. */
            esims: {
              /** @description Id of the assignment (for revoking it). */
              assignmentId: string;
              /** @description Bundle name. */
              bundle: string;
              /** @description State right after applying. */
              bundleState: string;
              iccid: string;
              matchingId: string;
              smdpAddress: string;
              /** @description "Successfully Assigned". */
              status: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is larger than BODY_LIMIT_BYTES. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is not application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getInstallData: {
    parameters: {
      query: {
        /** @description csv (text/csv), zip (application/zip) or json (application/json). Default: from Accept, else csv. */
        format?: 'csv' | 'zip' | 'json';
        /**
         * @description An orderReference or applyReference.
         * @example 7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71
         */
        reference: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description text/csv; charset=utf-8 or application/zip, sent as an attachment; or application/json: the eSIM, or an array of them when the reference has several. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "iccid": "8904862156008465066",
           *       "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *       "smdpAddress": "smdp.esim-bundle.example",
           *       "profileStatus": "Released",
           *       "pin": "8442",
           *       "puk": "68139680",
           *       "firstInstalledDateTime": ""
           *     }
           */
          'application/json':
            | {
                /** @description When the profile was first installed, RFC 3339 UTC; empty when never. */
                firstInstalledDateTime: string;
                /** @description ICCID, 19 digits. */
                iccid: string;
                /** @description Matching ID of the profile, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
                matchingId: string;
                /** @description PIN, 4 digits. */
                pin: string;
                /** @description Released (not yet installed), Downloaded, Installed or Unavailable (deleted from the device). */
                profileStatus: string;
                /** @description PUK, 8 digits. */
                puk: string;
                /** @description SM-DP+ address the profile downloads from. */
                smdpAddress: string;
              }
            | {
                /** @description When the profile was first installed, RFC 3339 UTC; empty when never. */
                firstInstalledDateTime: string;
                /** @description ICCID, 19 digits. */
                iccid: string;
                /** @description Matching ID of the profile, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
                matchingId: string;
                /** @description PIN, 4 digits. */
                pin: string;
                /** @description Released (not yet installed), Downloaded, Installed or Unavailable (deleted from the device). */
                profileStatus: string;
                /** @description PUK, 8 digits. */
                puk: string;
                /** @description SM-DP+ address the profile downloads from. */
                smdpAddress: string;
              }[];
          'application/zip': string;
          'text/csv': string;
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
    };
  };
  getInstallCsv: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description An orderReference (order placed with assign=true) or an applyReference.
         * @example 7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71
         */
        reference: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description text/csv; charset=utf-8, sent as an attachment named esims-<reference>.csv. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/csv': string;
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description No such reference, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'text/csv': components['schemas']['Error'];
        };
      };
    };
  };
  getInstallQrCodes: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description An orderReference (order placed with assign=true) or an applyReference.
         * @example 7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71
         */
        reference: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description application/zip, sent as an attachment named esims-<reference>.zip. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': string;
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
        };
      };
      /** @description No such reference, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
          'application/zip': components['schemas']['Error'];
        };
      };
    };
  };
  getInventory: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The bundles in inventory, each with its purchase batches. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "bundles": [
           *         {
           *           "name": "esim_2GB_10D_FR_V2",
           *           "desc": "eSIM, 2GB, 10 Days, France, V2",
           *           "available": [
           *             {
           *               "id": 2,
           *               "total": 3,
           *               "remaining": 3,
           *               "expiry": "2027-11-23T17:55:18.640Z"
           *             }
           *           ],
           *           "countries": [
           *             "FR"
           *           ],
           *           "data": 2000,
           *           "duration": 10,
           *           "durationUnit": "day",
           *           "autostart": true,
           *           "unlimited": false,
           *           "speed": [
           *             "4G",
           *             "5G"
           *           ]
           *         }
           *       ]
           *     }
           */
          'application/json': {
            bundles: {
              autostart: boolean;
              /** @description Unexpired batches with units left, oldest first (applied in this order). */
              available: {
                /** @description When the unapplied units lapse, RFC 3339 UTC. */
                expiry: string;
                /** @description Purchase batch id (one batch per bundle per order). */
                id: number;
                /** @description Units not yet applied to an eSIM. */
                remaining: number;
                /** @description Units bought in this batch. */
                total: number;
              }[];
              /** @description ISO 3166-1 alpha-2 base countries. */
              countries: string[];
              /** @description Data per unit in decimal megabytes; -1 when unlimited. */
              data: number;
              /** @description Bundle description. */
              desc: string;
              /** @description Validity once started, in durationUnit. */
              duration: number;
              /** @description Always `day`. */
              durationUnit: string;
              /** @description Bundle name as in the catalogue. */
              name: string;
              /** @description Among 2G, 3G, 4G, 5G. */
              speed: string[];
              unlimited: boolean;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  refundInventory: {
    parameters: {
      query?: never;
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "usageId": 1,
         *       "quantity": 1
         *     }
         */
        'application/json': {
          /** @description Units to refund, at most the batch remaining. */
          quantity: number;
          /** @description Id of the inventory batch (available[].id in GET /inventory). */
          usageId: number;
        };
      };
    };
    responses: {
      /** @description The units left the inventory and their price went back to the organisation. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "Successfully refunded bundles to balance",
           *       "usageId": 2,
           *       "name": "esim_2GB_10D_FR_V2",
           *       "quantity": 1,
           *       "remaining": 2,
           *       "orderReference": "d90b6203-8552-4809-8ecb-d4b4fad0801f",
           *       "amount": 107,
           *       "refundedToBalance": 107,
           *       "refundedToTestCredit": 0,
           *       "balance": 1000679,
           *       "testCredit": 0
           *     }
           */
          'application/json': {
            /** @description Purchase price of the refunded units, minor units of the organisation currency. */
            amount: number;
            /** @description Balance after the refund, minor units. */
            balance: number;
            /** @description Bundle name. */
            name: string;
            /** @description The order the units were bought in. */
            orderReference: string;
            /** @description Units refunded. */
            quantity: number;
            /** @description Part of amount credited to the balance. */
            refundedToBalance: number;
            /** @description Part of amount credited back to test credit (the order paid it from test credit). Test credit that has expired since the order is not given back, so the two parts can sum to less than amount. */
            refundedToTestCredit: number;
            /** @description Unapplied units left in the batch. */
            remaining: number;
            /** @description "Successfully refunded bundles to balance", as the live service answers. */
            status: string;
            /** @description Test credit after the refund, minor units. */
            testCredit: number;
            /** @description The inventory batch refunded from. */
            usageId: number;
          };
        };
      };
      /** @description Bad field, quantity above what is left (insufficient_inventory), units lapsed (inventory_lapsed), refund window closed (refund_window_closed) or refunds turned off (refunds_disabled). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such usageId, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is larger than BODY_LIMIT_BYTES. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is not application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listNetworks: {
    parameters: {
      query?: {
        /**
         * @description Comma-separated country names (English, case-insensitive) or ISO codes.
         * @example FR
         */
        countries?: string;
        /** @description Comma-separated ISO 3166-1 alpha-2 codes. */
        isos?: string;
        /** @description true: every country with a known network. */
        returnAll?: boolean;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The networks, per country in the order asked for. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "countryNetworks": [
           *         {
           *           "name": "FR",
           *           "countryName": "France",
           *           "networks": [
           *             {
           *               "name": "Orange S.A.",
           *               "brandName": "Orange",
           *               "mcc": "208",
           *               "mnc": "01",
           *               "tagid": "",
           *               "speed": [
           *                 "2G",
           *                 "3G"
           *               ]
           *             },
           *             {
           *               "name": "Orange S.A.",
           *               "brandName": "Orange",
           *               "mcc": "208",
           *               "mnc": "02",
           *               "tagid": "",
           *               "speed": [
           *                 "2G",
           *                 "3G"
           *               ]
           *             }
           *           ]
           *         }
           *       ]
           *     }
           */
          'application/json': {
            countryNetworks: {
              /** @description Country name in English (an addition). */
              countryName: string;
              /** @description ISO 3166-1 alpha-2 code of the country. */
              name: string;
              networks: {
                /** @description Brand, e.g. O2 (UK); the networkName of a location. */
                brandName: string;
                /** @description Mobile country code, 3 digits. */
                mcc: string;
                /** @description Mobile network code, 2 or 3 digits. */
                mnc: string;
                /** @description Operating company, e.g. Telefónica Europe. */
                name: string;
                /** @description Network generations: 2G, 3G, 4G, 5G. */
                speed: string[];
                /** @description TADIG code; empty, as the operator data here has none. */
                tagid: string;
              }[];
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listOrders: {
    parameters: {
      query?: {
        /** @description Page to return, a whole number from 1. A page past the end returns []. */
        page?: string;
        /** @description Orders per page, 1 to 500 (default 50). */
        perPage?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of orders, newest first. */
      200: {
        headers: {
          /** @description RFC 8288 links to the next, prev, first and last pages, keeping the other query parameters. */
          Link?: string;
          /** @description Number of orders over all pages. */
          'X-Total-Count'?: number;
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "order": [
           *           {
           *             "type": "bundle",
           *             "item": "esim_2GB_10D_FR_V2",
           *             "quantity": 1,
           *             "subTotal": 107,
           *             "pricePerUnit": 107,
           *             "iccids": [
           *               "8904862156008465066"
           *             ],
           *             "esims": [
           *               {
           *                 "iccid": "8904862156008465066",
           *                 "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *                 "smdpAddress": "smdp.esim-bundle.example"
           *               }
           *             ]
           *           }
           *         ],
           *         "total": 107,
           *         "currency": "USD",
           *         "status": "completed",
           *         "statusMessage": "Order completed: 1 bundle assigned (1 new eSIM)",
           *         "orderReference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *         "createDate": "2026-11-23T17:55:18.593Z",
           *         "assign": true
           *       }
           *     ]
           */
          'application/json': {
            /** @description Extension field: whether the bundles were assigned to eSIMs. */
            assign: boolean;
            /** @description When the order was placed, RFC 3339 UTC. */
            createDate: string;
            /** @description ISO 4217 currency of every money field. */
            currency: string;
            /** @description The order lines, in request order. */
            order: {
              /** @description assign: true only. Activation details of those eSIMs, one per unit. */
              esims?: {
                /** @description ICCID: 19 digits, prefix 89, Luhn check digit. */
                iccid: string;
                /** @description Activation matching id, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
                matchingId: string;
                /** @description SM-DP+ host name of the activation code. */
                smdpAddress: string;
              }[];
              /** @description assign: true only. The eSIMs the units went onto, one per unit. */
              iccids?: string[];
              /** @description Bundle name as in the catalogue (case-sensitive). */
              item: string;
              /** @description Catalogue price when ordered, in minor units of the organisation currency. */
              pricePerUnit: number;
              /** @description Units of the bundle. */
              quantity: number;
              /** @description pricePerUnit x quantity, in minor units. */
              subTotal: number;
              /** @description Always `bundle`. */
              type: string;
            }[];
            /** @description UUID of the order; empty for type validate, which stores nothing. */
            orderReference: string;
            /** @description `completed` (type transaction) or `validated` (type validate). */
            status: string;
            /** @description Human-readable outcome. */
            statusMessage: string;
            /** @description Sum of the subTotals, in minor units. */
            total: number;
          }[];
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  placeOrder: {
    parameters: {
      query?: never;
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "transaction",
         *       "assign": false,
         *       "order": [
         *         {
         *           "type": "bundle",
         *           "item": "esim_1GB_7D_FR_V2",
         *           "quantity": 3
         *         }
         *       ]
         *     }
         */
        'application/json': {
          /**
           * @description `false`: the bundles go into inventory. `true`: each unit is assigned to an eSIM (the listed `iccids`, or new eSIMs), starting in state Processing.
           * @default false
           */
          assign?: boolean;
          /** @description Order lines, 1 to 50 (ORDER_MAX_LINES); at most 5000 units in all (ORDER_MAX_QUANTITY_PER_ORDER). */
          order: {
            /** @description Accepted for compatibility. Every eSIM of this service can take every bundle, so it changes nothing. */
            allowReassign?: boolean;
            /** @description assign: true only: eSIMs of the organisation to put the units on, exactly `quantity` of them. Without it, assign: true issues new eSIMs. */
            iccids?: string[];
            /** @description Bundle name from the catalogue (case-sensitive), e.g. esim_1GB_7D_GB_V2. */
            item: string;
            /** @description Units of the bundle, 1 to 1000 per line (ORDER_MAX_QUANTITY_PER_LINE). */
            quantity: number;
            /**
             * @description Line type; only `bundle`.
             * @enum {string}
             */
            type: 'bundle';
          }[];
          /**
           * @description `validate` checks everything (bundles, groups, quantities, ICCIDs, funds) and charges and stores nothing. `transaction` places the order, all or nothing.
           * @default transaction
           * @enum {string}
           */
          type?: 'validate' | 'transaction';
        };
      };
    };
    responses: {
      /** @description The order: placed (status completed) or only checked (status validated). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "order": [
           *         {
           *           "type": "bundle",
           *           "item": "esim_2GB_10D_FR_V2",
           *           "quantity": 1,
           *           "subTotal": 107,
           *           "pricePerUnit": 107,
           *           "iccids": [
           *             "8904862156008465066"
           *           ],
           *           "esims": [
           *             {
           *               "iccid": "8904862156008465066",
           *               "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *               "smdpAddress": "smdp.esim-bundle.example"
           *             }
           *           ]
           *         }
           *       ],
           *       "total": 107,
           *       "currency": "USD",
           *       "status": "completed",
           *       "statusMessage": "Order completed: 1 bundle assigned (1 new eSIM)",
           *       "orderReference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *       "createDate": "2026-11-23T17:55:18.593Z",
           *       "assign": true
           *     }
           */
          'application/json': {
            /** @description Extension field: whether the bundles were assigned to eSIMs. */
            assign: boolean;
            /** @description When the order was placed, RFC 3339 UTC. */
            createDate: string;
            /** @description ISO 4217 currency of every money field. */
            currency: string;
            /** @description The order lines, in request order. */
            order: {
              /** @description assign: true only. Activation details of those eSIMs, one per unit. */
              esims?: {
                /** @description ICCID: 19 digits, prefix 89, Luhn check digit. */
                iccid: string;
                /** @description Activation matching id, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
                matchingId: string;
                /** @description SM-DP+ host name of the activation code. */
                smdpAddress: string;
              }[];
              /** @description assign: true only. The eSIMs the units went onto, one per unit. */
              iccids?: string[];
              /** @description Bundle name as in the catalogue (case-sensitive). */
              item: string;
              /** @description Catalogue price when ordered, in minor units of the organisation currency. */
              pricePerUnit: number;
              /** @description Units of the bundle. */
              quantity: number;
              /** @description pricePerUnit x quantity, in minor units. */
              subTotal: number;
              /** @description Always `bundle`. */
              type: string;
            }[];
            /** @description UUID of the order; empty for type validate, which stores nothing. */
            orderReference: string;
            /** @description `completed` (type transaction) or `validated` (type validate). */
            status: string;
            /** @description Human-readable outcome. */
            statusMessage: string;
            /** @description Sum of the subTotals, in minor units. */
            total: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is larger than BODY_LIMIT_BYTES. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request body is not application/json. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOrder: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The orderReference returned when the order was placed.
         * @example 7c9e2f14-3b6a-4d85-a1f0-5e8d9c2b4a71
         */
        orderReference: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The order with its lines, total and, for assigned orders, its eSIMs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "order": [
           *         {
           *           "type": "bundle",
           *           "item": "esim_2GB_10D_FR_V2",
           *           "quantity": 1,
           *           "subTotal": 107,
           *           "pricePerUnit": 107,
           *           "iccids": [
           *             "8904862156008465066"
           *           ],
           *           "esims": [
           *             {
           *               "iccid": "8904862156008465066",
           *               "matchingId": "CX2M5-HKC2I-Z4ZY2-0EXZV",
           *               "smdpAddress": "smdp.esim-bundle.example"
           *             }
           *           ]
           *         }
           *       ],
           *       "total": 107,
           *       "currency": "USD",
           *       "status": "completed",
           *       "statusMessage": "Order completed: 1 bundle assigned (1 new eSIM)",
           *       "orderReference": "ae7b66cc-b900-429b-a921-9452a371ed07",
           *       "createDate": "2026-11-23T17:55:18.593Z",
           *       "assign": true
           *     }
           */
          'application/json': {
            /** @description Extension field: whether the bundles were assigned to eSIMs. */
            assign: boolean;
            /** @description When the order was placed, RFC 3339 UTC. */
            createDate: string;
            /** @description ISO 4217 currency of every money field. */
            currency: string;
            /** @description The order lines, in request order. */
            order: {
              /** @description assign: true only. Activation details of those eSIMs, one per unit. */
              esims?: {
                /** @description ICCID: 19 digits, prefix 89, Luhn check digit. */
                iccid: string;
                /** @description Activation matching id, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
                matchingId: string;
                /** @description SM-DP+ host name of the activation code. */
                smdpAddress: string;
              }[];
              /** @description assign: true only. The eSIMs the units went onto, one per unit. */
              iccids?: string[];
              /** @description Bundle name as in the catalogue (case-sensitive). */
              item: string;
              /** @description Catalogue price when ordered, in minor units of the organisation currency. */
              pricePerUnit: number;
              /** @description Units of the bundle. */
              quantity: number;
              /** @description pricePerUnit x quantity, in minor units. */
              subTotal: number;
              /** @description Always `bundle`. */
              type: string;
            }[];
            /** @description UUID of the order; empty for type validate, which stores nothing. */
            orderReference: string;
            /** @description `completed` (type transaction) or `validated` (type validate). */
            status: string;
            /** @description Human-readable outcome. */
            statusMessage: string;
            /** @description Sum of the subTotals, in minor units. */
            total: number;
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource, or it belongs to another organisation. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOrganisation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The caller organisation, in the `organisations` array, with its users. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "organisations": [
           *         {
           *           "name": "Acme Travel",
           *           "apiKey": "esim_EXAMPLE-KEY-NOT-A-REAL-ONE",
           *           "taxLiable": "Yes",
           *           "addr1": "",
           *           "addr2": "",
           *           "city": "",
           *           "country": "",
           *           "postcode": "",
           *           "callbackUrl": "https://acme.example/esim-callbacks",
           *           "callbackVersion": "V3",
           *           "notes": "",
           *           "groups": [
           *             "Standard eSIM Bundles",
           *             "Standard Unlimited Lite"
           *           ],
           *           "currency": "USD",
           *           "balance": 1000000,
           *           "testCredit": 0,
           *           "testCreditExpiry": "",
           *           "businessType": "Other",
           *           "website": "",
           *           "productDescription": "",
           *           "users": []
           *         }
           *       ]
           *     }
           */
          'application/json': {
            organisations: {
              addr1: string;
              addr2: string;
              /** @description The organisation API key (secret). Also the HMAC key of V3 callbacks. */
              apiKey: string;
              /** @description Prepaid balance in minor units (cents for USD). */
              balance: number;
              /** @description Travel, IoT, Enterprise, Reseller, MVNO or Other. */
              businessType: string;
              /** @description Where usage callbacks are sent; empty when none. */
              callbackUrl: string;
              /** @description V2 (default, unsigned) or V3 (signed). Extension field. */
              callbackVersion: string;
              city: string;
              /** @description ISO 3166-1 alpha-2 code, or empty. */
              country: string;
              /** @description ISO 4217 currency of every money field. */
              currency: string;
              /** @description Bundle groups the organisation may order from. */
              groups: string[];
              name: string;
              notes: string;
              postcode: string;
              productDescription: string;
              /** @description Yes, No or ReverseCharge. */
              taxLiable: string;
              /** @description Test credit in minor units, spent before balance while unexpired. */
              testCredit: number;
              /** @description RFC 3339 UTC, or empty when there is no test credit. */
              testCreditExpiry: string;
              users: {
                emailAddress: string;
                firstName: string;
                lastName: string;
                phoneNumber: string;
                /** @description Admin, Finance, Developer, Support or Viewer. */
                role: string;
                /** @description IANA time zone, e.g. Europe/London. */
                timeZone: string;
              }[];
              website: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The stored API key cannot be read with this server's MASTER_KEY and the key presented is not the current one (a key in its grace period reads itself): rotate the key. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  topUpBalance: {
    parameters: {
      query: {
        /**
         * @description Amount to charge, a string carrying a whole number of minor units of the organisation currency (cents for USD), 500 to 1000000 (TOPUP_MIN, TOPUP_MAX).
         * @example 5000
         */
        amount: string;
      };
      header?: {
        /** @description Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a repeat with the same key and request. The same key with a different request, or while the first request is still running, is a 409. */
        'idempotency-key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The card was charged and the balance credited. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "amount": 1000,
           *       "balance": 1001000,
           *       "ref": 1
           *     }
           */
          'application/json': {
            /** @description Amount charged and credited, in minor units. */
            amount: number;
            /** @description Balance after the top-up, in minor units. */
            balance: number;
            /** @description Unique reference of this top-up. */
            ref: number;
          };
        };
      };
      /** @description Bad amount (code invalid_amount), no saved card (no_card), or the card was declined (card_declined, insufficient_funds). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Idempotency-Key reused with a different request (code idempotency_key_reused), or the first request with this key is still running (code idempotency_in_progress; retry later). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The payment processor is unavailable or did not answer in time; see Retry-After. The balance is unchanged. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listOrganisationGroups: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The groups of the caller organisation. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "groups": [
           *         {
           *           "name": "Standard eSIM Bundles",
           *           "desc": "1345 bundles",
           *           "bundleCount": 1345
           *         },
           *         {
           *           "name": "Standard Unlimited Lite",
           *           "desc": "445 bundles",
           *           "bundleCount": 445
           *         }
           *       ]
           *     }
           */
          'application/json': {
            groups: {
              /** @description Catalogue bundles in the group now. */
              bundleCount: number;
              /** @description What the group holds, e.g. "412 bundles". */
              desc: string;
              /** @description Group name, as used by the group filter of GET /catalogue (exact). */
              name: string;
            }[];
          };
        };
      };
      /** @description Bad request: the message names the offending field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid API key. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected error; no internals are exposed. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
