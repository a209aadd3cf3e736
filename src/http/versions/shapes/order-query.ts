import { Type } from '@sinclair/typebox';

// `POST /orders?includeIccids=true` (v2.2): accepted and documented. Every version of this
// service already answers the eSIMs of an assigned line (`iccids`, `esims`), which is what the
// parameter asks for, so it changes nothing (docs/versions.md).

export const PlaceOrderQuery = Type.Object({
  includeIccids: Type.Optional(
    Type.Boolean({
      description:
        'Accepted for compatibility: the eSIMs of assigned lines (iccids, esims with iccid, matchingId, smdpAddress) are always in the answer.',
    }),
  ),
});
