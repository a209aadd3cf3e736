import { isValidIccid } from '../../domain/esims/esim-issuer.js';
import { refreshEsim, updateCustomerRef } from '../../domain/esims/esim-actions.js';
import { deleteEsim, setSuspension } from '../../domain/esims/esim-state.js';
import { findEsim } from '../../domain/esims/esim-reads.js';
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
      await updateCustomerRef(deps, esim.organisationId, iccid, ref);
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

/** The organisation of an eSIM, or undefined (printed) when there is none. */
async function ownerOf(
  deps: Parameters<Parameters<typeof withServices>[1]>[0],
  iccid: string,
  err: (line: string) => void,
): Promise<string | undefined> {
  const esim = await findEsim(deps.store.db, iccid);
  if (esim === undefined) err(`esim: eSIM ${iccid} not found`);
  return esim?.organisationId;
}

function suspensionCommand(suspend: boolean): Command {
  const verb = suspend ? 'suspend' : 'unsuspend';
  return {
    usage: `esim esims ${verb} <iccid>`,
    summary: suspend
      ? 'Suspend an eSIM: the network serves it no data and no SMS until it is unsuspended'
      : 'Unsuspend an eSIM: data and SMS resume',
    async run(ctx) {
      const { positionals } = parse(ctx.args, {});
      const iccid = iccidArgument(positionals);
      return withServices(ctx.config(), async (deps) => {
        const organisationId = await ownerOf(deps, iccid, (l) => ctx.io.err(l));
        if (organisationId === undefined) return 1;
        const result = await setSuspension(deps, { organisationId, iccid, suspend });
        const now = result.state === 'suspended' ? 'suspended' : 'active';
        ctx.io.out(`eSIM ${iccid}: ${now}${result.changed ? '' : ' (unchanged)'}`);
        return 0;
      });
    },
  };
}

export const esimsSuspend = suspensionCommand(true);
export const esimsUnsuspend = suspensionCommand(false);

export const esimsDelete: Command = {
  usage: 'esim esims delete <iccid> --yes',
  summary:
    'Delete an eSIM from its organisation for good: every bundle revoked without refund, the eSIM deactivated',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { yes: { type: 'boolean' } });
    const iccid = iccidArgument(positionals);
    if (values.yes !== true) {
      throw new UsageError('deleting an eSIM cannot be undone: add --yes to confirm');
    }
    return withServices(ctx.config(), async (deps) => {
      const organisationId = await ownerOf(deps, iccid, (l) => ctx.io.err(l));
      if (organisationId === undefined) return 1;
      const result = await deleteEsim(deps, { organisationId, iccid });
      const n = result.revokedAssignments;
      ctx.io.out(
        `eSIM ${iccid}: deleted (deactivated); ${n} bundle assignment${n === 1 ? '' : 's'} revoked without refund`,
      );
      return 0;
    });
  },
};
