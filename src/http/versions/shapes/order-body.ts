import { Type } from '@sinclair/typebox';
import type { TArray, TInteger, TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { checkIccid } from '../../../domain/esims/owned-esim.js';

// The order request of v2.2 and later: the flat quick-start form beside the `order` array, and
// v2.5's branding profile id.

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/**
 * A branding profile id must be a UUID, as live checks it (`invalid UUID length: 22`). Branding
 * itself is not modelled: a valid id is accepted and changes nothing.
 */
export function checkProfileId(value: unknown): void {
  if (value === undefined) return;
  const text = String(value);
  const bare = text.replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1');
  if (bare.length !== 32 && bare.length !== 36) {
    throw badRequest(`invalid UUID length: ${text.length}`);
  }
  if (!UUID.test(bare)) throw badRequest('invalid UUID format');
}

/** The order body of v2.2 and later: v2.1's, `order` optional beside the flat quick-start form. */
export function laterOrderBodySchema(shared: TObject, profileId: boolean): TObject {
  const { order, ...rest } = shared.properties;
  const line = (order as TArray<TObject>).items;
  return Type.Object({
    ...rest,
    order: Type.Optional(order as TArray),
    item: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Quick-start form, instead of `order`: the bundle name of a one-line order.',
      }),
    ),
    quantity: Type.Optional({
      ...line.properties['quantity'],
      description: 'Quick-start form: units of `item` (default 1).',
    } as TInteger),
    iccid: Type.Optional(
      Type.String({
        maxLength: 32,
        description:
          'Quick-start form with assign: true: the eSIM to put the bundle on; empty (or absent) issues a new eSIM.',
      }),
    ),
    ...(profileId
      ? {
          profileID: Type.Optional(
            Type.String({
              maxLength: 100,
              description:
                'Branding profile (a UUID), with assign: true. Accepted; branding is not modelled, so it changes nothing.',
            }),
          ),
        }
      : {}),
  });
}

export interface LaterOrderBody {
  type?: 'validate' | 'transaction';
  assign?: boolean;
  order?: {
    type: 'bundle';
    item: string;
    quantity: number;
    iccids?: string[];
    allowReassign?: boolean;
  }[];
  item?: string;
  quantity?: number;
  iccid?: string;
  iccids?: string[];
  allowReassign?: boolean;
  profileID?: string;
}

/**
 * The body the shared handler reads, from the later versions' body: the `order` array, or the
 * flat quick-start form `{type, quantity, item, assign, iccid}` (one line).
 */
export function sharedOrderBody(request: FastifyRequest): void {
  const body = request.body as LaterOrderBody;
  checkProfileId(body.profileID);
  if (body.order !== undefined) return;
  if (body.item === undefined) {
    throw badRequest('order is required: an `order` array of lines, or `item` and `quantity`');
  }
  // An empty `iccid` is how quick-start clients say "no eSIM given": new eSIMs are issued.
  const given = body.iccid === undefined || body.iccid.trim() === '' ? undefined : [body.iccid];
  // Checked here, where the caller's own field name is known (`iccid`, not the line's `iccids`).
  if (body.iccids === undefined && body.iccid !== undefined && given !== undefined) {
    checkIccid(body.iccid, 'body field iccid');
  }
  const iccids = body.iccids ?? given;
  const line = {
    type: 'bundle' as const,
    item: body.item,
    quantity: body.quantity ?? 1,
    ...(iccids === undefined ? {} : { iccids }),
    ...(body.allowReassign === undefined ? {} : { allowReassign: body.allowReassign }),
  };
  body.order = [line];
}
