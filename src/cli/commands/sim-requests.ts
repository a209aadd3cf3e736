import type { JournalAnswer } from '../../http/routes/sim/requests.js';
import type { Command } from '../command.js';
import { UsageError, parse, parseInteger } from '../command.js';
import { URL_USAGE, simRequest } from './sim-http.js';

// `esim sim requests`: the simulator's request journal, the API calls made with an
// organisation's key, newest first; read through GET /_sim/requests of the running simulator,
// so the CLI shows exactly what the route answers.

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

function lines(answer: JournalAnswer): string[] {
  const calls = answer.requests;
  if (calls.length === 0) return ['no API call in the journal'];
  const width = Math.max(...calls.map((c) => c.path.length));
  const took = Math.max(...calls.map((c) => String(c.durationMs).length));
  return [
    ...calls.map(
      (c) =>
        `${c.at}  ${c.method.padEnd(6)} ${c.path.padEnd(width)}  ${c.status}  ` +
        `${String(c.durationMs).padStart(took)} ms  org ${c.organisationId}`,
    ),
    `${calls.length} call${calls.length === 1 ? '' : 's'}, newest first`,
  ];
}

export const simRequests: Command = {
  usage: `esim sim requests [--organisation <id>] [--limit <n>] [--json] ${URL_USAGE}`,
  summary: `Simulator: the API calls made with an organisation's key, newest first (default ${DEFAULT_LIMIT}): time, method, path, status, organisation`,
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      {
        url: { type: 'string' },
        organisation: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      },
      false,
    );
    const limit = parseInteger(values.limit, 'limit', 1) ?? DEFAULT_LIMIT;
    if (limit > MAX_LIMIT) throw new UsageError(`--limit must be at most ${MAX_LIMIT}`);
    if (values.organisation === '') throw new UsageError('--organisation needs an id');
    const query = new URLSearchParams({ limit: String(limit) });
    if (values.organisation !== undefined) query.set('organisation', values.organisation);
    const sent = await simRequest(ctx, values.url, 'GET', `/_sim/requests?${query.toString()}`);
    if (sent === undefined) return 1;
    const answer = sent.answer as JournalAnswer;
    if (values.json === true) ctx.io.out(JSON.stringify(answer, null, 2));
    else for (const line of lines(answer)) ctx.io.out(line);
    return 0;
  },
};
