import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import type { Config } from '../config.js';
import type { RandomSource } from '../random.js';
import { seededRandom } from '../random.js';
import { recordSeen } from '../domain/network/attach.js';
import type { Db } from '../store/database.js';
import { insertSms } from '../store/repositories/sms-repository.js';
import type { SmsDelivery } from '../domain/network/network-adapter.js';
import type { SimulatedNetwork } from '../domain/simulator/simulator.js';

export interface SimulatedNetworkDeps {
  readonly config: Config;
  readonly store: { readonly db: Db };
  readonly clock: Clock;
}

/** The seed of the MSISDN sequence, apart from the operator choices' (SIM_SEED itself). */
const msisdnSeed = (simSeed: number): number => (simSeed ^ 0x5bd1e995) >>> 0;

/**
 * The default network's outbound side: SMS land in the network's outbox (the sms table, read
 * through /_sim), MSISDNs are drawn from a random sequence seeded from SIM_SEED. The simulator's
 * event source (simulated-events.ts) draws its operator choices from another sequence of the same
 * seed, so the same calls in the same order give the same operators and MSISDNs, and numbering
 * an eSIM (at its first attach) never changes which operator a later attach picks.
 */
export function createSimulatedNetwork(deps: SimulatedNetworkDeps): SimulatedNetwork {
  let rng = seededRandom(deps.config.simSeed);
  let numbers = seededRandom(msisdnSeed(deps.config.simSeed));
  const random: RandomSource = {
    int: (max) => rng.int(max),
    float: () => rng.float(),
    uuid: () => rng.uuid(),
    orderedUuid: () => rng.orderedUuid(),
  };
  const db = deps.store.db;
  return {
    random,
    reseed() {
      rng = seededRandom(deps.config.simSeed);
      numbers = seededRandom(msisdnSeed(deps.config.simSeed));
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

    async refreshRegistration(input): Promise<void> {
      // The device registers again at once, on the same network: the network reports it seen.
      await recordSeen(deps, input.iccid);
    },

    async allocateMsisdn(input): Promise<string> {
      // E.164 allows 15 digits; 9 subscriber digits fit every calling code.
      return input.callingCode + String(100_000_000 + numbers.int(900_000_000));
    },
  };
}
