// The operations the live service documents for each later version (method and path below the
// version prefix), from the reference of its documents (docs/versions.md). A served operation
// not listed is marked `x-extension` in that version's document.

const V2_1_LIVE = [
  'GET /organisation',
  'POST /organisation/balance',
  'GET /organisation/groups',
  'GET /catalogue',
  'GET /catalogue/bundle/{name}',
  'GET /networks',
  'POST /orders',
  'GET /orders',
  'GET /orders/{orderReference}',
  'GET /inventory',
  'POST /inventory/refund',
  'GET /esims',
  'PUT /esims',
  'POST /esims/apply',
  'GET /esims/{iccid}',
  'GET /esims/{iccid}/history',
  'GET /esims/{iccid}/refresh',
  'GET /esims/{iccid}/location',
  'POST /esims/{iccid}/sms',
  'GET /esims/{iccid}/bundles',
  'POST /esims/{iccid}/bundles',
  'GET /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}',
  'DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}',
  'GET /esims/qr/{reference}',
  'GET /esims/csv/{reference}',
];

const V2_2_LIVE = [
  ...V2_1_LIVE,
  'GET /esims/assignments',
  'DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}',
  'GET /esims/{iccid}/compatible/{bundle}',
];

const V2_3_LIVE = [...V2_2_LIVE, 'GET /'];

// spec24's 26 operations and the three deprecated ones of the v2.4 navigation; `GET /` is in the
// v2.3 and v2.4 navigation.
const V2_4_LIVE = V2_3_LIVE;

// spec25's 32 operations, and the suspension state read of the migration guide.
const V2_5_LIVE = [
  ...V2_4_LIVE.filter((op) => op !== 'GET /'),
  'DELETE /esims/{iccid}',
  'POST /esims/{iccid}/suspend',
  'GET /esims/{iccid}/suspend',
  'GET /catalogue/prices',
];

export const LIVE_OPERATIONS_BY_VERSION: Readonly<Record<string, ReadonlySet<string>>> = {
  '2.2': new Set(V2_2_LIVE),
  '2.3': new Set(V2_3_LIVE),
  '2.4': new Set(V2_4_LIVE),
  '2.5': new Set(V2_5_LIVE),
};
