import { countryByIso } from '../domain/catalogue/countries.js';
import { badRequest } from '../domain/errors/error-codes.js';
import { recordAttach } from '../domain/network/attach.js';
import type { MsisdnAllocator } from '../domain/network/msisdn.js';
import { numberEsim } from '../domain/network/msisdn.js';
import { recordDataUse } from '../domain/network/data-use.js';
import type { InboundNetworkDeps } from '../domain/network/inbound-deps.js';
import { recordProfileStatus } from '../domain/network/profile.js';
import type { RandomSource } from '../random.js';
import type { NetworkOperator } from '../domain/network/operators.js';
import { operatorByCode, operatorsIn } from '../domain/network/operators.js';
import type { AttachTarget, SimulatedEvents } from '../domain/simulator/simulator.js';

// The simulator's event source (SimulatedEvents, domain/simulator/simulator.ts): it plays what a
// device and a mobile network would report and hands each event to the domain's inbound use
// cases, exactly as a real network integration would. Its only own decision is which real
// operator an attach lands on.

/**
 * `random` is the simulated network's seeded sequence (shared with its MSISDN draws, so a run
 * replays under the same SIM_SEED); `deps` is read at each event. `numbers` allocates the phone
 * number an eSIM gets when it first registers.
 */
export function createSimulatedEvents(
  deps: InboundNetworkDeps,
  random: RandomSource,
  numbers: MsisdnAllocator,
): SimulatedEvents {
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
    async installProfile(iccid, status) {
      return recordProfileStatus(deps, iccid, status);
    },
    async attach(iccid, target) {
      const attached = await recordAttach(deps, iccid, pickOperator(target));
      // The network numbers a profile when it first registers, so every eSIM that has been on a
      // network can take an SMS (the spec: the eSIM must have an MSISDN), as on the live
      // network; the number has the calling code of that first network's country, and stays.
      await numberEsim({ store: deps.store, network: numbers }, iccid, undefined);
      return attached;
    },
    async reportUsage(iccid, bytes) {
      return recordDataUse(deps, iccid, bytes);
    },
  };
}
