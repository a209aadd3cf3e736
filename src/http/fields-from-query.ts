import type { FastifyRequest } from 'fastify';

// A route that also takes its body's fields from the query string (PUT /esims without a body,
// as the live documentation shows it) moves them into the body before validation, so that one
// schema checks both forms. The request is marked, so that a refusal names a query parameter,
// not a body field the caller never sent.

const requests = new WeakSet<FastifyRequest>();

/** Makes `fields` the request's body and remembers that they came from its query string. */
export function bodyFromQuery(request: FastifyRequest, fields: Record<string, unknown>): void {
  requests.add(request);
  Object.assign(request, { body: fields });
}

/** How a refusal names a field of the body: as a query parameter when it came from the query. */
export function bodyFieldName(request: FastifyRequest): string {
  return requests.has(request) ? 'query parameter' : 'body field';
}
