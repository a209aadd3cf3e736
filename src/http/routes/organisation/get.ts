import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import {
  findEncryptedApiKey,
  findOrganisationById,
  listUsers,
} from '../../../domain/organisations/organisation-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
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
    500: standardErrors[500],
  },
};

export function registerGetOrganisation(app: Api, deps: AppDeps): void {
  app.get('/organisation', { schema }, async (request) => {
    // Read afresh: authentication may have served the organisation from memory, and its balances
    // change with every order.
    const org = await findOrganisationById(deps.store.db, request.organisation.id);
    if (org === undefined) throw notFound(`organisation ${request.organisation.id} not found`);
    const users = await listUsers(deps.store.db, org.id);
    const apiKeyEnc = await findEncryptedApiKey(deps.store.db, org.id);
    if (apiKeyEnc === undefined) throw notFound(`organisation ${org.id} not found`);
    return present(request, 'getOrganisation', {
      organisation: org,
      // A key in its grace period reads itself, never its replacement: a leaked key that
      // was rotated must not hand the thief the new one (docs/operations.md, "Key roll-over").
      apiKey: request.graceKey?.key ?? deps.cipher.decrypt(apiKeyEnc),
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
