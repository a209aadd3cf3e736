import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** All of standard input (for --password-stdin); absent where there is none. */
  readStdin?(): Promise<string>;
}

export interface CommandContext {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: CliIo;
  /** Loaded lazily, so `esim --help` works with a bad environment. */
  config(): Config;
}

export interface Command {
  readonly usage: string;
  readonly summary: string;
  run(ctx: CommandContext): Promise<number>;
}

/** A usage mistake: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? parseMessage(error, args) : String(error));
  }
}

/**
 * The parser's message, but for a value that starts with a dash (`--mb -3`), which it calls
 * "ambiguous" in three lines: said in one, with the value given.
 */
function parseMessage(error: Error, args: readonly string[]): string {
  const option = /^Option '(-[^' ]+)[^']*' argument is ambiguous/.exec(error.message)?.[1];
  if (option === undefined) return error.message;
  const at = args.findIndex((arg, i) => arg === option && args[i + 1]?.startsWith('-') === true);
  const value = args[at + 1] ?? '';
  return `${option} takes a value, and "${value}" starts with a dash: write ${option}=${value} to give it`;
}

/** The one positional argument a command takes, e.g. an organisation id. */
export function onePositional(positionals: readonly string[], what: string): string {
  const [value, ...extra] = positionals;
  if (value === undefined || extra.length > 0) throw new UsageError(`expected exactly one ${what}`);
  return value;
}

export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function parseInteger(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${name} must be a whole number >= ${min}, got "${value}"`);
  }
  return Number(value);
}
