import { bundleBytes } from '../catalogue/bundle.js';
import type { SimulatorDeps } from './simulator-deps.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import {
  countOrganisations,
  findOrganisationById,
} from '../../store/repositories/organisation-repository.js';
import { systemActor } from '../audit/audit-log.js';
import { updateCustomerRef } from '../esims/esim-actions.js';
import { openAccount } from '../money/ledger.js';
import type { Organisation } from '../organisations/organisation.js';
import { orderingOrganisation, placeOrder } from '../orders/placement.js';
import { addUser, createOrganisation } from '../organisations/organisation-changes.js';
import { setPassword } from '../access/set-password-links.js';
import { runUseCase, runWrite } from '../runner/use-case-runner.js';
import { joinedStore } from '../../store/joined-transaction.js';
import type { Executor } from '../../store/database.js';
import type { Fixture, FixtureEsim } from './fixture-file.js';
import { FixtureError } from './fixture-file.js';
import { checkFixtureAgainstStore } from './fixture-check.js';

// Loads a fixture through the same use cases the API runs: organisations and their opening
// balance through the ledger, users as the CLI adds them, eSIMs by placing assigned orders, and
// bundle states by playing the simulated network (install, attach, data use), so every row,
// journal entry, history entry and usage callback is what real calls would have written.
// All or nothing: the whole file is checked against the catalogue and the rules first
// (fixture-check.ts), then every use case runs in one transaction (store/joined-transaction.ts),
// so a file that still fails part-way leaves the database as it was, and a corrected file loads
// on the next start.

export interface LoadedOrganisation {
  readonly id: string;
  readonly name: string;
  readonly apiKey: string;
  readonly iccids: readonly string[];
}

async function orderOnto(
  deps: SimulatorDeps,
  org: Organisation,
  item: string,
  iccid: string | undefined,
): Promise<string> {
  const placed = await runUseCase(
    deps,
    placeOrder,
    {
      org: orderingOrganisation(org),
      request: {
        type: 'transaction',
        assign: true,
        order: [
          {
            type: 'bundle',
            item,
            quantity: 1,
            ...(iccid === undefined ? {} : { iccids: [iccid] }),
          },
        ],
      },
    },
    { present: (p) => p.order.items[0]?.iccids[0] ?? '' },
  );
  if (placed.kind !== 'done' || placed.body === '')
    throw new FixtureError(`ordering ${item} issued no eSIM`);
  return placed.body;
}

async function loadEsim(
  deps: SimulatorDeps,
  org: Organisation,
  esim: FixtureEsim,
  at: string,
): Promise<string> {
  let iccid: string | undefined;
  for (const bundle of esim.bundles) iccid = await orderOnto(deps, org, bundle.name, iccid);
  if (iccid === undefined) throw new FixtureError(`${at}: no bundles`);
  if (esim.customerRef !== undefined) {
    await updateCustomerRef(deps, org.id, iccid, esim.customerRef);
  }
  const used = esim.bundles.filter((b) => b.state === 'Active' || b.state === 'Depleted');
  if (used.length === 0) return iccid;
  const simulator = deps.simulator;
  if (simulator === undefined) throw new FixtureError(`${at}: bundle states need simulator mode`);
  const events = simulator.eventsOn(deps.store);
  const first = await findBundleByName(deps.store.db, esim.bundles[0]?.name ?? '');
  const country = esim.country ?? first?.countries[0] ?? 'GB';
  await events.installProfile(iccid, 'Installed');
  await events.attach(iccid, { country });
  for (const [b, bundle] of esim.bundles.entries()) {
    if (bundle.state === 'Depleted') {
      const found = await findBundleByName(deps.store.db, bundle.name);
      const bytes = found === undefined ? -1 : bundleBytes(found);
      if (bytes < 0)
        throw new FixtureError(`${at}/bundles/${b}/state: an unlimited bundle cannot be Depleted`);
      await events.reportUsage(iccid, bytes);
    } else if (bundle.state === 'Active') {
      // At least one byte: a bundle becomes Active on first use.
      await events.reportUsage(iccid, Math.max(1, Math.round((bundle.usedMb ?? 0) * 1_000_000)));
    }
  }
  return iccid;
}

