import { hostname, userInfo } from 'node:os';
import { listAuditTrail } from '../../domain/audit/audit-log.js';
import type { AuditActor } from '../../domain/audit/audit-log.js';
import type { Command, CommandContext } from '../command.js';
import { parse, parseInteger } from '../command.js';
import { withServices } from '../services.js';

/** Who the audit log names for a command: ESIM_OPERATOR, or the OS user, at this host. */
export function operator(ctx: Pick<CommandContext, 'env'>): AuditActor {
  let user = ctx.env['ESIM_OPERATOR'];
  if (user === undefined || user === '') {
    try {
      user = userInfo().username;
    } catch {
      // A container user without a passwd entry has no name; the uid is still someone.
      user = `uid-${process.getuid?.() ?? 'unknown'}`;
    }
  }
  return { actor: `operator:${user}`, source: `cli@${hostname()}` };
}

export const auditList: Command = {
  usage: 'esim audit list [--org <id>] [--limit <n>] [--json]',
  summary: 'Print the audit log, newest first (default 50 rows): who did what, when and from where',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      { org: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      false,
    );
    const limit = parseInteger(values.limit, 'limit', 1) ?? 50;
    return withServices(ctx.config(), async (deps) => {
      const entries = await listAuditTrail(deps.store.db, {
        organisationId: values.org,
        limit: Math.min(limit, 10_000),
      });
      if (values.json === true) {
        ctx.io.out(JSON.stringify(entries));
        return 0;
      }
      for (const e of entries) {
        ctx.io.out(
          `${e.at}  ${e.action}  org ${e.organisationId ?? '-'}  by ${e.actor} from ${e.source}  ${JSON.stringify(e.details)}`,
        );
      }
      return 0;
    });
  },
};
