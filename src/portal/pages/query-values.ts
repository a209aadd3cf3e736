import type { FastifyRequest } from 'fastify';

// Query-string values of the portal's GET forms as plain trimmed text: a repeated or missing value
// reads as '' and an overlong one is cut, so a hand-made URL can never make a page fail.

export function queryText(request: FastifyRequest, name: string, maxLength = 200): string {
  const query = request.query as Readonly<Record<string, unknown>> | undefined;
  const value = query?.[name];
  return typeof value === 'string' ? value.trim().slice(0, maxLength) : '';
}

/** A form field of a url-encoded POST body, as plain text ('' when absent or repeated). */
export function formText(request: FastifyRequest, name: string, maxLength = 2000): string {
  const body = request.body as Readonly<Record<string, unknown>> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value.slice(0, maxLength) : '';
}
