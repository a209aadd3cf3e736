import { randomBytes } from 'node:crypto';
import type { AppDeps } from './deps.js';
import { addDemoData, demoDataCost } from './demo-data.js';
import { systemActor } from './domain/audit/audit-log.js';
import { setPassword } from './domain/access/set-password-links.js';
import { defaultExpiry } from './domain/money/card-input.js';
import { saveCard } from './domain/money/save-card.js';
import { DEFAULT_TEST_CARD } from './payments/test-cards.js';
import { listOrganisations } from './store/repositories/organisation-repository.js';
import { defaultGroupsFor } from './domain/catalogue/naming.js';
import { openAccount } from './domain/money/ledger.js';
import { addUser, createOrganisation } from './domain/organisations/organisation-changes.js';
import { demoWanted, markDemoMade, markDemoStarted } from './domain/simulator/demo-mark.js';

export const DEMO_NAME = 'Demo Organisation';
/** 1,000.00 in the organisation currency: what the balance holds after the demo data's orders. */
export const DEMO_OPENING_BALANCE = 100_000;
export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

export interface DemoOrganisation {
  id: string;
  name: string;
  apiKey: string;
  /** The demo admin's portal password, printed once on the first start. */
  adminPassword: string;
}

/**
 * On an empty simulator database, one organisation with a balance, an admin user and the demo
 * data (src/demo-data.ts), so a newcomer gets a 200 at once and the documentation page's examples
 * answer. `baseUrl` is where the server answers (the demo's callback URL is its receiver).
 * Returns undefined when the database already has organisations. The demo is made in several
 * transactions (orders, the phone's events, settings): a mark kept from before the first to
 * after the last lets the next start make again a demo that a crash left half made.
 */
export async function createDemoOrganisation(
  deps: AppDeps,
  baseUrl = `http://${deps.config.host}:${deps.config.port}`,
): Promise<DemoOrganisation | undefined> {
  // A demo that a stopped start left half made is made again (domain/simulator/demo-mark.ts).
  if (!(await demoWanted(deps, DEMO_NAME))) return undefined;
  await markDemoStarted(deps);
  const orgDeps = {
    db: deps.store.db,
    clock: deps.clock,
    random: deps.random,
    cipher: deps.cipher,
  };
  const dataCost = await demoDataCost(deps);
  const created = await createOrganisation(
    orgDeps,
    {
      name: DEMO_NAME,
      businessType: 'Travel',
      country: 'GB',
      groups: defaultGroupsFor(deps.config.mode),
    },
    (trx, org) =>
      openAccount(trx, {
        organisationId: org.id,
        balance: DEMO_OPENING_BALANCE + dataCost,
        description: 'demo opening balance',
        at: deps.clock.now(),
      }),
  );
  const admin = await addUser(orgDeps, created.id, {
    email: DEMO_ADMIN_EMAIL,
    firstName: 'Demo',
    lastName: 'Admin',
    role: 'Admin',
    timeZone: 'UTC',
  });
  const adminPassword = randomBytes(12).toString('base64url');
  await setPassword(deps, systemActor, admin, adminPassword);
  // A success test card, so top-up works at once (the test processor only exists in simulators).
  if (deps.payments.name === 'test') {
    await saveCard(deps, created.id, { number: DEFAULT_TEST_CARD, ...defaultExpiry(deps.clock) });
  }
  await addDemoData(deps, created.id, baseUrl);
  await markDemoMade(deps);
  return {
    id: created.id,
    name: created.organisation.name,
    apiKey: created.apiKey,
    adminPassword,
  };
}

/**
 * Prints what a newcomer needs on the first start of a simulator (the demo key and a curl line),
 * and on later starts where to find the organisations, without creating anything again.
 */
export async function announceDemo(
  deps: AppDeps,
  url: string,
  print: (line: string) => void,
): Promise<void> {
  const demo = await createDemoOrganisation(deps, url);
  if (demo === undefined) {
    const demoRow = (await listOrganisations(deps.store.db)).find((o) => o.name === DEMO_NAME);
    if (demoRow !== undefined) {
      print(
        `Demo organisation ${demoRow.id} exists: its API key is on the portal's API page, ${url}/portal/api ("Reveal key").`,
      );
      print(
        `Portal: ${url}/portal (${DEMO_ADMIN_EMAIL}; "Forgot your password?" mails a link that "esim mail list" prints)`,
      );
    }
    return;
  }
  print('');
  print(`Demo organisation created: ${demo.name} (${demo.id})`);
  print(`API key: ${demo.apiKey}`);
  print(`Try it:  curl -H 'X-API-Key: ${demo.apiKey}' ${url}/v2.1/organisation`);
  print(`Docs:    ${url}/docs`);
  print(`Portal:  ${url}/portal  (email ${DEMO_ADMIN_EMAIL}, password ${demo.adminPassword})`);
  print('');
}
