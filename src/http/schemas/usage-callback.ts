import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ALERT_TYPES } from '../../domain/callbacks/callback-body.js';
import type { CallbackV2, CallbackV3 } from '../../domain/callbacks/callback-body.js';
import { UTILISATION_THRESHOLDS } from '../../domain/callbacks/usage-alerts.js';
import { CALLBACK_HEADERS } from '../../callbacks/headers.js';

// The usage callback the service POSTs to an organisation's callback URL (spec part 6). These
// schemas describe it in the OpenAPI document; what is sent is the domain's callback body
// (domain/callbacks/callback-body.ts), and the checks at the end of this file fail the build when
// the two differ by a field or a type. No other field may appear (additionalProperties: false).
// The request headers are the sender's (callbacks/headers.ts).

const alertType = Type.Union(
  ALERT_TYPES.map((value) => Type.Literal(value)),
  {
    description:
      'Utilisation (the bundle passed 1, 50, 80 or 100 % used), FirstUse (first data use), FirstAttachment (first network attachment) or CountryChange.',
    example: 'Utilisation',
  },
);
const iccid = Type.String({ description: 'ICCID of the eSIM: 19 digits.' });
const assignmentId = Type.String({
  description:
    'Id of the bundle assignment; used to revoke a single assignment (DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}).',
});
const name = Type.String({ description: 'Bundle name, as in the catalogue (case sensitive).' });
const initialQuantity = Type.Integer({
  description: 'Starting data in bytes; -1 for an unlimited bundle.',
});
const remainingQuantity = Type.Integer({
  description: 'Remaining data in bytes; -1 for an unlimited bundle.',
});
const startTime = Type.String({
  description: 'Start of the bundle, RFC 3339 UTC; empty before first use.',
});
const endTime = Type.String({
  description: 'End of the bundle (start + duration), RFC 3339 UTC; empty before first use.',
});
const bundleNote =
  ' Absent only when the eSIM attaches to a network while it has no bundle in use or queued.';

export const UsageCallbackBundleV3 = Type.Object(
  {
    id: assignmentId,
    reference: Type.String({
      description:
        'Reference of the assignment (the order or apply reference); usable with GET /esims/{iccid}/bundles.',
    }),
    name,
    description: Type.String({ description: 'Bundle description.' }),
    initialQuantity,
    remainingQuantity,
    startTime,
    endTime,
    unlimited: Type.Boolean({ description: 'Whether the bundle is unlimited.' }),
  },
  { description: 'The bundle in use.' + bundleNote, additionalProperties: false },
);

export const UsageCallbackBundleV2 = Type.Object(
  { id: assignmentId, name, initialQuantity, remainingQuantity, startTime, endTime },
  { description: 'The bundle in use.' + bundleNote, additionalProperties: false },
);

export const UsageCallbackV3 = Type.Object(
  {
    iccid,
    alertType,
    bundle: Type.Optional(UsageCallbackBundleV3),
    threshold: Type.Optional(
      Type.Integer({
        enum: [...UTILISATION_THRESHOLDS],
        description:
          'Utilisation only: the percentage used that was passed (1, 50, 80 or 100). One usage report can pass several thresholds; each gets its own event.',
      }),
    ),
    country: Type.Optional(
      Type.String({
        description: 'FirstAttachment and CountryChange: ISO 3166-1 alpha-2 country attached in.',
      }),
    ),
    previousCountry: Type.Optional(
      Type.String({ description: 'CountryChange only: ISO 3166-1 alpha-2 country before.' }),
    ),
  },
  {
    $id: 'UsageCallbackV3',
    title: 'UsageCallbackV3',
    additionalProperties: false,
    description: `Full shape, sent when the organisation's callback version is V3. Signed: ${CALLBACK_HEADERS.signature} = base64(HMAC-SHA256(key = the API key, message = the exact body bytes)).`,
  },
);

export const UsageCallbackV2 = Type.Object(
  { iccid, alertType, bundle: Type.Optional(UsageCallbackBundleV2) },
  {
    $id: 'UsageCallbackV2',
    title: 'UsageCallbackV2',
    additionalProperties: false,
    description:
      "Reduced shape, sent when the organisation's callback version is V2 (the default). Unsigned.",
  },
);

export type UsageCallbackV3Body = Static<typeof UsageCallbackV3>;
export type UsageCallbackV2Body = Static<typeof UsageCallbackV2>;

// The schemas describe exactly the domain's bodies: the same fields, of the same types.
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const v3Agrees: Same<UsageCallbackV3Body, CallbackV3> = true;
const v2Agrees: Same<UsageCallbackV2Body, CallbackV2> = true;
void v3Agrees;
void v2Agrees;
