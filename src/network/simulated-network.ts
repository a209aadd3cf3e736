import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import type { Config } from '../config.js';
import { countryByIso } from '../domain/countries.js';
import { badRequest, conflict, notFound } from '../domain/errors.js';
import { snapshotOf } from '../domain/lifecycle/snapshot.js';
import { recordUsage } from '../domain/lifecycle/usage.js';
import type { NetworkEventSink } from '../domain/network-events.js';
import type { RandomSource } from '../random.js';
import { seededRandom } from '../random.js';
import type { Db, DialectName } from '../store/database.js';
import {
  findEsim,
  msisdnTaken,
  setMsisdn,
  setProfileStatus,
} from '../store/repositories/esim-repository.js';
import { insertHistory } from '../store/repositories/history-repository.js';
import {
  findNetwork,
  readUsageView,
  upsertNetwork,
} from '../store/repositories/network-repository.js';
import { insertSms } from '../store/repositories/sms-repository.js';
import type {
  AttachResult,
  AttachTarget,
  NetworkAdapter,
  ProfileResult,
  ProfileStatus,
  SmsDelivery,
  UsageResult,
} from './network-adapter.js';
import type { NetworkOperator } from './operators.js';
import { operatorByCode, operatorsIn } from './operators.js';

export interface SimulatedNetworkDeps {
  readonly config: Config;
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
  readonly networkEvents: NetworkEventSink;
}

export interface SimulatedNetwork extends NetworkAdapter {
  /** Restarts the network's random sequence from the configured seed (simulator reset). */
  reseed(): void;
  /** The network's own random source: operator choice, MSISDNs, fault probabilities. */
  readonly random: RandomSource;
}

const PROFILE_HISTORY: Partial<Record<ProfileStatus, string>> = {
  Downloaded: 'eSIM Downloaded',
  Installed: 'eSIM Installed',
  Unavailable: 'eSIM Deleted',
};

/**
 * The default network: operators and countries are real (mcc-mnc-list, world-countries), the
 * rest is decided by a random sequence seeded from SIM_SEED, so the same calls in the same order
 * give the same operators and MSISDNs.
 */