/**
 * Loads the fixture on an empty database; does nothing (undefined) when organisations exist.
 * A fixture the catalogue or the rules refuse stops with FixtureError naming the field, and
 * nothing of it is written.
 */
export async function loadFixture(
  deps: SimulatorDeps,
  fixture: Fixture,
): Promise<LoadedOrganisation[] | undefined> {
  // Fixed, published keys and passwords never reach a production database.
  if (deps.config.mode !== 'simulator' || deps.simulator === undefined) {
    throw new FixtureError('a fixture loads in simulator mode only');
  }
  await checkFixtureAgainstStore(deps.store.db, fixture);
  return runWrite(deps, (tx: Executor) => loadFixtureInto(tx, deps, fixture), undefined);
}

/**
 * Loads the fixture, already checked against the catalogue, inside the caller's transaction `tx`
 * (what a reset to the seed empties the database in); does nothing (undefined) when
 * organisations exist.
 */
export function loadFixtureInto(
  tx: Executor,
  deps: SimulatorDeps,
  fixture: Fixture,
): Promise<LoadedOrganisation[] | undefined> {
  if (deps.config.mode !== 'simulator' || deps.simulator === undefined) {
    throw new FixtureError('a fixture loads in simulator mode only');
  }
  return loadAll({ ...deps, store: joinedStore(deps.store, tx) }, fixture);
}

async function loadAll(
  deps: SimulatorDeps,
  fixture: Fixture,
): Promise<LoadedOrganisation[] | undefined> {
  if ((await countOrganisations(deps.store.db)) > 0) return undefined;
  const orgDeps = {
    db: deps.store.db,
    clock: deps.clock,
    random: deps.random,
    cipher: deps.cipher,
    checkCallbackUrl: deps.checkCallbackUrl,
  };
  const loaded: LoadedOrganisation[] = [];
  for (const [o, input] of fixture.organisations.entries()) {
    const at = `organisations/${o}`;
    const created = await createOrganisation(
      orgDeps,
      {
        name: input.name,
        ...(input.apiKey === undefined ? {} : { apiKey: input.apiKey }),
        ...(input.currency === undefined ? {} : { currency: input.currency }),
        ...(input.groups === undefined ? {} : { groups: input.groups }),
        ...(input.callbackUrl === undefined ? {} : { callbackUrl: input.callbackUrl }),
        ...(input.callbackVersion === undefined ? {} : { callbackVersion: input.callbackVersion }),
        ...(input.country === undefined ? {} : { country: input.country }),
      },
      (trx, org) =>
        openAccount(trx, {
          organisationId: org.id,
          balance: input.balance ?? 0,
          description: 'fixture opening balance',
          at: deps.clock.now(),
        }),
    ).catch((error: unknown) => {
      throw new FixtureError(`${at}: ${(error as Error).message}`);
    });
    for (const [u, user] of (input.users ?? []).entries()) {
      const row = await addUser(orgDeps, created.id, {
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        role: user.role,
        timeZone: 'UTC',
      }).catch((error: unknown) => {
        throw new FixtureError(`${at}/users/${u}: ${(error as Error).message}`);
      });
      if (user.password !== undefined) {
        await setPassword(deps, systemActor, row, user.password).catch((error: unknown) => {
          throw new FixtureError(`${at}/users/${u}/password: ${(error as Error).message}`);
        });
      }
    }
    const iccids: string[] = [];
    for (const [e, esim] of (input.esims ?? []).entries()) {
      // The organisation as it is now: each order reads the balance the last one left.
      const current = await findOrganisationById(deps.store.db, created.id);
      if (current === undefined) throw new FixtureError(`${at}: not found after creation`);
      iccids.push(
        await loadEsim(deps, current, esim, `${at}/esims/${e}`).catch((error: unknown) => {
          if (error instanceof FixtureError) throw error;
          throw new FixtureError(`${at}/esims/${e}: ${(error as Error).message}`);
        }),
      );
    }
    loaded.push({
      id: created.id,
      name: created.organisation.name,
      apiKey: created.apiKey,
      iccids,
    });
  }
  return loaded;
}
