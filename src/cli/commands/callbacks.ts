import type { EventStatus } from '../../domain/callbacks/callback-event.js';
import {
  EVENT_STATUSES,
  getDelivery,
  listDeliveries,
  resendDelivery,
} from '../../domain/callbacks/deliveries.js';
import type { Command } from '../command.js';
import { UsageError, onePositional, parse, parseInteger } from '../command.js';
import { withServices } from '../services.js';

// Operator view of usage callback deliveries, straight on the database (no running server).

function statusOption(value: string | undefined): EventStatus | undefined {
  if (value === undefined) return undefined;
  const found = EVENT_STATUSES.find((s) => s === value);
  if (found === undefined)
    throw new UsageError(`--status must be one of ${EVENT_STATUSES.join(', ')}`);
  return found;
}

export const callbacksList: Command = {
  usage:
    'esim callbacks list <org id> [--status pending|delivering|delivered|failed|undeliverable] [--page n] [--per-page n] [--json]',
  summary: 'List an organisation’s usage callback deliveries, newest first',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      status: { type: 'string' },
      page: { type: 'string' },
      'per-page': { type: 'string' },
      json: { type: 'boolean' },
    });
    const orgId = onePositional(positionals, 'organisation id');
    const status = statusOption(values.status);
    const page = parseInteger(values.page, 'page', 1) ?? 1;
    const perPage = parseInteger(values['per-page'], 'per-page', 1) ?? 50;
    return withServices(ctx.config(), async (deps) => {
      const { deliveries, total } = await listDeliveries(deps.store.db, orgId, {
        status,
        page,
        perPage,
      });
      if (values.json === true) ctx.io.out(JSON.stringify({ callbacks: deliveries, total }));
      else {
        for (const d of deliveries) {
          ctx.io.out(
            `${d.id}  ${d.createdAt}  ${d.alertType.padEnd(15)}  ${d.status.padEnd(13)}  attempts ${d.attemptCount}  last ${d.lastStatusCode || '-'}`,
          );
        }
        ctx.io.out(`${deliveries.length} of ${total} shown`);
      }
      return 0;
    });
  },
};

export const callbacksShow: Command = {
  usage: 'esim callbacks show <event id> [--json]',
  summary: 'Show one usage callback: its body, state and every delivery attempt',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const id = onePositional(positionals, 'event id');
    return withServices(ctx.config(), async (deps) => {
      const d = await getDelivery(deps.store.db, undefined, id);
      if (values.json === true) {
        ctx.io.out(JSON.stringify(d));
        return 0;
      }
      ctx.io.out(`id:            ${d.id}`);
      ctx.io.out(`organisation:  ${d.organisationId}`);
      ctx.io.out(`alertType:     ${d.alertType}  (iccid ${d.iccid})`);
      ctx.io.out(
        `status:        ${d.status}${d.nextAttemptAt === '' ? '' : `, next attempt ${d.nextAttemptAt}`}`,
      );
      ctx.io.out(`created:       ${d.createdAt}`);
      if (d.deliveredAt !== '') ctx.io.out(`delivered:     ${d.deliveredAt}`);
      ctx.io.out(`payload:       ${JSON.stringify(d.payload)}`);
      for (const a of d.attempts) {
        const outcome = a.statusCode === 0 ? 'no response' : `HTTP ${a.statusCode}`;
        ctx.io.out(
          `attempt ${a.attemptNo}  ${a.attemptedAt}  ${outcome}  ${a.latencyMs} ms  ${a.url}${a.error === '' ? '' : `  (${a.error})`}`,
        );
      }
      return 0;
    });
  },
};

export const callbacksResend: Command = {
  usage: 'esim callbacks resend <event id> [--json]',
  summary: 'Queue a failed, delivered or undeliverable callback for delivery again',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const id = onePositional(positionals, 'event id');
    return withServices(ctx.config(), async (deps) => {
      const queued = await resendDelivery(deps, undefined, id);
      ctx.io.out(
        values.json === true ? JSON.stringify(queued) : `queued ${queued.id} for delivery`,
      );
      return 0;
    });
  },
};
