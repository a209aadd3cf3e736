import type { AppDeps } from '../deps.js';
import { iso } from '../clock.js';
import { applyMovement } from '../store/repositories/ledger-repository.js';
import { countOrganisations } from '../store/repositories/organisation-repository.js';
import { createOrganisation } from './organisations.js';

export const DEMO_OPENING_BALANCE = 100_000; // 1,000.00 in the organisation currency

/** On an empty simulator database, one organisation with a balance so a newcomer gets a 200 at once. */
export async function createDemoOrganisation(
  deps: AppDeps,
): Promise<{ id: string; name: string; apiKey: string } | undefined> {
  if ((await countOrganisations(deps.store.db)) > 0) return undefined;
  const created = await createOrganisation(
    { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
    { name: 'Demo Organisation', businessType: 'Travel', country: 'GB' },
    async (trx, org) => {
      await applyMovement(trx, {
        organisationId: org.id,
        kind: 'opening',
        balanceDelta: DEMO_OPENING_BALANCE,
        testCreditDelta: 0,
        reference: org.id,
        description: 'demo opening balance',
        at: iso(deps.clock.now()),
      });
    },
  );
  return { id: created.id, name: created.row.name, apiKey: created.apiKey };
}
