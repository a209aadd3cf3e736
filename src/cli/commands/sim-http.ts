import { serverUrl } from '../../server-address.js';
import type { CommandContext } from '../command.js';

// How `esim sim …` talks to the /_sim control plane of a running simulator, found by serverUrl
// (src/server-address.ts). SIM_ADMIN_TOKEN (environment) is sent as the bearer token when set.

export const URL_USAGE = '[--url http://127.0.0.1:8080]';

/** Said after a failure when this shell is set for production, whose servers have no /_sim. */
function productionNote(ctx: CommandContext): string {
  return ctx.env['MODE'] === 'production'
    ? ' (MODE=production here: `esim sim` drives a simulator; a production server has no /_sim)'
    : '';
}

/**
 * Sends one /_sim request. Answers the parsed body (JSON, else the text), or, when the server
 * cannot be reached or refuses, prints why and answers undefined.
 */
export async function simRequest(
  ctx: CommandContext,
  base: string | undefined,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: Record<string, unknown>,
): Promise<{ answer: unknown } | undefined> {
  const root = serverUrl(ctx.env, base);
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = ctx.env['SIM_ADMIN_TOKEN'];
  if (token !== undefined && token !== '') headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(root + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const reason = error instanceof Error ? (error.cause ?? error).toString() : String(error);
    ctx.io.err(`esim: cannot reach ${root}: ${reason}${productionNote(ctx)}`);
    return undefined;
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: as is
  }
  if (!response.ok) {
    const message =
      typeof parsed === 'object' && parsed !== null && 'message' in parsed
        ? String((parsed as { message: unknown }).message)
        : text;
    const note = response.status === 404 ? productionNote(ctx) : '';
    ctx.io.err(`esim: ${method} ${path} answered ${response.status}: ${message}${note}`);
    return undefined;
  }
  return { answer: parsed };
}

/** Sends one /_sim request and prints the answer as JSON (exit code 0), or why not (1). */
export async function simCall(
  ctx: CommandContext,
  base: string | undefined,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: Record<string, unknown>,
): Promise<number> {
  const sent = await simRequest(ctx, base, method, path, body);
  if (sent === undefined) return 1;
  const { answer } = sent;
  ctx.io.out(typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2));
  return 0;
}
