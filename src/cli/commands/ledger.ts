import { verifyLedger } from '../../domain/money/ledger.js';
import { listLedgerEntries } from '../../domain/money/money-reads.js';
import { findOrganisationById } from '../../domain/organisations/organisation-reads.js';
import type { Command } from '../command.js';
import { onePositional, parse, parseInteger } from '../command.js';
import { formatAmount, formatMajor } from '../money.js';
import { withServices } from '../services.js';

export const ledgerVerify: Command = {
  usage: 'esim ledger verify [--json]',
  summary:
    'Recompute every organisation’s balance and test credit from its journal; exit 1 on any difference',
  async run(ctx) {
    const { values } = parse(ctx.args, { json: { type: 'boolean' } }, false);
    return withServices(ctx.config(), async (deps) => {
      const report = await verifyLedger(deps.store.db);
      if (values.json === true) {
        ctx.io.out(JSON.stringify({ ok: report.differences.length === 0, ...report }));
      } else {
        for (const d of report.differences) ctx.io.err(`${d.organisationId}: ${d.message}`);
        ctx.io.out(
          `${report.organisations} organisations, ${report.entries} journal entries: ` +
            (report.differences.length === 0
              ? 'the ledger balances'
              : `${report.differences.length} difference(s)`),
        );
      }
      return report.differences.length === 0 ? 0 : 1;
    });
  },
};

export const ledgerShow: Command = {
  usage: 'esim ledger show <org id> [--limit <n>] [--json]',
  summary: 'Print an organisation’s newest journal entries (default 20), newest first',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      limit: { type: 'string' },
      json: { type: 'boolean' },
    });
    const orgId = onePositional(positionals, 'organisation id');
    const limit = parseInteger(values.limit, 'limit', 1) ?? 20;
    return withServices(ctx.config(), async (deps) => {
      const org = await findOrganisationById(deps.store.db, orgId);
      if (org === undefined) {
        ctx.io.err(`esim: organisation ${orgId} not found`);
        return 1;
      }
      const entries = await listLedgerEntries(deps.store.db, orgId, limit);
      if (values.json === true) {
        ctx.io.out(JSON.stringify(entries));
        return 0;
      }
      ctx.io.out(
        `${org.name}: balance ${formatAmount(org.balance, org.currency)}, test credit ${formatAmount(org.testCredit, org.currency)}`,
      );
      const major = (n: number): string => formatMajor(n, org.currency);
      const signed = (n: number): string => (n >= 0 ? `+${major(n)}` : major(n));
      for (const e of entries) {
        ctx.io.out(
          `${e.id}  ${e.createdAt}  ${e.kind.padEnd(18)} balance ${signed(e.balanceDelta)} -> ${major(e.balanceAfter)}` +
            `  test credit ${signed(e.testCreditDelta)} -> ${major(e.testCreditAfter)}  ${e.reference}  ${e.description}`,
        );
      }
      return 0;
    });
  },
};