export function createSimulatedNetwork(deps: SimulatedNetworkDeps): SimulatedNetwork {
  let rng = seededRandom(deps.config.simSeed);
  const random: RandomSource = {
    int: (max) => rng.int(max),
    float: () => rng.float(),
    uuid: () => rng.uuid(),
  };
  const db = deps.store.db;

  const requireEsim = async (iccid: string) => {
    const esim = await findEsim(db, iccid);
    if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
    return esim;
  };

  const pickOperator = (target: AttachTarget): NetworkOperator => {
    if ('country' in target) {
      const country = countryByIso(target.country);
      if (country === undefined) {
        throw badRequest(`country "${target.country}" is not an ISO 3166-1 alpha-2 code`);
      }
      const operators = operatorsIn(country.iso);
      const chosen = operators[random.int(operators.length)];
      if (chosen === undefined) throw badRequest(`country ${country.iso} has no mobile network`);
      return chosen;
    }
    const operator = operatorByCode(target.mcc, target.mnc);
    if (operator === undefined) {
      throw badRequest(`no operational network has mcc ${target.mcc} and mnc ${target.mnc}`);
    }
    return operator;
  };

  return {
    random,
    reseed() {
      rng = seededRandom(deps.config.simSeed);
    },

    async installProfile(iccid: string, status: ProfileStatus): Promise<ProfileResult> {
      if (status === 'Released') throw badRequest('status Released cannot be set by the device');
      const at = iso(deps.clock.now());
      return db.transaction().execute(async (trx) => {
        const esim = await findEsim(trx, iccid);
        if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
        const firstInstalled = esim.first_installed_at ?? (status === 'Installed' ? at : null);
        if (esim.profile_status !== status) {
          await setProfileStatus(trx, iccid, status, firstInstalled);
          const view = await readUsageView(trx, iccid, deps.store.dialect);
          const current = view?.live.find((a) => a.row.state === 'Active') ?? view?.live[0];
          await insertHistory(trx, {
            iccid,
            name: PROFILE_HISTORY[status] ?? `eSIM ${status}`,
            bundle: current?.row.bundle_name ?? '',
            bundle_state: current?.row.state ?? '',
            alert_type: '',
            created_at: at,
          });
        }
        return { iccid, profileStatus: status, firstInstalledDateTime: firstInstalled ?? '' };
      });
    },

    async attach(iccid: string, target: AttachTarget): Promise<AttachResult> {
      const operator = pickOperator(target);
      const now = deps.clock.now();
      const at = iso(now);
      return db.transaction().execute(async (trx) => {
        const view = await readUsageView(trx, iccid, deps.store.dialect);
        if (view === undefined) throw notFound(`eSIM ${iccid} not found`);
        if (view.esim.profileStatus !== 'Installed') {
          throw badRequest(
            `eSIM ${iccid} profile is ${view.esim.profileStatus}; install it before attaching`,
          );
        }
        const previous = view.network;
        await upsertNetwork(trx, {
          iccid,
          mcc: operator.mcc,
          mnc: operator.mnc,
          network_name: operator.name,
          country: operator.country,
          attached: 1,
          last_seen: at,
          first_used_at: previous?.first_used_at ?? null,
        });
        const current =
          view.live.find((a) => a.row.state === 'Active') ??
          view.live.find((a) => a.row.state === 'Queued');
        await deps.networkEvents.record(
          trx,
          {
            type: 'attach',
            organisationId: view.esim.organisationId,
            iccid,
            country: operator.country,
            previousCountry: previous?.country ?? null,
            firstAttachment: previous === undefined,
            assignment:
              current === undefined ? undefined : snapshotOf(current.row, current.description),
          },
          now,
        );
        return {
          iccid,
          mobileNetworkCode: operator.mcc + operator.mnc,
          mcc: operator.mcc,
          mnc: operator.mnc,
          networkName: operator.name,
          country: operator.country,
          lastSeen: at,
        };
      });
    },

    async reportUsage(iccid: string, bytes: number): Promise<UsageResult> {
      const outcome = await recordUsage(
        { db, dialect: deps.store.dialect, networkEvents: deps.networkEvents },
        iccid,
        bytes,
        deps.clock.now(),
      );
      const a = outcome.assignment;
      return {
        iccid,
        requestedBytes: outcome.requestedBytes,
        consumedBytes: outcome.consumedBytes,
        unservedBytes: outcome.unservedBytes,
        reason: outcome.reason,
        assignment:
          a === undefined
            ? undefined
            : {
                id: a.id,
                name: a.bundle_name,
                state: a.state,
                remainingBytes: a.remaining_bytes,
                usedBytes: a.used_bytes,
              },
        transitions: outcome.transitions,
      };
    },

    async deliverSms(input): Promise<SmsDelivery> {
      const row = {
        id: random.uuid(),
        iccid: input.iccid,
        organisation_id: input.organisationId,
        message: input.message,
        sender: input.from,
        msisdn: input.msisdn,
        created_at: iso(deps.clock.now()),
      };
      await insertSms(db, row);
      return {
        id: row.id,
        iccid: row.iccid,
        msisdn: row.msisdn,
        from: row.sender,
        message: row.message,
        createdAt: row.created_at,
      };
    },

    async assignMsisdn(iccid: string, countryIso: string | undefined): Promise<string> {
      const esim = await requireEsim(iccid);
      if (esim.msisdn !== null) return esim.msisdn;
      const home = countryIso ?? (await findNetwork(db, iccid))?.country ?? 'GB';
      const country = countryByIso(home);
      if (country === undefined || country.callingCode === '') {
        throw badRequest(`country "${home}" is not an ISO 3166-1 alpha-2 code with a calling code`);
      }
      // E.164 allows 15 digits; 9 subscriber digits fit every calling code.
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const subscriber = String(100_000_000 + random.int(900_000_000));
        const msisdn = country.callingCode + subscriber;
        if (await msisdnTaken(db, msisdn)) continue;
        if (await setMsisdn(db, iccid, msisdn)) return msisdn;
        return (await requireEsim(iccid)).msisdn ?? msisdn; // numbered concurrently
      }
      throw conflict('could not find a free MSISDN; try again');
    },
  };
}
