import type { FastifyRequest } from 'fastify';

// What a version turns on of the behaviours the shared routes offer, as a typed set: a route
// asks `can(request, 'asyncOrders')`, and a name that is not a capability does not compile.

export const CAPABILITIES = [
  /** More than five bundles in an order or apply are placed in the background (503 meanwhile). */
  'asyncOrders',
  /** Filter operators (eq, lt, lte, gt, gte) on list parameters; eSIM list filters. */
  'filterOperators',
  /** An apply is recorded as an order of bundleAssignment lines. */
  'applyRecordsOrder',
  /** Install data of several references, a JSON list, the CSV in the ZIP, additionalFields. */
  'installDataLists',
  /** Install data answers JSON when the client does not ask for a format. */
  'installDataJsonByDefault',
  /** An eSIM's bundle list keeps the newest `limit` unfinished assignments (includeUsed: all). */
  'assignmentWindow',
  /** A revoke by bundle name may refund to the balance (refundToBalance, offerId). */
  'refundToBalanceByName',
  /** A revoke by assignment id may refund to the balance (refundToBalance). */
  'refundToBalanceByAssignment',
  /** Rate limits per client address (10 requests a second), http/rate-limit.ts. */
  'rateLimitByAddress',
  /** additionalFields takes androidInstallUrl and installUrl beside appleInstallUrl. */
  'androidInstallUrl',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

export type Capabilities = ReadonlySet<Capability>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The capabilities of the version whose scope the route is registered in. */
    capabilities?: Capabilities;
  }
}

/** Whether the version serving this request turns the capability on. */
export function can(request: FastifyRequest, capability: Capability): boolean {
  return request.routeOptions.config.capabilities?.has(capability) === true;
}
