import { Type } from '@sinclair/typebox';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { MAX_REPEAT } from '../../../domain/esims/lifecycle/apply-from-inventory.js';
import { EXAMPLES } from '../../openapi-examples.js';
import type { RequestWire } from '../version.js';
import { PROCESSING_ERRORS } from './processing.js';

// POST /esims/apply on the later versions. v2.2: `bundles: [{name, repeat?}]` beside the single
// `name`; the apply is also recorded as an order (the `applyRecordsOrder` switch); more than five
// bundles are applied in the background (503 while processing). v2.4: `allowReassign`, on the
// body and on each `bundles[]` entry.

/** At most this many entries in `bundles` (each may repeat up to MAX_REPEAT units). */
export const MAX_APPLY_ENTRIES = 50;

const ALLOW_REASSIGN = Type.Optional(
  Type.Boolean({
    description:
      'Accepted for compatibility: every eSIM of this service can take every bundle, so no other eSIM is ever needed and it changes nothing.',
  }),
);

const repeat = (what: string): TSchema =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_REPEAT,
      default: 1,
      description: `Units of ${what}, 1 to ${MAX_REPEAT}; on one eSIM they queue one after another.`,
    }),
  );

function applyBody(shared: TObject, allowReassign: boolean): TObject {
  const { name, iccid } = shared.properties;
  const entry = Type.Object({
    name: Type.String({ minLength: 1, description: 'Bundle name (case-sensitive).' }),
    repeat: repeat('this bundle'),
    ...(allowReassign ? { allowReassign: ALLOW_REASSIGN } : {}),
  });
  return Type.Object({
    name: Type.Optional({
      ...(name as TSchema),
      description: 'Bundle name (case-sensitive); or `bundles` for several.',
    }),
    iccid: Type.Optional({
      ...(iccid as TSchema),
      description:
        'eSIM to apply to (the organisation must own it; otherwise 404); with `bundles`, every entry goes onto it. Omitted: a new eSIM is issued (one per `bundles` entry).',
    }),
    repeat: repeat('`name`'),
    bundles: Type.Optional(
      Type.Array(entry, {
        minItems: 1,
        maxItems: MAX_APPLY_ENTRIES,
        description:
          'Several bundles in one apply (instead of `name`): each entry on a new eSIM of its own, or on `iccid` when given. One applyReference; all or nothing.',
      }),
    ),
    ...(allowReassign ? { allowReassign: ALLOW_REASSIGN } : {}),
  });
}

interface LaterApplyBody {
  name?: string;
  iccid?: string;
  repeat?: number;
  bundles?: { name: string; repeat?: number }[];
  more?: { bundleName: string; repeat: number }[];
}

/** The body the shared handler reads: `name` (+ `repeat`), and the further bundles as `more`. */
export function sharedApplyBody(request: FastifyRequest): void {
  const body = request.body as LaterApplyBody;
  if (body.bundles === undefined) {
    if (body.name === undefined) {
      throw badRequest('body field name is required (or `bundles`, a list of {name, repeat})');
    }
    return;
  }
  if (body.name !== undefined) {
    throw badRequest('send either body field name or body field bundles, not both');
  }
  const [first, ...rest] = body.bundles;
  if (first === undefined) throw badRequest('body field bundles must list at least one bundle');
  body.name = first.name;
  body.repeat = first.repeat ?? 1;
  body.more = rest.map((e) => ({ bundleName: e.name, repeat: e.repeat ?? 1 }));
  delete body.bundles;
}

export const applyV22: RequestWire = {
  body: (shared) => applyBody(shared, false),
  request: sharedApplyBody,
  errors: PROCESSING_ERRORS,
};

export const applyV24: RequestWire = { body: (shared) => applyBody(shared, true) };

/**
 * The deprecated POST /esims/{iccid}/bundles: processed in the background as an apply; its
 * answer is an apply's (the document shows the apply's recorded example).
 */
export const applyToEsimV22: RequestWire = {
  errors: PROCESSING_ERRORS,
  example: EXAMPLES['applyBundle'],
};
