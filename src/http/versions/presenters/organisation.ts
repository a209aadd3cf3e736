import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Organisation, OrganisationAnswer } from '../../routes/organisation/get.js';
import { toMajor } from '../money.js';
import { presenter } from '../presenter.js';
import type { OrganisationRead } from '../results.js';
import { money, reshaped } from '../shapes/schema-tools.js';

// GET /organisation. v2.1 to v2.3: {organisations: [the organisation]}, money in minor units,
// `testCreditExpiry` "" when there is none. v2.4 and later: the organisation object itself,
// money in major units, and `testCreditExpiry` a date-time, left out when there is none.

type Body = Static<typeof Organisation>;

function organisationV21({ organisation: org, apiKey, users }: OrganisationRead): Body {
  return {
    name: org.name,
    apiKey,
    taxLiable: org.taxLiable,
    addr1: org.addr1,
    addr2: org.addr2,
    city: org.city,
    country: org.country,
    postcode: org.postcode,
    callbackUrl: org.callbackUrl,
    callbackVersion: org.callbackVersion,
    notes: org.notes,
    groups: [...org.groups],
    currency: org.currency,
    balance: org.balance,
    testCredit: org.testCredit,
    testCreditExpiry: org.testCreditExpiry ?? '',
    businessType: org.businessType,
    website: org.website,
    productDescription: org.productDescription,
    users: users.map((u) => ({ ...u })),
  };
}

export const ORGANISATION_V21 = presenter(OrganisationAnswer, (read: OrganisationRead) => ({
  organisations: [organisationV21(read)],
}));

// An optional field is written after the required ones (fast-json-stringify): testCreditExpiry,
// when there is one, comes last.
export const OrganisationV24 = reshaped(Organisation, {
  balance: money('Prepaid balance'),
  testCredit: money('Test credit, spent before balance while unexpired'),
  testCreditExpiry: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'When the test credit expires, RFC 3339 UTC; left out when it does not.',
    }),
  ),
});

export const ORGANISATION_V24 = presenter(OrganisationV24, (read: OrganisationRead) => {
  const { testCreditExpiry, ...body } = organisationV21(read);
  const { currency } = read.organisation;
  return {
    ...body,
    balance: toMajor(body.balance, currency),
    testCredit: toMajor(body.testCredit, currency),
    ...(testCreditExpiry === '' ? {} : { testCreditExpiry }),
  };
});
