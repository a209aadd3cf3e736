import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { textCondition } from '../../filters.js';
import { switchOn } from '../../versions/wire.js';

// `filterBy` and `filter` of GET /esims on the versions with filter operators (v2.2 and later).
// The live service documents five fields; this service serves the one it can read by index, the
// ICCID (the eSIM's primary key), and answers the others with a 400 rather than an unfiltered
// list a client would take for the match (docs/versions.md).

/** The fields of the live spec's filterBy. */
export const ESIM_FILTER_FIELDS = [
  'iccid',
  'customerRef',
  'lastAction',
  'actionDate',
  'assignedDate',
] as const;

const FIELDS = ESIM_FILTER_FIELDS.join(', ');

/** The ICCID the list is filtered to; undefined when the version or the request has no filter. */
export function iccidFilter(request: FastifyRequest): string | undefined {
  if (!switchOn(request, 'filterOperators')) return undefined;
  const { filterBy, filter } = request.query as { filterBy?: string; filter?: string };
  if (filterBy === undefined && filter === undefined) return undefined;
  if (filterBy === undefined) {
    throw badRequest(`query parameter filter needs filterBy, one of ${FIELDS}`);
  }
  if (!(ESIM_FILTER_FIELDS as readonly string[]).includes(filterBy)) {
    throw badRequest(
      `query parameter filterBy: unknown field "${filterBy.slice(0, 40)}"; one of ${FIELDS}`,
    );
  }
  if (filterBy !== 'iccid') {
    throw badRequest(
      `query parameter filterBy: this service does not filter eSIMs by ${filterBy}; filterBy=iccid is served`,
    );
  }
  if (filter === undefined || filter === '') {
    throw badRequest(
      'query parameter filter is required with filterBy (filterBy=iccid&filter=<ICCID>)',
    );
  }
  const { value } = textCondition('filter', filter);
  if (/[*%]/.test(value)) {
    throw badRequest('query parameter filter: an ICCID is matched whole; wildcards are not served');
  }
  return value;
}
