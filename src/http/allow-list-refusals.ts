import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { auditRefusal } from '../domain/access/ip-allow-list.js';
import type { Organisation } from '../domain/organisations/organisation.js';

// A request whose key is good but whose address is outside the organisation's IP allow-list is
// answered exactly as a bad key (auth.ts): the wire tells nobody the key is good. Its owner is
// told why, where only they look: the log (every refusal), the simulator's request journal
// (every refusal, under the organisation, with its 403), and the audit log that the portal's
// Activity page shows, at most once per address (and version path) every AUDIT_EVERY_MS, so a
// client retrying from the wrong address cannot fill the audit log.

export type AllowListRefused = (
  request: FastifyRequest,
  reply: FastifyReply,
  organisation: Organisation,
) => void;

const AUDIT_EVERY_MS = 10 * 60_000;
/** Addresses remembered at once; past it the memory starts over (a few more audit rows). */
const MAX_REMEMBERED = 10_000;

export function allowListRefusals(
  deps: Pick<AppDeps, 'store' | 'clock' | 'wallClock' | 'journal'>,
): AllowListRefused {
  const audited = new Map<string, number>();
  return (request, reply, organisation) => {
    const address = request.ip;
    const path = request.url.split('?')[0] ?? request.url;
    request.log.warn(
      { organisationId: organisation.id, address },
      `API key of organisation ${organisation.id} refused: ${address} is not in its IP allow-list (answered as an invalid key)`,
    );
    deps.journal?.record(
      {
        organisationId: organisation.id,
        method: request.method,
        url: request.url,
        status: 403,
        durationMs: reply.elapsedTime,
      },
      request.log,
    );
    const key = `${organisation.id} ${address}`;
    const now = deps.wallClock.now().getTime();
    const last = audited.get(key);
    if (last !== undefined && now - last < AUDIT_EVERY_MS) return;
    if (audited.size >= MAX_REMEMBERED) audited.clear();
    audited.set(key, now);
    const call = {
      organisationId: organisation.id,
      address,
      method: request.method,
      path: path.slice(0, 200),
      at: deps.clock.now(),
    };
    auditRefusal(deps.store.db, call).catch((error: unknown) =>
      request.log.warn({ err: error }, 'IP allow-list refusal: audit entry not written'),
    );
  };
}
