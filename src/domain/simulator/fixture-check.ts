import type { Bundle } from '../catalogue/bundle.js';
import { bundleBytes } from '../catalogue/bundle.js';
import { countryByIso } from '../catalogue/countries.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import type { Executor } from '../../store/database.js';
import { checkPasswordRules } from '../access/passwords.js';
import { DEFAULT_GROUPS, USER_ROLES } from '../organisations/organisation-changes.js';
import type { Fixture, FixtureOrganisation } from './fixture-file.js';
import { FixtureError } from './fixture-file.js';

// What a fixture file must satisfy beyond its schema (fixture-file.ts), checked against the
// catalogue before anything is written: every bundle exists and is one of the organisation's
// groups, an unlimited bundle is never Depleted, the opening balance pays for the eSIMs' bundles,
// keys and e-mail addresses are not listed twice, roles and passwords follow the rules the CLI and
// the portal apply. The load itself runs in one transaction, so anything only the use cases can
// find (fixture-load.ts) still leaves nothing behind.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function refuse(field: string, problem: string): never {
  throw new FixtureError(`${field}: ${problem}`);
}

async function checkEsims(
  db: Executor,
  org: FixtureOrganisation,
  at: string,
  bundles: Map<string, Bundle | undefined>,
): Promise<number> {
  const groups = (org.groups ?? DEFAULT_GROUPS).map((g) => g.trim());
  let total = 0;
  for (const [e, esim] of (org.esims ?? []).entries()) {
    if (esim.country !== undefined && countryByIso(esim.country) === undefined) {
      refuse(`${at}/esims/${e}/country`, `"${esim.country}" is not an ISO 3166-1 alpha-2 code`);
    }
    for (const [b, item] of esim.bundles.entries()) {
      const field = `${at}/esims/${e}/bundles/${b}`;
      if (!bundles.has(item.name)) bundles.set(item.name, await findBundleByName(db, item.name));
      const bundle = bundles.get(item.name);
      if (bundle === undefined || !bundle.groups.some((g) => groups.includes(g))) {
        refuse(
          `${field}/name`,
          `bundle "${item.name}" is not in the catalogue of this organisation's groups (${groups.join(', ')})`,
        );
      }
      if (item.state === 'Depleted' && bundleBytes(bundle) < 0) {
        refuse(`${field}/state`, 'an unlimited bundle cannot be Depleted');
      }
      total += bundle.price;
    }
  }
  return total;
}

function checkUsers(org: FixtureOrganisation, at: string): void {
  const emails = new Map<string, number>();
  for (const [u, user] of (org.users ?? []).entries()) {
    const field = `${at}/users/${u}`;
    const email = user.email.trim();
    if (!EMAIL.test(email)) refuse(`${field}/email`, 'must be an email address');
    const earlier = emails.get(email);
    if (earlier !== undefined) {
      refuse(`${field}/email`, `${email} is already the email of ${at}/users/${earlier}`);
    }
    emails.set(email, u);
    if (!(USER_ROLES as readonly string[]).includes(user.role)) {
      refuse(`${field}/role`, `must be one of ${USER_ROLES.join(', ')}`);
    }
    if (user.password !== undefined) {
      try {
        checkPasswordRules(user.password);
      } catch (error) {
        refuse(`${field}/password`, (error as Error).message);
      }
    }
  }
}

/** Checks the whole fixture against the catalogue and the rules; FixtureError names the field. */
export async function checkFixtureAgainstStore(db: Executor, fixture: Fixture): Promise<void> {
  const keys = new Map<string, number>();
  const bundles = new Map<string, Bundle | undefined>();
  for (const [o, org] of fixture.organisations.entries()) {
    const at = `organisations/${o}`;
    if (org.apiKey !== undefined) {
      const earlier = keys.get(org.apiKey);
      if (earlier !== undefined) {
        refuse(`${at}/apiKey`, `the same key as organisations/${earlier}/apiKey`);
      }
      keys.set(org.apiKey, o);
    }
    if (org.country !== undefined && countryByIso(org.country) === undefined) {
      refuse(`${at}/country`, `"${org.country}" is not an ISO 3166-1 alpha-2 code`);
    }
    checkUsers(org, at);
    const cost = await checkEsims(db, org, at, bundles);
    const balance = org.balance ?? 0;
    if (cost > balance) {
      refuse(
        `${at}/balance`,
        `${balance} minor units do not pay for the bundles of its eSIMs, which cost ${cost}`,
      );
    }
  }
}
