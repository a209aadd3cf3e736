import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { conflict, notFound } from '../../../domain/errors/error-codes.js';
import {
  findOrganisationById,
  findStoredApiKey,
  listUsers,
} from '../../../domain/organisations/organisation-reads.js';
import { hashApiKey, hashesEqual, readableKey } from '../../../security/api-keys.js';
import type { Api } from '../../api.js';
import { presentedKey } from '../../auth.js';
import { ErrorRef, apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';

const User = Type.Object({
  firstName: Type.String(),
  lastName: Type.String(),
  role: Type.String({ description: 'Admin, Finance, Developer, Support or Viewer.' }),
  emailAddress: Type.String(),
  phoneNumber: Type.String(),
  timeZone: Type.String({ description: 'IANA time zone, e.g. Europe/London.' }),
});

export const Organisation = Type.Object({
  name: Type.String(),
  apiKey: Type.String({
    description: 'The organisation API key (secret). Also the HMAC key of V3 callbacks.',
  }),
  taxLiable: Type.String({ description: 'Yes, No or ReverseCharge.' }),
  addr1: Type.String(),
  addr2: Type.String(),
  city: Type.String(),
  country: Type.String({ description: 'ISO 3166-1 alpha-2 code, or empty.' }),
  postcode: Type.String(),
  callbackUrl: Type.String({ description: 'Where usage callbacks are sent; empty when none.' }),
  callbackVersion: Type.String({
    description: 'V2 (default, unsigned) or V3 (signed). Extension field.',
  }),
  notes: Type.String(),
  groups: Type.Array(Type.String(), {
    description: 'Bundle groups the organisation may order from.',
  }),
  currency: Type.String({ description: 'ISO 4217 currency of every money field.' }),
  balance: Type.Integer({ description: 'Prepaid balance in minor units (cents for USD).' }),
  testCredit: Type.Integer({
    description: 'Test credit in minor units, spent before balance while unexpired.',
  }),
  testCreditExpiry: Type.String({
    description: 'RFC 3339 UTC, or empty when there is no test credit.',
  }),
  businessType: Type.String({ description: 'Travel, IoT, Enterprise, Reseller, MVNO or Other.' }),
  website: Type.String(),
  productDescription: Type.String(),
  users: Type.Array(User),
});

/** v2.1's answer: the organisation wrapped in a list (versions/presenters/organisation.ts). */
export const OrganisationAnswer = Type.Object({ organisations: Type.Array(Organisation) });

const schema = {
  tags: ['Organisation'],
  operationId: 'getOrganisation',
  summary: 'Get the caller organisation, including its users',
  security: apiKeySecurity,
  response: {
    200: presented(OrganisationAnswer),
    403: standardErrors[403],
    409: {
      ...ErrorRef,
      description:
        "The stored API key cannot be read with this server's MASTER_KEY and the key presented " +
        'is not the current one (a key in its grace period reads itself): rotate the key.',
    },
    500: standardErrors[500],
  },
};

/**
 * The current key when this MASTER_KEY cannot decrypt it (a re-key not finished, an instance
 * with another key): still known when the caller presented it, since authentication found it by
 * its hash and the stored hash says it is the current key. Otherwise (a key that was the current
 * one a moment ago, before a rotation another instance made) the current key is neither readable
 * nor the caller's to learn: a 409 that says what to do.
 */
function presentedIfCurrent(presented: string | undefined, storedHash: string): string {
  if (presented !== undefined && hashesEqual(hashApiKey(presented), storedHash)) return presented;
  throw conflict(
    "the organisation's current API key cannot be read with this server's MASTER_KEY, and " +
      'the key presented is no longer the current one: rotate the key (portal, API & ' +
      'callbacks; or esim org rotate-key)',
  );
}

export function registerGetOrganisation(app: Api, deps: AppDeps): void {
  app.get('/organisation', { schema }, async (request) => {
    // Read afresh: authentication may have served the organisation from memory, and its balances
    // change with every order.
    const org = await findOrganisationById(deps.store.db, request.organisation.id);
    if (org === undefined) throw notFound(`organisation ${request.organisation.id} not found`);
    const users = await listUsers(deps.store.db, org.id);
    const stored = await findStoredApiKey(deps.store.db, org.id);
    if (stored === undefined) throw notFound(`organisation ${org.id} not found`);
    return present(request, 'getOrganisation', {
      organisation: org,
      // A key in its grace period reads itself, never its replacement: a leaked key that
      // was rotated must not hand the thief the new one (docs/operations.md, "Key roll-over").
      apiKey:
        request.graceKey?.key ??
        readableKey(deps.cipher, stored.encrypted) ??
        presentedIfCurrent(presentedKey(request).key, stored.hash),
      users: users.map((u) => ({
        firstName: u.first_name,
        lastName: u.last_name,
        role: u.role,
        emailAddress: u.email_address,
        phoneNumber: u.phone_number,
        timeZone: u.time_zone,
      })),
    });
  });
}
