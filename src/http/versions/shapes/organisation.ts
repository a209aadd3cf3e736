import type { OrganisationBody } from '../../routes/organisation/get.js';
import { Organisation } from '../../routes/organisation/get.js';
import { toMajor } from '../money.js';
import { money, reshaped } from './schema-tools.js';

// GET /organisation on v2.4 and later: the organisation object itself (v2.1 wraps it in
// `organisations: [...]`), money in major units.

export const OrganisationV24 = reshaped(Organisation, {
  balance: money('Prepaid balance'),
  testCredit: money('Test credit, spent before balance while unexpired'),
});

export function organisationV24Answer(body: { organisations: OrganisationBody[] }): unknown {
  const org = body.organisations[0];
  if (org === undefined) return body;
  return {
    ...org,
    balance: toMajor(org.balance, org.currency),
    testCredit: toMajor(org.testCredit, org.currency),
  };
}
