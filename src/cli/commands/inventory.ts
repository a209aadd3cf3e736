import { iso } from '../../clock.js';
import { refundInventory } from '../../domain/inventory/inventory-refund.js';
import { availableBatches } from '../../domain/inventory/inventory-view.js';
import { findOrganisationById } from '../../domain/organisations/organisation-reads.js';
import type { Command } from '../command.js';
import { onePositional, parse, parseInteger, requireOption } from '../command.js';
import { withServices } from '../services.js';

export const inventoryList: Command = {
  usage: 'esim inventory list <org id> [--json]',
  summary:
    'Print an organisation’s unapplied inventory: one line per batch (usage id), as GET /inventory',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const orgId = onePositional(positionals, 'organisation id');
    return withServices(ctx.config(), async (deps) => {
      if ((await findOrganisationById(deps.store.db, orgId)) === undefined) {
        ctx.io.err(`esim: organisation ${orgId} not found`);
        return 1;
      }
      const batches = availableBatches(deps.store.db, orgId, iso(deps.clock.now()));
      if (values.json === true) {
        const list = [];
        for await (const b of batches) {
          list.push({
            id: b.id,
            bundleName: b.bundleName,
            total: b.total,
            remaining: b.remaining,
            expiry: b.expiry,
          });
        }
        ctx.io.out(JSON.stringify(list));
        return 0;
      }
      for await (const b of batches) {
        ctx.io.out(
          `usage id ${b.id}  ${b.bundleName}  ${b.remaining} of ${b.total} left  lapses ${b.expiry}`,
        );
      }
      return 0;
    });
  },
};

export const inventoryRefund: Command = {
  usage: 'esim inventory refund <org id> --usage-id <n> --quantity <n> [--json]',
  summary:
    'Refund unapplied units of one inventory batch to the organisation’s balance (as POST /inventory/refund)',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      'usage-id': { type: 'string' },
      quantity: { type: 'string' },
      json: { type: 'boolean' },
    });
    const orgId = onePositional(positionals, 'organisation id');
    const usageId = parseInteger(requireOption(values['usage-id'], 'usage-id'), 'usage-id', 1);
    const quantity = parseInteger(requireOption(values.quantity, 'quantity'), 'quantity', 1);
    return withServices(ctx.config(), async (deps) => {
      if ((await findOrganisationById(deps.store.db, orgId)) === undefined) {
        ctx.io.err(`esim: organisation ${orgId} not found`);
        return 1;
      }
      const done = await refundInventory(deps, {
        organisationId: orgId,
        usageId: usageId ?? 0,
        quantity: quantity ?? 0,
      });
      if (values.json === true) {
        ctx.io.out(JSON.stringify(done));
      } else {
        ctx.io.out(
          `refunded ${done.quantity} x ${done.bundle} (usage id ${done.usageId}, ${done.remaining} left): ` +
            `${done.amount} minor units, ${done.toBalance} to balance and ${done.toTestCredit} to test credit; ` +
            `balance now ${done.balance}, test credit ${done.testCredit}`,
        );
      }
      return 0;
    });
  },
};
