import { isValidIccid } from '../../domain/esims/esim-issuer.js';
import { refreshEsim, updateCustomerRef } from '../../domain/esims/esim-actions.js';
import { findEsim } from '../../store/repositories/esim-repository.js';
import type { Command } from '../command.js';
import { UsageError, onePositional, parse } from '../command.js';
import { withServices } from '../services.js';

function iccidArgument(positionals: readonly string[]): string {
  const iccid = onePositional(positionals, 'ICCID');
  if (!isValidIccid(iccid)) {
    throw new UsageError(
      `"${iccid}" is not an ICCID: 19 digits starting 89 with a valid Luhn check digit`,
    );
  }
  return iccid;
}

export const esimsSetRef: Command = {
  usage: 'esim esims set-ref <iccid> --customer-ref <ref>',
  summary:
    'Set the customer reference of an eSIM (as PUT /esims); an empty --customer-ref "" clears it',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { 'customer-ref': { type: 'string' } });
    const iccid = iccidArgument(positionals);
    const ref = values['customer-ref'];
    if (ref === undefined) throw new UsageError('--customer-ref is required');
    return withServices(ctx.config(), async (deps) => {
      const esim = await findEsim(deps.store.db, iccid);
      if (esim === undefined) {
        ctx.io.err(`esim: eSIM ${iccid} not found`);
        return 1;
      }
      await updateCustomerRef(deps, esim.organisation_id, iccid, ref);
      ctx.io.out(
        ref === ''
          ? `eSIM ${iccid}: customer reference cleared`
          : `eSIM ${iccid}: customer reference ${ref}`,
      );
      return 0;
    });
  },
};

export const esimsRefresh: Command = {
  usage: 'esim esims refresh <iccid>',
  summary: 'Refresh the network registration of an eSIM (as GET /esims/{iccid}/refresh)',
  async run(ctx) {
    const { positionals } = parse(ctx.args, {});
    const iccid = iccidArgument(positionals);
    return withServices(ctx.config(), async (deps) => {
      if ((await findEsim(deps.store.db, iccid)) === undefined) {
        ctx.io.err(`esim: eSIM ${iccid} not found`);
        return 1;
      }
      await refreshEsim(deps, iccid);
      ctx.io.out(`eSIM ${iccid}: refreshed`);
      return 0;
    });
  },
};
