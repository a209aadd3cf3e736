import { listMail } from '../../domain/simulator/simulator-reads.js';
import type { Command } from '../command.js';
import { parse, parseInteger } from '../command.js';
import { withServices } from '../services.js';

export const mailList: Command = {
  usage: 'esim mail list [--to <address>] [--limit <n>] [--json]',
  summary:
    'Print the mail the portal sent to the outbox (MAIL_TRANSPORT=outbox, the simulator default), newest first',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      { to: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      false,
    );
    const limit = Math.min(parseInteger(values.limit, 'limit', 1) ?? 20, 10_000);
    return withServices(ctx.config(), async (deps) => {
      const mails = await listMail(deps.store.db, { to: values.to, limit });
      if (values.json === true) {
        ctx.io.out(JSON.stringify(mails));
        return 0;
      }
      if (mails.length === 0) ctx.io.out('no mail in the outbox');
      for (const mail of mails) {
        ctx.io.out(
          `--- #${mail.id} ${mail.at} to ${mail.to}\nSubject: ${mail.subject}\n\n${mail.body}`,
        );
      }
      return 0;
    });
  },
};
