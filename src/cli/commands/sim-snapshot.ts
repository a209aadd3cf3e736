import { readFileSync } from 'node:fs';
import { writePrivateFile } from '../../store/private-files.js';
import { serverUrl } from '../../server-address.js';
import type { Command, CommandContext } from '../command.js';
import { UsageError, onePositional, parse } from '../command.js';

// `esim sim export <file>` and `esim sim import <file>`: the whole simulator state to a file and
// back, through GET and PUT /_sim/snapshot of the running simulator (found as `esim sim …` finds
// it).

const MEDIA_TYPE = 'application/vnd.esim.snapshot+json';
const URL_USAGE = '[--url http://127.0.0.1:8080]';

async function send(
  ctx: CommandContext,
  base: string | undefined,
  method: 'GET' | 'PUT',
  body?: string,
): Promise<{ status: number; text: string } | undefined> {
  const root = serverUrl(ctx.env, base);
  const headers: Record<string, string> = { accept: `${MEDIA_TYPE}, application/json` };
  const token = ctx.env['SIM_ADMIN_TOKEN'];
  if (token !== undefined && token !== '') headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = MEDIA_TYPE;
  try {
    const response = await fetch(`${root}/_sim/snapshot`, { method, headers, body });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const reason = error instanceof Error ? (error.cause ?? error).toString() : String(error);
    ctx.io.err(`esim: cannot reach ${root}: ${reason}`);
    return undefined;
  }
}

function refused(
  ctx: CommandContext,
  method: string,
  answer: { status: number; text: string },
): number {
  let message = answer.text;
  try {
    message = String((JSON.parse(answer.text) as { message?: unknown }).message ?? answer.text);
  } catch {
    // not JSON: as is
  }
  ctx.io.err(`esim: ${method} /_sim/snapshot answered ${answer.status}: ${message}`);
  return 1;
}

export const simExport: Command = {
  usage: `esim sim export <file> ${URL_USAGE}`,
  summary: 'Simulator: save the whole state (organisations, keys, eSIMs, clock, ...) to a file',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { url: { type: 'string' } });
    const file = onePositional(positionals, 'file');
    const answer = await send(ctx, values.url, 'GET');
    if (answer === undefined) return 1;
    if (answer.status !== 200) return refused(ctx, 'GET', answer);
    // Every API key in clear, password hashes, PINs and PUKs: readable by this user only.
    writePrivateFile(file, answer.text + '\n');
    const snapshot = JSON.parse(answer.text) as {
      clock: { now: string };
      tables: Record<string, unknown[]>;
    };
    ctx.io.out(
      `exported ${snapshot.tables['organisations']?.length ?? 0} organisations and ${snapshot.tables['esims']?.length ?? 0} eSIMs at ${snapshot.clock.now} to ${file}`,
    );
    return 0;
  },
};

export const simImport: Command = {
  usage: `esim sim import <file> ${URL_USAGE}`,
  summary: 'Simulator: restore the whole state, clock included, from a file of esim sim export',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { url: { type: 'string' } });
    const file = onePositional(positionals, 'file');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const answer = await send(ctx, values.url, 'PUT', text);
    if (answer === undefined) return 1;
    if (answer.status !== 200) return refused(ctx, 'PUT', answer);
    const summary = JSON.parse(answer.text) as {
      organisations: number;
      esims: number;
      clock: { now: string };
    };
    ctx.io.out(
      `imported ${summary.organisations} organisations and ${summary.esims} eSIMs; the clock is at ${summary.clock.now}`,
    );
    return 0;
  },
};
